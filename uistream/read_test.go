package uistream_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/aisdkgo/ai"
	"github.com/aisdkgo/ai/uistream"
)

// recordedClient is what the recorded client held after a stream.
type recordedClient struct {
	Status   string            `json:"status"`
	Error    *string           `json:"error"`
	OnData   []json.RawMessage `json:"onData"`
	Messages []json.RawMessage `json:"messages"`
}

// TestReadMessageRecordings folds every recorded stream into the message
// the recorded client ended up with, starting from the message the
// request continued.
func TestReadMessageRecordings(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("testdata", "oracle", "*.sse"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no recordings: %v", err)
	}
	// Every recorded client has its stream here: none is left out.
	clients, err := filepath.Glob(filepath.Join("testdata", "oracle", "*.client.json"))
	if err != nil || len(clients) != len(files) {
		t.Fatalf("%d recorded clients for %d recorded streams (%v)", len(clients), len(files), err)
	}
	for _, sse := range files {
		name := strings.TrimSuffix(filepath.Base(sse), ".sse")
		t.Run(name, func(t *testing.T) {
			var client recordedClient
			if err := json.Unmarshal(readFile(t, name+".client.json"), &client); err != nil {
				t.Fatal(err)
			}
			req, err := uistream.ParseRequest(readFile(t, name+".request.json"),
				&uistream.DecodeOptions{InsecureAcceptUnsignedApprovals: true})
			if err != nil {
				t.Fatal(err)
			}
			var opts uistream.ReadOptions
			if last := req.Messages[len(req.Messages)-1]; last.Role == uistream.RoleAssistant {
				opts.Message = &last
			}
			var data []uistream.Data
			opts.OnData = func(d uistream.Data) { data = append(data, d) }

			body, err := os.ReadFile(sse)
			if err != nil {
				t.Fatal(err)
			}
			var final *uistream.Message
			var streamErrs []string
			snapshots := 0
			for m, err := range uistream.ReadMessage(uistream.ReadChunks(bytes.NewReader(body)), &opts) {
				var se *uistream.StreamError
				if errors.As(err, &se) {
					streamErrs = append(streamErrs, se.ErrorText)
					continue
				}
				if err != nil {
					t.Fatalf("reading: %v", err)
				}
				snapshots++
				final = &m
			}
			if final == nil {
				t.Fatal("no message")
			}
			if snapshots < 2 {
				t.Errorf("%d snapshots, want one per change", snapshots)
			}
			if client.Error != nil {
				if len(streamErrs) == 0 || streamErrs[0] != *client.Error {
					t.Errorf("stream errors %q, client error %q", streamErrs, *client.Error)
				}
			} else if len(streamErrs) > 0 {
				t.Errorf("stream errors %q, the client had none", streamErrs)
			}
			got, err := json.Marshal(final)
			if err != nil {
				t.Fatal(err)
			}
			want := client.Messages[len(client.Messages)-1]
			if !sameJSON(t, got, want) {
				t.Errorf("message\n got %s\nwant %s", got, compact(t, want))
			}
			if len(data) != len(client.OnData) {
				t.Fatalf("%d data chunks, client had %d", len(data), len(client.OnData))
			}
			for i, d := range data {
				got, _ := json.Marshal(d)
				if !sameJSON(t, got, client.OnData[i]) {
					t.Errorf("data %d: got %s want %s", i, got, compact(t, client.OnData[i]))
				}
			}
		})
	}
}

func sameJSON(t *testing.T, a, b []byte) bool {
	t.Helper()
	var va, vb any
	if err := json.Unmarshal(a, &va); err != nil {
		t.Fatalf("%v: %s", err, a)
	}
	if err := json.Unmarshal(b, &vb); err != nil {
		t.Fatalf("%v: %s", err, b)
	}
	return reflect.DeepEqual(va, vb)
}

func compact(t *testing.T, v []byte) string {
	var buf bytes.Buffer
	if err := json.Compact(&buf, v); err != nil {
		t.Fatal(err)
	}
	return buf.String()
}

