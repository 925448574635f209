package uistream_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"iter"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aisdkgo/ai"
	"github.com/aisdkgo/ai/aitest"
	"github.com/aisdkgo/ai/provider"
	"github.com/aisdkgo/ai/uistream"
)

// The recordings in testdata/oracle were made with the TypeScript SDK: a
// chat client posting to a route that streams a scripted model's answer.
// Each test below scripts the same model responses and tools in Go, posts
// the recorded request to a Go handler, and compares the response with the
// recording.

// Model stream builders, in the shape the recorded scenarios use.

func step(responseID string, parts ...[]provider.StreamPart) []provider.StreamPart {
	out := []provider.StreamPart{
		provider.StreamStart{},
		provider.ResponseMetadata{ID: responseID, ModelID: "mock-model-id", Timestamp: time.Unix(0, 0).UTC()},
	}
	for _, p := range parts {
		out = append(out, p...)
	}
	return out
}

func text(id string, deltas ...string) []provider.StreamPart {
	out := []provider.StreamPart{provider.TextStart{ID: id}}
	for _, d := range deltas {
		out = append(out, provider.TextDelta{ID: id, Delta: d})
	}
	return append(out, provider.TextEnd{ID: id})
}

// call is a streamed tool call whose input arrives in n pieces.
func call(id, tool, input string, n int) []provider.StreamPart {
	out := []provider.StreamPart{provider.ToolInputStart{ID: id, ToolName: tool}}
	size := (len(input) + n - 1) / n
	for i := 0; i < len(input); i += size {
		out = append(out, provider.ToolInputDelta{ID: id, Delta: input[i:min(i+size, len(input))]})
	}
	return append(out, provider.ToolInputEnd{ID: id}, provider.ToolCall{ToolCallID: id, ToolName: tool, Input: input})
}

var usage = provider.Usage{
	InputTokens:  provider.InputTokens{Total: new(10), NoCache: new(10), CacheRead: new(0), CacheWrite: new(0)},
	OutputTokens: provider.OutputTokens{Total: new(20), Text: new(20), Reasoning: new(0)},
}

func finish(reason provider.FinishReasonKind) []provider.StreamPart {
	return []provider.StreamPart{provider.Finish{FinishReason: provider.FinishReason{Unified: reason, Raw: string(reason)}, Usage: usage}}
}

func scripted(steps ...[]provider.StreamPart) *aitest.Model {
	m := &aitest.Model{}
	for _, s := range steps {
		m.Responses = append(m.Responses, aitest.Response{Chunks: s})
	}
	return m
}

// ids returns a GenerateID that hands out the given ids in order.
func ids(list ...string) func() string {
	var mu sync.Mutex
	return func() string {
		mu.Lock()
		defer mu.Unlock()
		if len(list) == 0 {
			return "unexpected-id"
		}
		id := list[0]
		list = list[1:]
		return id
	}
}

// The tools of the recorded scenarios.

type cityIn struct {
	City string `json:"city"`
}

type weatherOut struct {
	City        string `json:"city"`
	Temperature int    `json:"temperature"`
	Unit        string `json:"unit"`
	Condition   string `json:"condition"`
}

func weatherTool(deferred bool) ai.Tool {
	return ai.NewTool(ai.ToolDef[cityIn, weatherOut]{
		Description:  "Get the current weather for a city",
		DeferLoading: deferred,
		Execute: func(_ context.Context, in cityIn, _ ai.ToolExecutionOptions) (weatherOut, error) {
			return weatherOut{City: in.City, Temperature: 21, Unit: "C", Condition: "sunny"}, nil
		},
	})
}

