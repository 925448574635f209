package uistream_test

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"iter"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/aisdkgo/ai"
	"github.com/aisdkgo/ai/aitest"
	"github.com/aisdkgo/ai/provider"
	"github.com/aisdkgo/ai/uistream"
)

// streamChunks runs a generation and returns its chunks as JSON values.
func streamChunks(t *testing.T, gen ai.StreamTextOptions, opts *uistream.Options) []map[string]any {
	t.Helper()
	res, err := ai.StreamText(context.Background(), gen)
	if err != nil {
		t.Fatal(err)
	}
	var out []map[string]any
	for c := range uistream.Chunks(res.Parts(), opts) {
		b, err := uistream.Marshal(c)
		if err != nil {
			t.Fatal(err)
		}
		var m map[string]any
		if err := json.Unmarshal(b, &m); err != nil {
			t.Fatal(err)
		}
		out = append(out, m)
	}
	return out
}

func types(chunks []map[string]any) []string {
	var out []string
	for _, c := range chunks {
		out = append(out, c["type"].(string))
	}
	return out
}

func find(chunks []map[string]any, typ string) []map[string]any {
	var out []map[string]any
	for _, c := range chunks {
		if c["type"] == typ {
			out = append(out, c)
		}
	}
	return out
}

func TestPreliminaryResults(t *testing.T) {
	type topicIn struct {
		Topic string `json:"topic"`
	}
	type progress struct {
		Status   string `json:"status"`
		Progress int    `json:"progress"`
	}
	research := ai.NewTool(ai.ToolDef[topicIn, progress]{
		Description: "Research a topic",
		ExecuteStream: func(context.Context, topicIn, ai.ToolExecutionOptions) iter.Seq2[progress, error] {
			return func(yield func(progress, error) bool) {
				for i, s := range []string{"searching", "reading", "done"} {
					if !yield(progress{s, i * 50}, nil) {
						return
					}
				}
			}
		},
	})
	chunks := streamChunks(t, ai.StreamTextOptions{
		Model: scripted(
			step("resp-1", call("call-research-1", "research", `{"topic":"Go"}`, 1), finish("tool-calls")),
			step("resp-2", text("txt-2", "Summary: Go is fast."), finish("stop")),
		),
		Tools:    ai.Tools{{Name: "research", Tool: research}},
		StopWhen: ai.StepCountIs(5),
		Prompt:   "Research Go.",
	}, nil)
	outputs := find(chunks, "tool-output-available")
	var got []string
	for _, o := range outputs {
		b, _ := json.Marshal(o)
		got = append(got, string(b))
	}
	want := []string{
		`{"output":{"progress":0,"status":"searching"},"preliminary":true,"toolCallId":"call-research-1","type":"tool-output-available"}`,
		`{"output":{"progress":50,"status":"reading"},"preliminary":true,"toolCallId":"call-research-1","type":"tool-output-available"}`,
		`{"output":{"progress":100,"status":"done"},"preliminary":true,"toolCallId":"call-research-1","type":"tool-output-available"}`,
		`{"output":{"progress":100,"status":"done"},"toolCallId":"call-research-1","type":"tool-output-available"}`,
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("outputs\n got %q\nwant %q", got, want)
	}
	// The outputs come before the step ends.
	ts := types(chunks)
	if i, j := strings.Index(strings.Join(ts, ","), "tool-output-available"), strings.Index(strings.Join(ts, ","), "finish-step"); i > j {
		t.Errorf("outputs after finish-step: %v", ts)
	}
}

