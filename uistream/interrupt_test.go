package uistream_test

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/aisdkgo/ai"
	"github.com/aisdkgo/ai/aitest"
	"github.com/aisdkgo/ai/provider"
	_ "github.com/aisdkgo/ai/quickjs"
	"github.com/aisdkgo/ai/uistream"
)

// A code mode program that pauses for approval of a nested call is shown
// to the client as that call, waiting for approval; the client's answer,
// posted back with the conversation, resumes the program: every call runs
// once and the program's result reaches the model.
func TestCodeModeInterruptThroughUIStream(t *testing.T) {
	var a, b atomic.Int32
	type anyIn = map[string]any
	counter := func(n *atomic.Int32, out string, approval bool) ai.Tool {
		def := ai.ToolDef[anyIn, string]{Execute: func(context.Context, anyIn, ai.ToolExecutionOptions) (string, error) {
			n.Add(1)
			return out, nil
		}}
		if approval {
			def.NeedsApproval = func(context.Context, anyIn, ai.ApprovalOptions) (bool, error) { return true, nil }
		}
		return ai.NewTool(def)
	}
	tools := ai.Tools{
		{Name: "code", Tool: ai.CodeMode(&ai.CodeModeOptions{ApprovalMode: ai.CodeModeApprovalInterrupt})},
		{Name: "lookup", Tool: counter(&a, "balance 10", false)},
		{Name: "transfer", Tool: counter(&b, "sent", true)},
	}
	chat := newProgramChat(t, tools, `const x = await tools.lookup({}); const y = await tools.transfer({amount: 5}); return [x, y];`, false)
	post := chat.post
	user := uistream.Message{ID: "u-1", Role: uistream.RoleUser, Parts: []uistream.Part{uistream.TextPart{Text: "pay bob"}}}
	first := post([]uistream.Message{user}, nil)
	var waiting *uistream.ToolPart
	for i, p := range first.Parts {
		if tp, ok := p.(uistream.ToolPart); ok && tp.State == uistream.ApprovalRequested {
			waiting = &tp
			first.Parts[i] = nil
			approved := true
			waiting.Approval.Approved = &approved
			waiting.State = uistream.ApprovalResponded
			first.Parts[i] = *waiting
		}
	}
	require.NotNil(t, waiting, "the page shows the nested call waiting for approval")
	// The code call has an output (the paused program), so that a client
	// that resubmits once every call is settled or answered does so.
	var code *uistream.ToolPart
	for _, p := range first.Parts {
		if tp, ok := p.(uistream.ToolPart); ok && tp.ToolName == "code" {
			code = &tp
		}
	}
	require.NotNil(t, code)
	assert.Equal(t, uistream.OutputAvailable, code.State)
	assert.Contains(t, string(code.Output), `"code-mode-interrupt"`)
	assert.Equal(t, "transfer", waiting.ToolName)
	assert.Equal(t, "c1:tool-2", waiting.ToolCallID)
	assert.JSONEq(t, `{"amount":5}`, string(waiting.Input))
	assert.Equal(t, int32(1), a.Load())
	assert.Equal(t, int32(0), b.Load())

	second := post([]uistream.Message{user, first}, &first)
	assert.Equal(t, int32(1), a.Load(), "lookup did not run again")
	assert.Equal(t, int32(1), b.Load(), "transfer ran once, after approval")
	require.NotNil(t, chat.lastPrompt)
	found := false
	for _, m := range chat.lastPrompt {
		if tm, ok := m.(provider.ToolMessage); ok {
			for _, p := range tm.Content {
				if r, ok := p.(provider.ToolResultPart); ok && r.ToolCallID == "c1" {
					found = true
					raw, _ := json.Marshal(r.Output)
					assert.JSONEq(t, `{"type":"json","value":["balance 10","sent"]}`, string(raw))
				}
			}
		}
	}
	assert.True(t, found, "the program's result reached the model")
	var text string
	for _, p := range second.Parts {
		if tp, ok := p.(uistream.TextPart); ok {
			text += tp.Text
		}
	}
	assert.Equal(t, "done", text)
}