func toolSearchTools() ai.Tools {
	type tickerIn struct {
		Ticker string `json:"ticker"`
	}
	type priceOut struct {
		Ticker string  `json:"ticker"`
		Price  float64 `json:"price"`
	}
	type timeOut struct {
		Time string `json:"time"`
	}
	return ai.Tools{
		{Name: "toolSearch", Tool: ai.ToolSearch()},
		{Name: "getWeather", Tool: weatherTool(true)},
		{Name: "getStockPrice", Tool: ai.NewTool(ai.ToolDef[tickerIn, priceOut]{
			Description:  "Look up the latest stock price for a ticker symbol",
			DeferLoading: true,
			Execute: func(_ context.Context, in tickerIn, _ ai.ToolExecutionOptions) (priceOut, error) {
				return priceOut{in.Ticker, 123.45}, nil
			},
		})},
		{Name: "getLocalTime", Tool: ai.NewTool(ai.ToolDef[cityIn, timeOut]{
			Description: "Get the local time of a city",
			Execute: func(context.Context, cityIn, ai.ToolExecutionOptions) (timeOut, error) {
				return timeOut{"12:00"}, nil
			},
		})},
	}
}

type pathIn struct {
	Path string `json:"path"`
}

type deletedOut struct {
	Deleted string `json:"deleted"`
}

// deleteTools is the approval scenario's tool; deleted records the calls.
func deleteTools(deleted *[]string, mu *sync.Mutex) ai.Tools {
	return ai.Tools{{Name: "deleteFile", Tool: ai.NewTool(ai.ToolDef[pathIn, deletedOut]{
		Description: "Delete a file",
		Execute: func(_ context.Context, in pathIn, _ ai.ToolExecutionOptions) (deletedOut, error) {
			mu.Lock()
			*deleted = append(*deleted, in.Path)
			mu.Unlock()
			return deletedOut{in.Path}, nil
		},
	})}}
}

// automaticApproval decides without asking: log files may go.
var automaticApproval = &ai.ToolApproval{Tools: map[string]ai.ApprovalRule{"deleteFile": {Func: func(_ context.Context, input json.RawMessage, _ ai.ApprovalRequest) (ai.ApprovalStatus, error) {
	var in pathIn
	if err := json.Unmarshal(input, &in); err != nil {
		return ai.ApprovalStatus{}, err
	}
	if strings.HasSuffix(in.Path, ".log") {
		return ai.Approved.WithReason("log files are safe"), nil
	}
	return ai.Denied.WithReason("system file"), nil
}}}}

type topicIn struct {
	Topic string `json:"topic"`
}

type researchOut struct {
	Status   string `json:"status"`
	Topic    string `json:"topic"`
	Progress int    `json:"progress"`
	Summary  string `json:"summary,omitempty"`
}

// researchTool reports its progress with preliminary results.
func researchTool() ai.Tool {
	return ai.NewTool(ai.ToolDef[topicIn, researchOut]{
		Description: "Research a topic",
		ExecuteStream: func(_ context.Context, in topicIn, _ ai.ToolExecutionOptions) iter.Seq2[researchOut, error] {
			return func(yield func(researchOut, error) bool) {
				_ = yield(researchOut{"searching", in.Topic, 0, ""}, nil) &&
					yield(researchOut{"reading", in.Topic, 50, ""}, nil) &&
					yield(researchOut{"done", in.Topic, 100, "Go is fast."}, nil)
			}
		},
	})
}

// recordedMetadata is the message metadata of the sources recording.
func recordedMetadata(p ai.Part) any {
	switch p := p.(type) {
	case ai.Start:
		return map[string]any{"createdAt": 0, "model": "mock-model-id"}
	case ai.FinishStep:
		return map[string]any{"steps": 1}
	case ai.Finish:
		return map[string]any{"totalTokens": *p.TotalUsage.TotalTokens}
	}
	return nil
}

var userApproval = &ai.ToolApproval{Tools: map[string]ai.ApprovalRule{
	"deleteFile": ai.Rule(ai.RequiresApproval.WithReason("Deleting files cannot be undone.")),
}}

// A scenario: what the route does with the recorded request.
type scenario struct {
	model    provider.LanguageModel
	tools    ai.Tools
	approval *ai.ToolApproval
	genID    func() string
	opts     uistream.Options
	// handler, when set, replaces the standard route.
	handler http.HandlerFunc
	// cancelAfter, when set, wraps the model: the route's context is
	// cancelled once the model has sent this many parts.
	abortAfter int
	// errorTexts maps tool call ids to a text the Go error text must
	// contain; the texts of the reference (JavaScript error strings) are
	// not compared.
	errorTexts map[string]string
	// check, when set, checks the effects of the scenario.
	check func(t *testing.T)
}