func TestAutomaticApprovals(t *testing.T) {
	var ran []string
	del := ai.NewTool(ai.ToolDef[pathIn, deletedOut]{
		Description: "Delete a file",
		Execute: func(_ context.Context, in pathIn, _ ai.ToolExecutionOptions) (deletedOut, error) {
			ran = append(ran, in.Path)
			return deletedOut{in.Path}, nil
		},
	})
	policy := &ai.ToolApproval{Tools: map[string]ai.ApprovalRule{"deleteFile": {Func: func(_ context.Context, input json.RawMessage, _ ai.ApprovalRequest) (ai.ApprovalStatus, error) {
		var in pathIn
		json.Unmarshal(input, &in)
		if strings.HasSuffix(in.Path, ".log") {
			return ai.Approved.WithReason("log files are safe"), nil
		}
		return ai.Denied.WithReason("system file"), nil
	}}}}
	chunks := streamChunks(t, ai.StreamTextOptions{
		Model: scripted(
			step("resp-1", []provider.StreamPart{
				provider.ToolCall{ToolCallID: "call-tmp", ToolName: "deleteFile", Input: `{"path":"tmp.log"}`},
				provider.ToolCall{ToolCallID: "call-etc", ToolName: "deleteFile", Input: `{"path":"/etc/passwd"}`},
			}, finish("tool-calls")),
			step("resp-2", text("txt-2", "Removed tmp.log only."), finish("stop")),
		),
		Tools: ai.Tools{{Name: "deleteFile", Tool: del}}, ToolApproval: policy,
		StopWhen: ai.StepCountIs(5), Prompt: "Clean up.", GenerateID: ids("ap-1", "ap-2"),
	}, &uistream.Options{MessageID: "msg-auto-1"})
	want := []string{"start", "start-step",
		"tool-input-available", "tool-approval-request", "tool-approval-response",
		"tool-input-available", "tool-approval-request", "tool-approval-response", "tool-output-denied",
		"tool-output-available", "finish-step",
		"start-step", "text-start", "text-delta", "text-end", "finish-step", "finish"}
	if got := types(chunks); !reflect.DeepEqual(got, want) {
		t.Fatalf("chunks\n got %v\nwant %v", got, want)
	}
	for _, r := range find(chunks, "tool-approval-request") {
		if r["isAutomatic"] != true {
			t.Errorf("request %v is not marked automatic", r)
		}
	}
	resp := find(chunks, "tool-approval-response")
	if resp[0]["approved"] != true || resp[0]["reason"] != "log files are safe" || resp[0]["approvalId"] != "ap-1" ||
		resp[1]["approved"] != false || resp[1]["reason"] != "system file" || resp[1]["approvalId"] != "ap-2" {
		t.Errorf("responses %v", resp)
	}
	if d := find(chunks, "tool-output-denied"); d[0]["toolCallId"] != "call-etc" {
		t.Errorf("denied %v", d)
	}
	if !reflect.DeepEqual(ran, []string{"tmp.log"}) {
		t.Errorf("ran %v", ran)
	}
}