// TestReadMessageRejects checks that chunks that do not fit the message
// end the reading with a typed error, and that a cut stream is an error.
func TestReadMessageRejects(t *testing.T) {
	for name, body := range map[string]string{
		"delta without start":   `data: {"type":"text-delta","id":"t","delta":"x"}` + "\n\n",
		"output of no call":     `data: {"type":"tool-output-available","toolCallId":"c","output":1}` + "\n\n",
		"unknown approval":      `data: {"type":"tool-approval-response","approvalId":"a","approved":true}` + "\n\n",
		"unknown type":          `data: {"type":"nonsense"}` + "\n\n",
		"missing required text": `data: {"type":"error"}` + "\n\n",
	} {
		var err error
		for _, e := range uistream.ReadMessage(uistream.ReadChunks(strings.NewReader(body+"data: [DONE]\n\n")), nil) {
			err = e
		}
		var ce *uistream.ChunkError
		if !errors.As(err, &ce) {
			t.Errorf("%s: got %v, want a ChunkError", name, err)
		}
	}
	var err error
	for _, e := range uistream.ReadMessage(uistream.ReadChunks(strings.NewReader(`data: {"type":"start"}`+"\n\n")), nil) {
		err = e
	}
	if !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Errorf("cut stream: got %v", err)
	}
}

// TestParseChunkRoundTrip parses what Marshal writes.
func TestParseChunkRoundTrip(t *testing.T) {
	for _, c := range []uistream.Chunk{
		uistream.Start{MessageID: "m"},
		uistream.ToolInputStart{ToolCallID: "c", ToolName: "t", Dynamic: new(true), Title: "T"},
		uistream.ToolApprovalRequest{ApprovalID: "a", ToolCallID: "c", Signature: "sig", Reason: "why"},
		uistream.ToolApprovalResponse{ApprovalID: "a", Approved: false, Reason: "no"},
		uistream.ToolOutputAvailable{ToolCallID: "c", Output: json.RawMessage(`{"x":1}`), Preliminary: true},
		uistream.Data{Name: "n", ID: "i", Data: json.RawMessage(`[1]`), Transient: true},
		uistream.SteeringMessage{ID: "s", Parts: []uistream.Part{uistream.TextPart{Text: "hi"}}},
		uistream.ResetStep{},
	} {
		b, err := uistream.Marshal(c)
		if err != nil {
			t.Fatal(err)
		}
		p, err := uistream.ParseChunk(b)
		if err != nil {
			t.Fatalf("%s: %v", b, err)
		}
		b2, _ := uistream.Marshal(p)
		if string(b) != string(b2) {
			t.Errorf("round trip: %s became %s", b, b2)
		}
	}
}

// TestReadMessageBounds: a stream that makes too many parts is refused.
func TestReadMessageBounds(t *testing.T) {
	var body strings.Builder
	for range 11 {
		body.WriteString(`data: {"type":"custom","kind":"x"}` + "\n\n")
	}
	body.WriteString("data: [DONE]\n\n")
	var err error
	n := 0
	for _, e := range uistream.ReadMessage(uistream.ReadChunks(strings.NewReader(body.String())), &uistream.ReadOptions{MaxParts: 10}) {
		if e != nil {
			err = e
		} else {
			n++
		}
	}
	var ce *uistream.ChunkError
	if !errors.As(err, &ce) || n != 10 {
		t.Errorf("%d snapshots, error %v; want 10 and a ChunkError", n, err)
	}
}

// TestReadMessageStreamingInput: the input of a call grows with its
// deltas (parsed as far as it goes), and a call cut off keeps its partial
// input, also where only the last snapshot is taken (OnFinish).
func TestReadMessageStreamingInput(t *testing.T) {
	chunks := []uistream.Chunk{
		uistream.Start{MessageID: "m"}, uistream.StartStep{},
		uistream.ToolInputStart{ToolCallID: "c", ToolName: "search"},
		uistream.ToolInputDelta{ToolCallID: "c", InputTextDelta: `{"query":"we`},
		uistream.ToolInputDelta{ToolCallID: "c", InputTextDelta: `ather","n":1`},
	}
	var inputs []string
	var last uistream.Message
	seq := func(yield func(uistream.Chunk, error) bool) {
		for _, c := range chunks {
			if !yield(c, nil) {
				return
			}
		}
	}
	for m, err := range uistream.ReadMessage(seq, nil) {
		if err != nil {
			t.Fatal(err)
		}
		if len(m.Parts) == 0 {
			continue
		}
		if tp, ok := m.Parts[len(m.Parts)-1].(uistream.ToolPart); ok && tp.Input != nil {
			inputs = append(inputs, string(tp.Input))
		}
		last = m
	}
	if want := []string{`{"query":"we"}`, `{"query":"weather","n":1}`}; !reflect.DeepEqual(inputs, want) {
		t.Errorf("inputs %q, want %q", inputs, want)
	}
	want, _ := json.Marshal(last)
	if !strings.Contains(string(want), `"rawInput":"{\"query\":\"weather\",\"n\":1"`) {
		t.Errorf("no raw input: %s", want)
	}

	var ev uistream.FinishEvent
	parts := func(yield func(ai.Part, error) bool) {
		for _, p := range []ai.Part{ai.Start{}, ai.StartStep{}, ai.ToolInputStart{ID: "c", ToolName: "search"},
			ai.ToolInputDelta{ID: "c", Delta: `{"query":"we`}, ai.ToolInputDelta{ID: "c", Delta: `ather","n":1`}} {
			if !yield(p, nil) {
				return
			}
		}
	}
	for range uistream.Chunks(parts, &uistream.Options{MessageID: "m", OnFinish: func(e uistream.FinishEvent) { ev = e }}) {
	}
	got, _ := json.Marshal(ev.ResponseMessage)
	if string(got) != string(want) {
		t.Errorf("OnFinish message\n got %s\nwant %s", got, want)
	}
}