// route is the standard chat route: UI messages in, UI message stream out.
func (sc *scenario) route(t *testing.T) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		req, err := uistream.DecodeRequest(r, unsignedRecordings)
		if err != nil {
			t.Errorf("decoding the request: %v", err)
			uistream.WriteError(w, err)
			return
		}
		msgs, err := uistream.ConvertMessages(r.Context(), req.Messages, &uistream.ConvertOptions{Tools: sc.tools})
		if err != nil {
			t.Errorf("converting the messages: %v", err)
			uistream.WriteError(w, err)
			return
		}
		ctx := r.Context()
		model := sc.model
		if sc.abortAfter > 0 {
			var cancel context.CancelFunc
			ctx, cancel = context.WithCancel(ctx)
			defer cancel()
			model = &abortingModel{LanguageModel: model, after: sc.abortAfter, cancel: cancel}
		}
		res, err := ai.StreamText(ctx, ai.StreamTextOptions{
			Model: model, Tools: sc.tools, Messages: msgs, StopWhen: ai.StepCountIs(5),
			ToolApproval: sc.approval, GenerateID: sc.genID,
		})
		if err != nil {
			t.Errorf("StreamText: %v", err)
			uistream.WriteError(w, err)
			return
		}
		opts := sc.opts
		opts.OriginalMessages = req.Messages
		opts.Tools = sc.tools
		if err := uistream.Write(w, res.Parts(), &opts); err != nil {
			t.Errorf("Write: %v", err)
		}
	}
}

// abortingModel cancels the generation in the middle of its stream and
// then waits for the cancellation, like a model that is still generating.
type abortingModel struct {
	provider.LanguageModel
	after  int
	cancel context.CancelFunc
}

func (m *abortingModel) Stream(ctx context.Context, opts *provider.CallOptions) (*provider.StreamResult, error) {
	res, err := m.LanguageModel.Stream(ctx, opts)
	if err != nil {
		return nil, err
	}
	inner := res.Stream
	res.Stream = func(yield func(provider.StreamPart, error) bool) {
		n := 0
		for p, err := range inner {
			if n == m.after {
				m.cancel()
				<-ctx.Done()
				yield(nil, ctx.Err())
				return
			}
			n++
			if !yield(p, err) {
				return
			}
		}
	}
	return res, nil
}

