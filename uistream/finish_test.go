package uistream_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aisdkgo/ai"
	"github.com/aisdkgo/ai/uistream"
)

// TestOnFinishRecordings serves every recorded scenario with an OnFinish
// hook: it is called once, with the message the client builds from the
// same response, and the history with that message in place.
func TestOnFinishRecordings(t *testing.T) {
	names, err := filepath.Glob("testdata/oracle/*.sse")
	if err != nil || len(names) == 0 {
		t.Fatalf("no recordings: %v", err)
	}
	all := scenarios(t)
	for _, file := range names {
		name := strings.TrimSuffix(filepath.Base(file), ".sse")
		sc := all[name]
		if sc == nil || sc.handler != nil {
			continue // a route of its own, without the standard options
		}
		t.Run(name, func(t *testing.T) {
			var events []uistream.FinishEvent
			sc.opts.OnFinish = func(ev uistream.FinishEvent) { events = append(events, ev) }
			srv := httptest.NewServer(sc.route(t))
			defer srv.Close()
			reqBody := readFile(t, name+".request.json")
			resp, err := http.Post(srv.URL, "application/json", bytes.NewReader(reqBody))
			if err != nil {
				t.Fatal(err)
			}
			body, err := io.ReadAll(resp.Body)
			resp.Body.Close()
			if err != nil {
				t.Fatal(err)
			}
			if len(events) != 1 {
				t.Fatalf("OnFinish called %d times", len(events))
			}
			ev := events[0]

			req, err := uistream.ParseRequest(reqBody, unsignedRecordings)
			if err != nil {
				t.Fatal(err)
			}
			var ro uistream.ReadOptions
			last := req.Messages[len(req.Messages)-1]
			continued := last.Role == uistream.RoleAssistant
			if continued {
				ro.Message = &last
			}
			var client uistream.Message
			var streamErr error
			for m, err := range uistream.ReadMessage(uistream.ReadChunks(bytes.NewReader(body)), &ro) {
				if errors.As(err, new(*uistream.StreamError)) {
					streamErr = err
					continue
				}
				if err != nil {
					t.Fatal(err)
				}
				client = m
			}
			got, _ := json.Marshal(ev.ResponseMessage)
			want, _ := json.Marshal(client)
			if string(got) != string(want) {
				t.Errorf("response message\n got %s\nwant %s", got, want)
			}
			if ev.IsContinuation != continued {
				t.Errorf("IsContinuation %v, want %v", ev.IsContinuation, continued)
			}
			wantLen := len(req.Messages) + 1
			if continued {
				wantLen--
			}
			if len(ev.Messages) != wantLen {
				t.Fatalf("%d messages, want %d", len(ev.Messages), wantLen)
			}
			if m, _ := json.Marshal(ev.Messages[len(ev.Messages)-1]); string(m) != string(got) {
				t.Errorf("the last message is not the response message: %s", m)
			}
			if ev.Messages[0].ID != req.Messages[0].ID {
				t.Errorf("the history does not start with the original messages")
			}
			aborted := strings.Contains(string(body), `"type":"abort"`)
			if ev.IsAborted != aborted {
				t.Errorf("IsAborted %v, the stream aborted: %v", ev.IsAborted, aborted)
			}
			switch {
			case streamErr != nil:
				var se *uistream.StreamError
				if !errors.As(ev.Err, &se) || se.Error() != streamErr.Error() {
					t.Errorf("Err %v, the stream reported %v", ev.Err, streamErr)
				}
			case ev.Err != nil:
				t.Errorf("Err %v for a stream without error", ev.Err)
			}
			if !aborted && ev.FinishReason == "" {
				t.Error("no finish reason")
			}
		})
	}
}

// TestOnFinishChunksStopped: a reader of Chunks that stops early gets
// OnFinish with ErrStopped and the message so far.
func TestOnFinishChunksStopped(t *testing.T) {
	parts := func(yield func(ai.Part, error) bool) {
		for _, p := range []ai.Part{ai.Start{}, ai.StartStep{}, ai.TextStart{ID: "t"}, ai.TextDelta{ID: "t", Delta: "Hel"}, ai.TextDelta{ID: "t", Delta: "lo"}} {
			if !yield(p, nil) {
				return
			}
		}
	}
	var got []uistream.FinishEvent
	opts := &uistream.Options{MessageID: "m", OnFinish: func(ev uistream.FinishEvent) { got = append(got, ev) }}
	n := 0
	for range uistream.Chunks(parts, opts) {
		if n++; n == 4 {
			break
		}
	}
	if len(got) != 1 {
		t.Fatalf("OnFinish called %d times", len(got))
	}
	if !errors.Is(got[0].Err, uistream.ErrStopped) {
		t.Errorf("Err = %v", got[0].Err)
	}
	m, _ := json.Marshal(got[0].ResponseMessage)
	if want := `{"id":"m","role":"assistant","parts":[{"type":"step-start"},{"type":"text","text":"Hel","state":"streaming"}]}`; string(m) != want {
		t.Errorf("message %s, want %s", m, want)
	}
}