// A program's call that asks the user for input is shown waiting for a
// result; the user's answer, posted as that call's output (what useChat's
// addToolOutput does), resumes the program, also with result signatures
// required for the server's own tools.
func TestCodeModeInputRequestThroughUIStream(t *testing.T) {
	var asked atomic.Int32
	type anyIn = map[string]any
	ask := ai.NewTool(ai.ToolDef[anyIn, string]{Execute: func(ctx context.Context, in anyIn, _ ai.ToolExecutionOptions) (string, error) {
		asked.Add(1)
		answer, err := ai.RequestProgramInput(ctx, "choose-city", nil)
		if err != nil {
			return "", err
		}
		return "chosen: " + string(answer), nil
	}})
	tools := ai.Tools{
		{Name: "code", Tool: ai.CodeMode(&ai.CodeModeOptions{ApprovalMode: ai.CodeModeApprovalInterrupt})},
		{Name: "ask", Tool: ask},
	}
	chat := newProgramChat(t, tools, `return await tools.ask({});`, true)
	post := chat.post
	user := uistream.Message{ID: "u-1", Role: uistream.RoleUser, Parts: []uistream.Part{uistream.TextPart{Text: "pick"}}}
	first := post([]uistream.Message{user}, nil)
	answered := false
	for i, p := range first.Parts {
		if tp, ok := p.(uistream.ToolPart); ok && tp.ToolName == "ask" {
			assert.Equal(t, uistream.InputAvailable, tp.State)
			_, program := ai.ProgramCallOf(tp.CallProviderMetadata)
			assert.True(t, program)
			tp.State, tp.Output = uistream.OutputAvailable, json.RawMessage(`"Oslo"`)
			first.Parts[i] = tp
			answered = true
		}
	}
	require.True(t, answered, "the page shows the program's question")
	assert.Equal(t, int32(1), asked.Load())

	post([]uistream.Message{user, first}, &first)
	assert.Equal(t, int32(2), asked.Load(), "the asking tool runs again with the answer")
	require.NotNil(t, chat.lastPrompt)
	found := false
	for _, m := range chat.lastPrompt {
		if tm, ok := m.(provider.ToolMessage); ok {
			for _, p := range tm.Content {
				if r, ok := p.(provider.ToolResultPart); ok {
					assert.Equal(t, "c1", r.ToolCallID, "only the code call's result reaches the model")
					raw, _ := json.Marshal(r.Output)
					assert.JSONEq(t, `{"type":"json","value":"chosen: \"Oslo\""}`, string(raw))
					found = true
				}
			}
		}
	}
	assert.True(t, found)
}

// programChat is a chat server whose model writes one program (the code
// call "c1") on the first turn and answers "done" once the conversation
// goes on; every tool but "code" is routed to the code tool. Approvals are
// signed, and with results, so are the server's tool results.
type programChat struct {
	t          *testing.T
	srv        *httptest.Server
	lastPrompt []provider.Message // the prompt of the last answer
}

func newProgramChat(t *testing.T, tools ai.Tools, js string, results bool) *programChat {
	c := &programChat{t: t}
	secrets := [][]byte{[]byte("ui secret")}
	var resultSecrets [][]byte
	if results {
		resultSecrets = secrets
	}
	input, _ := json.Marshal(map[string]string{"js": js})
	var routes []ai.CallerRoute
	for _, nt := range tools {
		if nt.Name != "code" {
			routes = append(routes, ai.CallerRoute{Tool: nt.Name, Callers: []string{"code"}})
		}
	}
	c.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		req, err := uistream.DecodeRequest(r, &uistream.DecodeOptions{ToolApprovalSecrets: secrets})
		if err != nil {
			uistream.WriteError(w, err)
			return
		}
		msgs, err := uistream.ConvertMessages(r.Context(), req.Messages, &uistream.ConvertOptions{Tools: tools, ResultSecrets: resultSecrets})
		if err != nil {
			uistream.WriteError(w, &uistream.RequestError{Status: 400, Message: err.Error()})
			return
		}
		model := &aitest.Model{Respond: func(_ context.Context, _ int, o *provider.CallOptions) (aitest.Response, error) {
			if len(msgs) == 1 {
				return aitest.Response{Content: []provider.Content{aitest.ToolCall("c1", "code", string(input))}, FinishReason: aitest.ToolCalls}, nil
			}
			c.lastPrompt = o.Prompt
			return aitest.Response{Content: []provider.Content{aitest.Text("done")}}, nil
		}}
		res, err := ai.StreamText(r.Context(), ai.GenerateTextOptions{
			Model: model, Tools: tools, Messages: msgs, StopWhen: ai.StepCountIs(3),
			ToolCallers: routes, ToolApprovalSecrets: secrets,
		})
		if err != nil {
			uistream.WriteError(w, err)
			return
		}
		uistream.Write(w, res.Parts(), &uistream.Options{MessageID: "m-1", OriginalMessages: req.Messages, Tools: tools, ResultSecrets: resultSecrets})
	}))
	t.Cleanup(c.srv.Close)
	return c
}

// post sends the conversation and folds the answer into the assistant
// message, continuing continued when it is set.
func (c *programChat) post(msgs []uistream.Message, continued *uistream.Message) uistream.Message {
	t := c.t
	body, err := json.Marshal(map[string]any{"id": "chat", "messages": msgs})
	require.NoError(t, err)
	resp, err := http.Post(c.srv.URL, "application/json", bytes.NewReader(body))
	require.NoError(t, err)
	defer resp.Body.Close()
	require.Equal(t, 200, resp.StatusCode)
	var last uistream.Message
	for m, err := range uistream.ReadMessage(uistream.ReadChunks(resp.Body), &uistream.ReadOptions{Message: continued}) {
		require.NoError(t, err)
		last = m
	}
	return last
}