func scenarios(t *testing.T) map[string]*scenario {
	var deleted []string
	var mu sync.Mutex
	invalidModel := scripted(
		step("resp-1", call("call-bad-input", "getWeather", `{"city":42}`, 1), call("call-no-such-tool", "getWether", `{"city":"Paris"}`, 1), finish("tool-calls")),
		step("resp-2", text("txt-2", "I made invalid tool calls."), finish("stop")),
	)
	type keyIn struct {
		Key string `json:"key"`
	}
	mcpLookup, err := ai.NewDynamicTool(ai.ToolDef[json.RawMessage, any]{
		Description:    "Look up a record (runtime-defined)",
		RawInputSchema: json.RawMessage(`{"type":"object","properties":{"key":{"type":"string"}},"required":["key"]}`),
		Metadata:       map[string]any{"server": "demo-mcp"},
		Execute: func(_ context.Context, in json.RawMessage, _ ai.ToolExecutionOptions) (any, error) {
			var k keyIn
			if err := json.Unmarshal(in, &k); err != nil {
				return nil, err
			}
			return map[string]string{"value": "record for " + k.Key}, nil
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	failingWeather := ai.NewTool(ai.ToolDef[cityIn, weatherOut]{
		Description: "Get the current weather for a city",
		Execute: func(_ context.Context, in cityIn, _ ai.ToolExecutionOptions) (weatherOut, error) {
			return weatherOut{}, fmt.Errorf("Weather service unavailable for %s", in.City)
		},
	})
	return map[string]*scenario{
		"plain-text": {
			model: scripted(step("resp-1", text("txt-1", "Hello", ", ", "world!"), finish("stop"))),
			opts:  uistream.Options{MessageID: "msg-plain-1"},
		},
		"plain-text-keepalive": {
			model: scripted(step("resp-1", text("txt-1", "Hello", ", ", "world!"), finish("stop"))),
			opts:  uistream.Options{MessageID: "msg-plain-2", KeepAlive: time.Minute},
		},
		"tool-search": {
			model: scripted(
				step("resp-1", text("txt-1", "Let me find a weather tool."), call("call-search-1", "toolSearch", `{"query":"weather"}`, 2), finish("tool-calls")),
				step("resp-2", call("call-weather-1", "getWeather", `{"city":"Berlin"}`, 2), finish("tool-calls")),
				step("resp-3", text("txt-3", "It is sunny ", "and 21°C in Berlin."), finish("stop")),
			),
			tools: toolSearchTools(),
			opts:  uistream.Options{MessageID: "msg-search-1"},
		},
		"tool-error": {
			model: scripted(
				step("resp-1", call("call-weather-1", "getWeather", `{"city":"Atlantis"}`, 1), finish("tool-calls")),
				step("resp-2", text("txt-2", "Sorry, the weather service failed."), finish("stop")),
			),
			tools:      ai.Tools{{Name: "getWeather", Tool: failingWeather}},
			opts:       uistream.Options{MessageID: "msg-toolerr-1"},
			errorTexts: map[string]string{"call-weather-1": "Weather service unavailable for Atlantis"},
		},
		"tool-approval-request": {
			model:    scripted(step("resp-1", call("call-del-a", "deleteFile", `{"path":"a.txt"}`, 1), call("call-del-b", "deleteFile", `{"path":"b.txt"}`, 1), finish("tool-calls"))),
			tools:    deleteTools(&deleted, &mu),
			approval: userApproval,
			genID:    ids("tool-approval-request-id-2", "tool-approval-request-id-3"),
			opts:     uistream.Options{MessageID: "msg-approval-1"},
		},
		"tool-approval-response": {
			model:    scripted(step("resp-2", text("txt-2", "Deleted a.txt; b.txt was kept."), finish("stop"))),
			tools:    deleteTools(&deleted, &mu),
			approval: userApproval,
			opts:     uistream.Options{MessageID: "msg-must-not-be-used"},
			check: func(t *testing.T) {
				mu.Lock()
				defer mu.Unlock()
				if !reflect.DeepEqual(deleted, []string{"a.txt"}) {
					t.Errorf("deleted %q; want only the approved a.txt", deleted)
				}
			},
		},
		"reasoning": {
			model: scripted(step("resp-1",
				[]provider.StreamPart{
					provider.ReasoningStart{ID: "rsn-1"},
					provider.ReasoningDelta{ID: "rsn-1", Delta: "The user greets me. "},
					provider.ReasoningDelta{ID: "rsn-1", Delta: "I should greet back."},
					provider.ReasoningEnd{ID: "rsn-1", ProviderMetadata: provider.ProviderMetadata{"mock": {"signature": "sig-abc"}}},
				},
				text("txt-1", "Hi there!"), finish("stop"))),
			opts: uistream.Options{MessageID: "msg-reasoning-1"},
		},
		"invalid-tool-call": {
			model: invalidModel,
			tools: ai.Tools{{Name: "getWeather", Tool: weatherTool(false)}},
			opts:  uistream.Options{MessageID: "msg-invalid-1"},
			errorTexts: map[string]string{
				"call-bad-input":    "getWeather",
				"call-no-such-tool": "getWether",
			},
		},
		"custom-data-part": {
			handler: func(w http.ResponseWriter, r *http.Request) {
				req, err := uistream.DecodeRequest(r, unsignedRecordings)
				if err != nil {
					uistream.WriteError(w, err)
					return
				}
				msgs, err := uistream.ConvertMessages(r.Context(), req.Messages, nil)
				if err != nil {
					uistream.WriteError(w, err)
					return
				}
				sw := uistream.NewWriter(w, 0)
				defer sw.Close()
				sw.Write(uistream.Start{MessageID: uistream.ResponseMessageID(req.Messages, "msg-data-1")})
				sw.Write(uistream.Data{Name: "weather", ID: "weather-1", Data: map[string]any{"city": "Berlin", "status": "loading"}})
				sw.Write(uistream.Data{Name: "notification", Data: map[string]any{"message": "Fetching weather"}, Transient: true})
				res, err := ai.StreamText(r.Context(), ai.StreamTextOptions{
					Model:    scripted(step("resp-1", text("txt-1", "Here is the weather card."), finish("stop"))),
					Messages: msgs,
				})
				if err != nil {
					sw.Write(uistream.Error{ErrorText: uistream.DefaultErrorText})
					return
				}
				if err := sw.WriteParts(res.Parts(), &uistream.Options{OmitStart: true, OmitFinish: true}); err != nil {
					return
				}
				sw.Write(uistream.Data{Name: "weather", ID: "weather-1", Data: map[string]any{"city": "Berlin", "status": "done", "temperature": 21}})
				sw.Write(uistream.Data{Name: "log", Data: []string{"no id: appended as a new part"}})
				sw.Write(uistream.Finish{FinishReason: ai.FinishStop})
			},
		},
		"stream-error": {
			model: scripted(step("resp-1", text("txt-1", "Partial answer"),
				[]provider.StreamPart{provider.ErrorPart{Err: errors.New("upstream overloaded (secret detail)")}}, finish("error"))),
			opts: uistream.Options{MessageID: "msg-error-1"},
		},
		"dynamic-tool": {
			model: scripted(
				step("resp-1", call("call-mcp-1", "mcp_lookup", `{"key":"k1"}`, 1), finish("tool-calls")),
				step("resp-2", text("txt-2", "Found it."), finish("stop")),
			),
			tools: ai.Tools{{Name: "mcp_lookup", Tool: mcpLookup}},
			opts:  uistream.Options{MessageID: "msg-dynamic-1"},
		},
		// The recordings below are named by the protocol; their scripts are
		// those of the reference recorder.
		"tool-search-followup": {
			model: scripted(
				step("resp-4", call("call-weather-2", "getWeather", `{"city":"Paris"}`, 1), finish("tool-calls")),
				step("resp-5", text("txt-5", "I need to search first."), finish("stop")),
			),
			tools:      toolSearchTools(),
			opts:       uistream.Options{MessageID: "msg-search-2"},
			errorTexts: map[string]string{"call-weather-2": "getWeather"},
		},
		"preliminary-tool-result": {
			model: scripted(
				step("resp-1", call("call-research-1", "research", `{"topic":"Go"}`, 1), finish("tool-calls")),
				step("resp-2", text("txt-2", "Summary: Go is fast."), finish("stop")),
			),
			tools: ai.Tools{{Name: "research", Tool: researchTool()}},
			opts:  uistream.Options{MessageID: "msg-prelim-1"},
		},
		"tool-approval-automatic": {
			model: scripted(
				step("resp-1", []provider.StreamPart{
					provider.ToolCall{ToolCallID: "call-tmp", ToolName: "deleteFile", Input: `{"path":"tmp.log"}`},
					provider.ToolCall{ToolCallID: "call-etc", ToolName: "deleteFile", Input: `{"path":"/etc/passwd"}`},
				}, finish("tool-calls")),
				step("resp-2", text("txt-2", "Removed tmp.log only."), finish("stop")),
			),
			tools:    deleteTools(new([]string), new(sync.Mutex)),
			approval: automaticApproval,
			genID:    ids("tool-approval-automatic-id-2", "tool-approval-automatic-id-3"),
			opts:     uistream.Options{MessageID: "msg-autoapproval-1"},
		},
		"sources-files-metadata": {
			model: scripted(step("resp-1", []provider.StreamPart{
				provider.Source{SourceType: provider.SourceURL, ID: "src-1", URL: "https://example.com/go", Title: "Go"},
				provider.Source{SourceType: provider.SourceDocument, ID: "src-2", MediaType: "application/pdf", Title: "Spec", Filename: "spec.pdf"},
				provider.File{MediaType: "image/png", Data: provider.FileBytes{Data: []byte{137, 80, 78, 71, 13, 10, 26, 10}}},
			}, text("txt-1", "See the sources."), finish("stop"))),
			opts: uistream.Options{MessageID: "msg-sources-1", SendSources: true, MessageMetadata: recordedMetadata},
		},
		"abort": {
			// The reference's model stream is cancelled after its text-start.
			model:      scripted(step("resp-1", []provider.StreamPart{provider.TextStart{ID: "txt-1"}, provider.TextDelta{ID: "txt-1", Delta: "Partial"}})),
			abortAfter: 3,
			opts:       uistream.Options{MessageID: "msg-abort-1"},
		},
	}
}

func TestRecordedStreams(t *testing.T) {
	names, err := filepath.Glob("testdata/oracle/*.sse")
	if err != nil {
		t.Fatal(err)
	}
	if len(names) == 0 {
		t.Fatal("no recordings")
	}
	all := scenarios(t)
	for _, file := range names {
		name := strings.TrimSuffix(filepath.Base(file), ".sse")
		t.Run(name, func(t *testing.T) {
			sc, ok := all[name]
			if !ok {
				t.Fatalf("no Go scenario for the recording %s", name)
			}
			h := sc.handler
			if h == nil {
				h = sc.route(t)
			}
			srv := httptest.NewServer(h)
			defer srv.Close()
			reqBody := readFile(t, name+".request.json")
			resp, err := http.Post(srv.URL+"/api/chat", "application/json", bytes.NewReader(reqBody))
			if err != nil {
				t.Fatal(err)
			}
			body, err := io.ReadAll(resp.Body)
			resp.Body.Close()
			if err != nil {
				t.Fatal(err)
			}
			checkHeaders(t, resp, readFile(t, name+".headers.json"))
			want := string(readFile(t, name+".sse"))
			got := string(body)
			checkFraming(t, got)
			wantChunks, gotChunks := events(t, want), events(t, got)
			// Where the values are equal before any normalization, the
			// bytes must be too (key order, escaping).
			if reflect.DeepEqual(wantChunks, gotChunks) && got != want {
				t.Errorf("the body differs from the recording byte for byte\n got: %q\nwant: %q", got, want)
			}
			normalize(t, sc, wantChunks, gotChunks)
			if !reflect.DeepEqual(wantChunks, gotChunks) {
				t.Errorf("chunks differ\n got: %s\nwant: %s", dump(gotChunks), dump(wantChunks))
			}
			if m, ok := sc.model.(*aitest.Model); ok {
				checkPrompts(t, name, m)
			}
			if sc.check != nil {
				sc.check(t)
			}
		})
	}
}

func readFile(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "oracle", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func checkHeaders(t *testing.T, resp *http.Response, recorded []byte) {
	t.Helper()
	var want struct {
		Status  int               `json:"status"`
		Headers map[string]string `json:"headers"`
	}
	if err := json.Unmarshal(recorded, &want); err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != want.Status {
		t.Errorf("status %d, want %d", resp.StatusCode, want.Status)
	}
	for k, v := range want.Headers {
		if got := resp.Header.Get(k); got != v {
			t.Errorf("header %s = %q, want %q", k, got, v)
		}
	}
}

// checkFraming checks the SSE framing: data events and comments separated
// by blank lines, and [DONE] at the end.
func checkFraming(t *testing.T, body string) {
	t.Helper()
	if !strings.HasSuffix(body, "data: [DONE]\n\n") {
		t.Errorf("the body does not end with [DONE]: %q", body)
	}
	for ev := range strings.SplitSeq(strings.TrimSuffix(body, "\n\n"), "\n\n") {
		if strings.Contains(ev, "\n") || !(strings.HasPrefix(ev, "data: ") || strings.HasPrefix(ev, ": ")) {
			t.Errorf("malformed event %q", ev)
		}
	}
}

// events returns the JSON values of the data events and the comments, in
// order.
func events(t *testing.T, body string) []any {
	t.Helper()
	var out []any
	for ev := range strings.SplitSeq(strings.TrimSuffix(body, "\n\n"), "\n\n") {
		data, ok := strings.CutPrefix(ev, "data: ")
		if !ok {
			out = append(out, ev) // a comment
			continue
		}
		if data == "[DONE]" {
			out = append(out, data)
			continue
		}
		var v map[string]any
		if err := json.Unmarshal([]byte(data), &v); err != nil {
			t.Fatalf("event %q: %v", ev, err)
		}
		out = append(out, v)
	}
	return out
}

// normalize replaces what cannot match (error texts of JavaScript errors,
// the text of an abort reason) after checking the Go side, and renames
// approval ids in the order they appear (ids are arbitrary; what counts is
// which chunks share one).
func normalize(t *testing.T, sc *scenario, want, got []any) {
	t.Helper()
	for i, list := range [][]any{want, got} {
		isGo := i == 1
		approvals := map[string]string{}
		for _, v := range list {
			m, ok := v.(map[string]any)
			if !ok {
				continue
			}
			if id, ok := m["approvalId"].(string); ok {
				if approvals[id] == "" {
					approvals[id] = fmt.Sprintf("approval-%d", len(approvals)+1)
				}
				m["approvalId"] = approvals[id]
			}
			switch m["type"] {
			case "tool-input-error", "tool-output-error":
				id, _ := m["toolCallId"].(string)
				text, _ := m["errorText"].(string)
				sub, ok := sc.errorTexts[id]
				if !ok {
					continue
				}
				if isGo && !strings.Contains(text, sub) {
					t.Errorf("the error text of %s is %q; want it to mention %q", id, text, sub)
				}
				m["errorText"] = "<error text>"
			case "abort":
				if r, ok := m["reason"].(string); ok && r != "" {
					m["reason"] = "<reason>"
				}
			}
		}
	}
}

func dump(v []any) string {
	var b strings.Builder
	for _, x := range v {
		j, _ := json.Marshal(x)
		b.WriteString("\n  ")
		b.Write(j)
	}
	return b.String()
}

// checkPrompts compares what the Go model was sent with what the
// reference model was sent, step by step.
func checkPrompts(t *testing.T, name string, m *aitest.Model) {
	t.Helper()
	file := filepath.Join("testdata", "oracle", name+".model-calls.json")
	if _, err := os.Stat(file); err != nil {
		return
	}
	var want []struct {
		ToolNames []string        `json:"toolNames"`
		Prompt    json.RawMessage `json:"prompt"`
	}
	if err := json.Unmarshal(readFile(t, name+".model-calls.json"), &want); err != nil {
		t.Fatal(err)
	}
	calls := m.Calls()
	if len(calls) != len(want) {
		t.Fatalf("the model was called %d times, want %d", len(calls), len(want))
	}
	for i, c := range calls {
		var names []string
		for _, tool := range c.Tools {
			names = append(names, tool.ToolName())
		}
		if !reflect.DeepEqual(names, want[i].ToolNames) && !(len(names) == 0 && len(want[i].ToolNames) == 0) {
			t.Errorf("step %d: tools %v, want %v", i+1, names, want[i].ToolNames)
		}
		got, err := json.Marshal(c.Prompt)
		if err != nil {
			t.Fatal(err)
		}
		g, w := normalizedPrompt(t, got), normalizedPrompt(t, want[i].Prompt)
		if !reflect.DeepEqual(g, w) {
			gj, _ := json.Marshal(g)
			wj, _ := json.Marshal(w)
			t.Errorf("step %d: prompt\n got: %s\nwant: %s", i+1, gj, wj)
		}
	}
}

// normalizedPrompt decodes a prompt and blanks error texts.
func normalizedPrompt(t *testing.T, raw []byte) any {
	t.Helper()
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		t.Fatal(err)
	}
	var walk func(any)
	walk = func(v any) {
		switch v := v.(type) {
		case map[string]any:
			if v["type"] == "error-text" {
				v["value"] = "<error text>"
			}
			for _, x := range v {
				walk(x)
			}
		case []any:
			for _, x := range v {
				walk(x)
			}
		}
	}
	walk(v)
	return v
}