func TestSourcesFilesAndMetadata(t *testing.T) {
	png := []byte{137, 80, 78, 71, 13, 10, 26, 10}
	model := func() *aitest.Model {
		return scripted(step("resp-1", []provider.StreamPart{
			provider.Source{SourceType: provider.SourceURL, ID: "src-1", URL: "https://example.com/go", Title: "Go"},
			provider.Source{SourceType: provider.SourceDocument, ID: "src-2", MediaType: "application/pdf", Title: "Spec", Filename: "spec.pdf"},
			provider.File{MediaType: "image/png", Data: provider.FileBytes{Data: png}},
		}, text("txt-1", "See the sources."), finish("stop")))
	}
	metadata := func(p ai.Part) any {
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
	chunks := streamChunks(t, ai.StreamTextOptions{Model: model(), Prompt: "Sources please."},
		&uistream.Options{MessageID: "msg-sources-1", SendSources: true, MessageMetadata: metadata})
	var got []string
	for _, c := range chunks {
		b, _ := json.Marshal(c)
		got = append(got, string(b))
	}
	want := []string{
		`{"messageId":"msg-sources-1","messageMetadata":{"createdAt":0,"model":"mock-model-id"},"type":"start"}`,
		`{"type":"start-step"}`,
		`{"sourceId":"src-1","title":"Go","type":"source-url","url":"https://example.com/go"}`,
		`{"filename":"spec.pdf","mediaType":"application/pdf","sourceId":"src-2","title":"Spec","type":"source-document"}`,
		`{"mediaType":"image/png","type":"file","url":"data:image/png;base64,iVBORw0KGgo="}`,
		`{"id":"txt-1","type":"text-start"}`,
		`{"delta":"See the sources.","id":"txt-1","type":"text-delta"}`,
		`{"id":"txt-1","type":"text-end"}`,
		`{"messageMetadata":{"steps":1},"type":"message-metadata"}`,
		`{"type":"finish-step"}`,
		`{"finishReason":"stop","messageMetadata":{"totalTokens":30},"type":"finish"}`,
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("chunks\n got %s\nwant %s", strings.Join(got, "\n     "), strings.Join(want, "\n     "))
	}

	// Without SendSources the sources stay on the server.
	chunks = streamChunks(t, ai.StreamTextOptions{Model: model(), Prompt: "Sources please."}, nil)
	if len(find(chunks, "source-url"))+len(find(chunks, "source-document")) != 0 {
		t.Errorf("sources sent: %v", types(chunks))
	}
}

// The next request of a chat that discovered a tool: the history holds the
// deferred tool's call, but discovery starts over, so a direct call is an
// unknown tool.
func TestToolSearchFollowUp(t *testing.T) {
	var client struct {
		Messages json.RawMessage `json:"messages"`
	}
	if err := json.Unmarshal(readFile(t, "tool-search.client.json"), &client); err != nil {
		t.Fatal(err)
	}
	history, err := uistream.UnmarshalMessages(client.Messages)
	if err != nil {
		t.Fatal(err)
	}
	history = append(history, userText("client-3", "And in Paris?"))
	tools := toolSearchTools()
	msgs, err := uistream.ConvertMessages(context.Background(), history, &uistream.ConvertOptions{Tools: tools})
	if err != nil {
		t.Fatal(err)
	}
	model := scripted(
		step("resp-4", call("call-weather-2", "getWeather", `{"city":"Paris"}`, 1), finish("tool-calls")),
		step("resp-5", text("txt-5", "I need to search first."), finish("stop")),
	)
	chunks := streamChunks(t, ai.StreamTextOptions{Model: model, Tools: tools, Messages: msgs, StopWhen: ai.StepCountIs(5)},
		&uistream.Options{MessageID: "msg-search-2", OriginalMessages: history, Tools: tools})
	want := []string{"start", "start-step", "tool-input-start", "tool-input-delta", "tool-input-error", "finish-step",
		"start-step", "text-start", "text-delta", "text-end", "finish-step", "finish"}
	if got := types(chunks); !reflect.DeepEqual(got, want) {
		t.Fatalf("chunks\n got %v\nwant %v", got, want)
	}
	if start := find(chunks, "tool-input-start")[0]; start["dynamic"] != nil {
		t.Errorf("a call of a tool of the tool set carries a dynamic flag: %v", start)
	}
	e := find(chunks, "tool-input-error")[0]
	if !strings.Contains(e["errorText"].(string), "getWeather") || e["dynamic"] != nil {
		t.Errorf("tool-input-error %v", e)
	}
	first := model.Calls()[0]
	var names []string
	for _, tool := range first.Tools {
		names = append(names, tool.ToolName())
	}
	if !reflect.DeepEqual(names, []string{"toolSearch", "getLocalTime"}) {
		t.Errorf("the model was offered %v", names)
	}
}

func TestReasoningAndErrorOptions(t *testing.T) {
	model := func() *aitest.Model {
		return scripted(step("resp-1", []provider.StreamPart{
			provider.ReasoningStart{ID: "r"}, provider.ReasoningDelta{ID: "r", Delta: "hmm"}, provider.ReasoningEnd{ID: "r"},
			provider.ErrorPart{Err: errors.New("upstream secret")},
		}, text("t", "hi"), finish("stop")))
	}
	chunks := streamChunks(t, ai.StreamTextOptions{Model: model(), Prompt: "x"}, &uistream.Options{OmitReasoning: true})
	if n := len(find(chunks, "reasoning-start")) + len(find(chunks, "reasoning-delta")) + len(find(chunks, "reasoning-end")); n != 0 {
		t.Errorf("reasoning sent: %v", types(chunks))
	}
	if e := find(chunks, "error"); len(e) != 1 || e[0]["errorText"] != uistream.DefaultErrorText {
		t.Errorf("the error is not masked: %v", e)
	}
	var logged error
	chunks = streamChunks(t, ai.StreamTextOptions{Model: model(), Prompt: "x"}, &uistream.Options{OnError: func(err error) string {
		logged = err
		return "try again"
	}})
	if e := find(chunks, "error"); len(e) != 1 || e[0]["errorText"] != "try again" || logged == nil || !strings.Contains(logged.Error(), "upstream secret") {
		t.Errorf("OnError: %v, logged %v", e, logged)
	}
	if len(find(chunks, "reasoning-delta")) != 1 {
		t.Errorf("reasoning missing: %v", types(chunks))
	}
}

func TestToolErrorTexts(t *testing.T) {
	failing := ai.NewTool(ai.ToolDef[cityIn, string]{
		Execute: func(context.Context, cityIn, ai.ToolExecutionOptions) (string, error) {
			return "", errors.New("connection refused at 10.0.0.3")
		},
	})
	gen := func() ai.StreamTextOptions {
		return ai.StreamTextOptions{
			Model: scripted(step("r", call("c1", "w", `{"city":"x"}`, 1), call("c2", "nope", `{}`, 1), finish("tool-calls")),
				step("r2", text("t", "ok"), finish("stop"))),
			Tools: ai.Tools{{Name: "w", Tool: failing}}, StopWhen: ai.StepCountIs(3), Prompt: "x",
		}
	}
	// By default a failed call shows what the model is told.
	chunks := streamChunks(t, gen(), nil)
	if e := find(chunks, "tool-output-error"); len(e) != 1 || !strings.Contains(e[0]["errorText"].(string), "connection refused") {
		t.Errorf("tool-output-error %v", e)
	}
	if e := find(chunks, "tool-input-error"); len(e) != 1 || !strings.Contains(e[0]["errorText"].(string), "nope") || e[0]["dynamic"] != true {
		t.Errorf("tool-input-error %v", e)
	}
	// Redacted.
	chunks = streamChunks(t, gen(), &uistream.Options{RedactToolErrors: true})
	for _, e := range append(find(chunks, "tool-output-error"), find(chunks, "tool-input-error")...) {
		if e["errorText"] != uistream.DefaultErrorText {
			t.Errorf("not redacted: %v", e)
		}
	}
}

func TestChunksStopCancelsGeneration(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	ran := false
	tool := ai.NewTool(ai.ToolDef[struct{}, string]{
		Execute: func(context.Context, struct{}, ai.ToolExecutionOptions) (string, error) {
			ran = true
			return "done", nil
		},
	})
	res, err := ai.StreamText(context.Background(), ai.StreamTextOptions{
		Model: scripted(step("r", call("c1", "tool", `{}`, 1), finish("tool-calls")), step("r2", text("t", "ok"), finish("stop"))),
		Tools: ai.Tools{{Name: "tool", Tool: tool}}, Prompt: "x", StopWhen: ai.StepCountIs(3),
	})
	if err != nil {
		t.Fatal(err)
	}
	for c := range uistream.Chunks(res.Parts(), nil) {
		if _, ok := c.(uistream.ToolInputAvailable); ok {
			break
		}
	}
	if _, err := res.Wait(); !errors.Is(err, ai.ErrStreamStopped) {
		t.Errorf("Wait: %v", err)
	}
	if ran {
		t.Error("the tool ran after the reader stopped")
	}
}

// A client that goes away in the middle of a stream cancels the
// generation and its running tools; nothing is left running.
func TestClientDisconnect(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	started := make(chan struct{})
	cancelled := make(chan struct{})
	handlerDone := make(chan error, 1)
	slow := ai.NewTool(ai.ToolDef[struct{}, string]{
		Execute: func(ctx context.Context, _ struct{}, _ ai.ToolExecutionOptions) (string, error) {
			close(started)
			<-ctx.Done()
			close(cancelled)
			return "", ctx.Err()
		},
	})
	tools := ai.Tools{{Name: "slow", Tool: slow}}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		req, err := uistream.DecodeRequest(r, nil)
		if err != nil {
			uistream.WriteError(w, err)
			return
		}
		msgs, _ := uistream.ConvertMessages(r.Context(), req.Messages, nil)
		res, err := ai.StreamText(r.Context(), ai.StreamTextOptions{
			Model: scripted(step("r", text("t", "Working"), call("c1", "slow", `{}`, 1), finish("tool-calls"))),
			Tools: tools, Messages: msgs,
		})
		if err != nil {
			uistream.WriteError(w, err)
			return
		}
		uistream.Write(w, res.Parts(), &uistream.Options{Tools: tools, KeepAlive: 5 * time.Millisecond})
		_, err = res.Wait()
		handlerDone <- err
	}))
	defer srv.Close()

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, srv.URL, strings.NewReader(`{"messages":[{"id":"u","role":"user","parts":[{"type":"text","text":"go"}]}]}`))
	req.Header.Set("Content-Type", "application/json")
	resp, err := srv.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		if strings.Contains(sc.Text(), `"tool-input-available"`) {
			break
		}
	}
	select {
	case <-started:
	case <-time.After(time.Minute):
		t.Fatal("the tool did not start")
	}
	cancel() // the client goes away while the tool runs
	resp.Body.Close()

	select {
	case <-cancelled:
	case <-time.After(time.Minute):
		t.Fatal("the tool was not cancelled")
	}
	select {
	case err := <-handlerDone:
		if err == nil {
			t.Error("the generation reports success after the client went away")
		}
	case <-time.After(time.Minute):
		t.Fatal("the handler did not return")
	}
	srv.Close()
	srv.Client().CloseIdleConnections()
}