// TestReadMessageReference folds the streams of testdata/read/cases.json
// and compares with what the TypeScript SDK's readUIMessageStream yields
// for them (testdata/read/expected.json, written by record.mjs there): the
// final message, the number of snapshots and the errors. The cases cover
// what the recordings do not: preliminary results, automatic approvals,
// sources and files, data parts, dynamic and failed calls, streaming
// input cut off, reset steps, steering messages, a continuation, a new
// message id and an error chunk.
func TestReadMessageReference(t *testing.T) {
	var cases []struct {
		Name    string            `json:"name"`
		Message json.RawMessage   `json:"message"`
		Chunks  []json.RawMessage `json:"chunks"`
	}
	var expected []struct {
		Name      string          `json:"name"`
		Snapshots int             `json:"snapshots"`
		Errors    []string        `json:"errors"`
		Message   json.RawMessage `json:"message"`
	}
	for file, v := range map[string]any{"cases.json": &cases, "expected.json": &expected} {
		b, err := os.ReadFile(filepath.Join("testdata", "read", file))
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(b, v); err != nil {
			t.Fatal(err)
		}
	}
	if len(cases) != len(expected) || len(cases) == 0 {
		t.Fatalf("%d cases, %d expectations", len(cases), len(expected))
	}
	for i, c := range cases {
		want := expected[i]
		t.Run(c.Name, func(t *testing.T) {
			var opts uistream.ReadOptions
			if c.Message != nil {
				var m uistream.Message
				if err := json.Unmarshal(c.Message, &m); err != nil {
					t.Fatal(err)
				}
				opts.Message = &m
			}
			seq := func(yield func(uistream.Chunk, error) bool) {
				for _, raw := range c.Chunks {
					if !yield(uistream.ParseChunk(raw)) {
						return
					}
				}
			}
			var final uistream.Message
			var errs []string
			snapshots := 0
			for m, err := range uistream.ReadMessage(seq, &opts) {
				var se *uistream.StreamError
				switch {
				case errors.As(err, &se):
					errs = append(errs, se.ErrorText)
				case err != nil:
					t.Fatal(err)
				default:
					snapshots++
					final = m
				}
			}
			got, _ := json.Marshal(final)
			if !sameJSON(t, got, want.Message) {
				t.Errorf("message\n got %s\nwant %s", got, compact(t, want.Message))
			}
			if snapshots != want.Snapshots {
				t.Errorf("%d snapshots, want %d", snapshots, want.Snapshots)
			}
			if len(errs) != len(want.Errors) || (len(errs) > 0 && errs[0] != want.Errors[0]) {
				t.Errorf("errors %q, want %q", errs, want.Errors)
			}
		})
	}
}

// FuzzReadMessage reads arbitrary streams: no panic, and every snapshot
// marshals.
func FuzzReadMessage(f *testing.F) {
	files, _ := filepath.Glob(filepath.Join("testdata", "oracle", "*.sse"))
	for _, file := range files {
		b, err := os.ReadFile(file)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(string(b))
	}
	f.Add("data: {\"type\":\"start-step\"}\n\ndata: {\"type\":\"text-start\",\"id\":\"a\"}\n\ndata: {\"type\":\"reset-step\"}\n\ndata: {\"type\":\"text-delta\",\"id\":\"a\",\"delta\":\"x\"}\n\n")
	f.Fuzz(func(t *testing.T, body string) {
		for m, err := range uistream.ReadMessage(uistream.ReadChunks(strings.NewReader(body)), nil) {
			if err != nil {
				continue
			}
			if _, err := json.Marshal(m); err != nil {
				t.Fatalf("snapshot does not marshal: %v", err)
			}
		}
	})
}