func TestKeepAlive(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	seen := make(chan struct{})
	wait := ai.NewTool(ai.ToolDef[struct{}, string]{
		Execute: func(ctx context.Context, _ struct{}, _ ai.ToolExecutionOptions) (string, error) {
			select {
			case <-seen: // the client got a keep-alive comment while the tool ran
				return "done", nil
			case <-ctx.Done():
				return "", ctx.Err()
			}
		},
	})
	tools := ai.Tools{{Name: "wait", Tool: wait}}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		res, err := ai.StreamText(r.Context(), ai.StreamTextOptions{
			Model: scripted(step("r", call("c1", "wait", `{}`, 1), finish("tool-calls")), step("r2", text("t", "ok"), finish("stop"))),
			Tools: tools, Prompt: "x", StopWhen: ai.StepCountIs(3),
		})
		if err != nil {
			t.Error(err)
			return
		}
		uistream.Write(w, res.Parts(), &uistream.Options{KeepAlive: 2 * time.Millisecond})
	}))
	defer srv.Close()
	resp, err := srv.Client().Post(srv.URL, "application/json", strings.NewReader("{}"))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	sc := bufio.NewScanner(resp.Body)
	var lines []string
	closed := false
	for sc.Scan() {
		line := sc.Text()
		lines = append(lines, line)
		if line == ": keep-alive" && !closed {
			close(seen)
			closed = true
		}
	}
	if len(lines) == 0 || lines[0] != ": stream-open" {
		t.Errorf("the stream does not open with a comment: %q", lines)
	}
	if !closed {
		t.Errorf("no keep-alive comment: %q", lines)
	}
	if lines[len(lines)-2] != "data: [DONE]" {
		t.Errorf("the stream does not end with [DONE]: %q", lines)
	}
	srv.Close()
	srv.Client().CloseIdleConnections()
}

func TestWriterFromContext(t *testing.T) {
	progress := ai.NewTool(ai.ToolDef[struct{}, string]{
		Execute: func(ctx context.Context, _ struct{}, _ ai.ToolExecutionOptions) (string, error) {
			w, ok := uistream.FromContext(ctx)
			if !ok {
				return "", errors.New("no writer")
			}
			if err := w.Write(uistream.Data{Name: "progress", ID: "p", Data: 50}); err != nil {
				return "", err
			}
			return "done", nil
		},
	})
	rec := httptest.NewRecorder()
	sw := uistream.NewWriter(rec, 0)
	res, err := ai.StreamText(uistream.NewContext(context.Background(), sw), ai.StreamTextOptions{
		Model: scripted(step("r", call("c1", "progress", `{}`, 1), finish("tool-calls"))),
		Tools: ai.Tools{{Name: "progress", Tool: progress}}, Prompt: "x",
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := sw.WriteParts(res.Parts(), nil); err != nil {
		t.Fatal(err)
	}
	if err := sw.Close(); err != nil {
		t.Fatal(err)
	}
	body := rec.Body.String()
	data := strings.Index(body, `{"type":"data-progress","id":"p","data":50}`)
	avail := strings.Index(body, `"tool-input-available"`)
	out := strings.Index(body, `"tool-output-available"`)
	if data < 0 || !(avail < data && data < out) {
		t.Errorf("the data part is not between the call and its result:\n%s", body)
	}
	if err := sw.Write(uistream.StartStep{}); !errors.Is(err, uistream.ErrClosed) {
		t.Errorf("write after Close: %v", err)
	}
}

func TestHeadersKeepHandlerValues(t *testing.T) {
	rec := httptest.NewRecorder()
	rec.Header().Set("Cache-Control", "no-store")
	sw := uistream.NewWriter(rec, 0)
	sw.Close()
	if got := rec.Header().Get("Cache-Control"); got != "no-store" {
		t.Errorf("Cache-Control = %q", got)
	}
	if got := rec.Header().Get("X-Vercel-Ai-Ui-Message-Stream"); got != "v1" {
		t.Errorf("version header %q", got)
	}
	if rec.Body.String() != "data: [DONE]\n\n" {
		t.Errorf("body %q", rec.Body)
	}
}

func TestMarshalDoesNotEscapeHTML(t *testing.T) {
	b, err := uistream.Marshal(uistream.TextDelta{ID: "t", Delta: "<b>&</b> °"})
	if err != nil {
		t.Fatal(err)
	}
	if string(b) != `{"type":"text-delta","id":"t","delta":"<b>&</b> °"}` {
		t.Errorf("%s", b)
	}
	if b, _ := json.Marshal(uistream.ToolOutputAvailable{ToolCallID: "c"}); !strings.Contains(string(b), `"output":null`) {
		t.Errorf("a nil output is not sent as null: %s", b)
	}
}

func TestUnencodableChunk(t *testing.T) {
	res, err := ai.StreamText(context.Background(), ai.StreamTextOptions{
		Model:  scripted(step("r", text("t", "one"), finish("stop"))),
		Prompt: "x",
	})
	if err != nil {
		t.Fatal(err)
	}
	rec := httptest.NewRecorder()
	var logged error
	err = uistream.Write(rec, res.Parts(), &uistream.Options{
		// Metadata that JSON cannot encode, sent with the end of the step.
		MessageMetadata: func(p ai.Part) any {
			if _, ok := p.(ai.FinishStep); ok {
				return map[string]any{"ch": make(chan int)}
			}
			return nil
		},
		OnError: func(err error) string { logged = err; return "failed" },
	})
	if err == nil || logged == nil {
		t.Errorf("Write = %v, logged %v; want the encoding error", err, logged)
	}
	body := rec.Body.String()
	if !strings.HasSuffix(body, `data: {"type":"text-end","id":"t"}`+"\n\ndata: {\"type\":\"error\",\"errorText\":\"failed\"}\n\ndata: [DONE]\n\n") {
		t.Errorf("body %q", body)
	}
	if _, err := res.Wait(); !errors.Is(err, ai.ErrStreamStopped) {
		t.Errorf("the generation was not stopped: %v", err)
	}
}
