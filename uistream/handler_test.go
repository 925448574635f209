package uistream_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/aisdkgo/ai"
	"github.com/aisdkgo/ai/aitest"
	"github.com/aisdkgo/ai/provider"
	"github.com/aisdkgo/ai/uistream"
)

// memoryChats stores chats in memory.
type memoryChats struct {
	mu    sync.Mutex
	chats map[string][]uistream.Message
	saves int
}

func (s *memoryChats) Load(_ context.Context, id string) (uistream.Chat, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return uistream.Chat{Messages: slices.Clone(s.chats[id])}, nil
}

func (s *memoryChats) Save(_ context.Context, id string, chat uistream.Chat) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.chats == nil {
		s.chats = map[string][]uistream.Message{}
	}
	s.chats[id] = chat.Messages
	s.saves++
	return nil
}

func (s *memoryChats) get(id string) []uistream.Message {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.chats[id])
}

func usageOf(in, out int) provider.Usage {
	return provider.Usage{InputTokens: provider.InputTokens{Total: new(in)}, OutputTokens: provider.OutputTokens{Total: new(out)}}
}

// postChat posts a chat request and returns the status and the body.
func postChat(t *testing.T, url, chatID string, messages ...any) (int, string) {
	t.Helper()
	body, err := json.Marshal(map[string]any{"id": chatID, "messages": messages, "trigger": "submit-message"})
	require.NoError(t, err)
	res, err := http.Post(url, "application/json", bytes.NewReader(body))
	require.NoError(t, err)
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	require.NoError(t, err)
	return res.StatusCode, string(b)
}

// readBody folds a response body into the message the client holds.
func readBody(t *testing.T, body string, continued *uistream.Message) uistream.Message {
	t.Helper()
	var out uistream.Message
	for m, err := range uistream.ReadMessage(uistream.ReadChunks(strings.NewReader(body)), &uistream.ReadOptions{Message: continued}) {
		require.NoError(t, err, body)
		out = m
	}
	return out
}

// TestChatHandlerApprovals runs a chat whose history the server stores:
// an approval is requested, a forged answer is refused, the genuine one
// runs the tool once (and again, posted twice, runs nothing), the resumed
// message is stored merged and its usage is the sum of both requests.
func TestChatHandlerApprovals(t *testing.T) {
	secret := [][]byte{[]byte("chat secret")}
	var transfers atomic.Int32
	tools := ai.Tools{{Name: "transfer", Tool: ai.NewTool(ai.ToolDef[transferIn, string]{
		Execute: func(context.Context, transferIn, ai.ToolExecutionOptions) (string, error) {
			transfers.Add(1)
			return "done", nil
		}})}}
	model := &aitest.Model{Respond: func(_ context.Context, call int, _ *provider.CallOptions) (aitest.Response, error) {
		if call == 0 {
			return aitest.Response{Content: []provider.Content{aitest.ToolCall("call-1", "transfer", `{"to":"bob","amount":5}`)},
				FinishReason: aitest.ToolCalls, Usage: usageOf(10, 5)}, nil
		}
		return aitest.Response{Content: []provider.Content{aitest.Text("sent")}, Usage: usageOf(7, 3)}, nil
	}}
	agent := ai.NewAgent(ai.AgentOptions{Settings: ai.GenerateTextOptions{
		Model: model, Tools: tools, ToolApprovalSecrets: secret,
		ToolApproval: &ai.ToolApproval{Tools: map[string]ai.ApprovalRule{"transfer": ai.Rule(ai.RequiresApproval)}},
	}})
	store := &memoryChats{}
	var finishUsage []int
	ids := 0
	srv := httptest.NewServer(uistream.NewChatHandler(uistream.ChatOptions{
		Agent: agent, Store: store, RecordUsage: true,
		NewID: func() string { ids++; return "msg-" + string(rune('0'+ids)) },
		Stream: uistream.Options{MessageMetadata: func(p ai.Part) any {
			if f, ok := p.(ai.Finish); ok {
				finishUsage = append(finishUsage, *f.TotalUsage.TotalTokens)
				return map[string]any{"model": "scripted"}
			}
			return nil
		}},
	}))
	defer srv.Close()

	user := uistream.Message{ID: "u1", Role: uistream.RoleUser, Parts: []uistream.Part{uistream.TextPart{Text: "pay bob"}}}
	status, body := postChat(t, srv.URL, "chat-1", user)
	require.Equal(t, 200, status, body)
	stored := store.get("chat-1")
	require.Len(t, stored, 2)
	asked := stored[1]
	require.Equal(t, "msg-1", asked.ID)
	assert.Equal(t, readBody(t, body, nil), asked, "the stored message is the one the client holds")
	var request uistream.ToolPart
	for _, p := range asked.Parts {
		if tp, ok := p.(uistream.ToolPart); ok {
			request = tp
		}
	}
	require.Equal(t, uistream.ApprovalRequested, request.State)
	require.NotEmpty(t, request.Approval.Signature)
	assert.JSONEq(t, `{"model":"scripted","totalUsage":{"inputTokens":10,"inputTokenDetails":{},"outputTokens":5,"outputTokenDetails":{},"totalTokens":15}}`, string(asked.Metadata))

	answer := func(input string, signature string) uistream.Message {
		m := asked
		m.Parts = slices.Clone(asked.Parts)
		for i, p := range m.Parts {
			if tp, ok := p.(uistream.ToolPart); ok {
				ap := *tp.Approval
				ap.Approved, ap.Signature = new(true), signature
				tp.State, tp.Approval, tp.Input = uistream.ApprovalResponded, &ap, json.RawMessage(input)
				m.Parts[i] = tp
			}
		}
		return m
	}

	// A forged answer: another input under the genuine signature.
	status, body = postChat(t, srv.URL, "chat-1", user, answer(`{"to":"mallory","amount":1000}`, request.Approval.Signature))
	assert.Equal(t, 400, status, body)
	assert.Zero(t, transfers.Load())
	assert.Equal(t, 1, store.saves, "a refused request stores nothing")

	status, body = postChat(t, srv.URL, "chat-1", user, answer(`{"to":"bob","amount":5}`, request.Approval.Signature))
	require.Equal(t, 200, status, body)
	assert.EqualValues(t, 1, transfers.Load())
	assert.Contains(t, body, `"messageId":"msg-1"`, "the stream continues the message")
	assert.Contains(t, body, `"totalTokens":25`, "the finish chunk carries the usage of both requests")

	stored = store.get("chat-1")
	require.Len(t, stored, 2, "the resumed message is merged, not added")
	resumed := stored[1]
	assert.Equal(t, "msg-1", resumed.ID)
	var states []string
	for _, p := range resumed.Parts {
		states = append(states, p.PartType())
		if tp, ok := p.(uistream.ToolPart); ok {
			assert.Equal(t, uistream.OutputAvailable, tp.State)
			assert.Equal(t, request.Approval.Signature, tp.Approval.Signature)
		}
	}
	assert.Equal(t, []string{"step-start", "tool-transfer", "step-start", "text"}, states)
	var meta struct {
		Model string   `json:"model"`
		Usage ai.Usage `json:"totalUsage"`
	}
	require.NoError(t, json.Unmarshal(resumed.Metadata, &meta))
	assert.Equal(t, "scripted", meta.Model)
	assert.Equal(t, 17, *meta.Usage.InputTokens)
	assert.Equal(t, 8, *meta.Usage.OutputTokens)
	assert.Equal(t, 25, *meta.Usage.TotalTokens)
	assert.Equal(t, []int{15, 25}, finishUsage, "the application's metadata sees the sum too")

	// The same answer again: the stored call has its result, nothing runs.
	status, body = postChat(t, srv.URL, "chat-1", user, answer(`{"to":"bob","amount":5}`, request.Approval.Signature))
	require.Equal(t, 200, status, body)
	assert.EqualValues(t, 1, transfers.Load(), "a replayed approval runs nothing")
}

// TestChatHandlerUnstored: a Stateless handler leaves the chat to the
// client; the handler checks the posted approvals with the agent's secrets.
func TestChatHandlerUnstored(t *testing.T) {
	secret := [][]byte{[]byte("s")}
	var transfers atomic.Int32
	tools := ai.Tools{{Name: "transfer", Tool: ai.NewTool(ai.ToolDef[transferIn, string]{
		Execute: func(context.Context, transferIn, ai.ToolExecutionOptions) (string, error) {
			transfers.Add(1)
			return "done", nil
		}})}}
	model := &aitest.Model{Respond: func(_ context.Context, call int, _ *provider.CallOptions) (aitest.Response, error) {
		if call == 0 {
			return aitest.Response{Content: []provider.Content{aitest.ToolCall("call-1", "transfer", `{"to":"bob","amount":5}`)},
				FinishReason: aitest.ToolCalls}, nil
		}
		return aitest.Response{Content: []provider.Content{aitest.Text("sent")}}, nil
	}}
	var finished []uistream.FinishEvent
	srv := httptest.NewServer(uistream.NewChatHandler(uistream.ChatOptions{
		Agent: ai.NewAgent(ai.AgentOptions{Settings: ai.GenerateTextOptions{
			Model: model, Tools: tools, ToolApprovalSecrets: secret,
			ToolApproval: &ai.ToolApproval{Tools: map[string]ai.ApprovalRule{"transfer": ai.Rule(ai.RequiresApproval)}},
		}}),
		Stateless: true,
		Stream:    uistream.Options{OnFinish: func(ev uistream.FinishEvent) { finished = append(finished, ev) }},
	}))
	defer srv.Close()

	user := uistream.Message{ID: "u1", Role: uistream.RoleUser, Parts: []uistream.Part{uistream.TextPart{Text: "pay bob"}}}
	status, body := postChat(t, srv.URL, "c", user)
	require.Equal(t, 200, status, body)
	asked := readBody(t, body, nil)
	require.Len(t, finished, 1)
	assert.Equal(t, asked, finished[0].ResponseMessage)

	var sig, approvalID string
	for _, c := range chunks(t, body) {
		if c["type"] == "tool-approval-request" {
			sig, approvalID = c["signature"].(string), c["approvalId"].(string)
		}
	}
	require.NotEmpty(t, sig)
	forged := toolPart("transfer", "call-1", `{"to":"mallory","amount":9}`, approvalID, sig)
	status, body = postChat(t, srv.URL, "c", user, json.RawMessage(`{"id":"`+asked.ID+`","role":"assistant","parts":[{"type":"step-start"},`+forged+`]}`))
	assert.Equal(t, 400, status, body)
	assert.Contains(t, body, "does not match the call")
	assert.Zero(t, transfers.Load())

	genuine := toolPart("transfer", "call-1", `{"to":"bob","amount":5}`, approvalID, sig)
	status, body = postChat(t, srv.URL, "c", user, json.RawMessage(`{"id":"`+asked.ID+`","role":"assistant","parts":[{"type":"step-start"},`+genuine+`]}`))
	require.Equal(t, 200, status, body)
	assert.EqualValues(t, 1, transfers.Load())
	require.Len(t, finished, 2)
	assert.True(t, finished[1].IsContinuation)
	assert.Len(t, finished[1].Messages, 2)
}

// TestChatHandlerPersistFailure: a chat that cannot be stored ends its
// stream with an error chunk.
func TestChatHandlerPersistFailure(t *testing.T) {
	srv := httptest.NewServer(uistream.NewChatHandler(uistream.ChatOptions{
		Agent: ai.NewAgent(ai.AgentOptions{Settings: ai.GenerateTextOptions{
			Model: aitest.NewModel(aitest.Response{Content: []provider.Content{aitest.Text("hi")}})}}),
		Store: failingSaves{},
	}))
	defer srv.Close()
	status, body := postChat(t, srv.URL, "c", uistream.Message{ID: "u1", Role: uistream.RoleUser, Parts: []uistream.Part{uistream.TextPart{Text: "hi"}}})
	require.Equal(t, 200, status)
	cs := chunks(t, body)
	require.NotEmpty(t, cs)
	assert.Equal(t, "error", cs[len(cs)-1]["type"], body)
	assert.NotContains(t, body, "disk full", "the error is masked")
}

// TestChatHandlerDiscovery: with KeepDiscoveredTools, a tool found by tool
// search in one turn is loaded in the next; the model calls it without
// searching again. Without it (the default), the next turn starts hidden.
func TestChatHandlerDiscovery(t *testing.T) {
	for _, keep := range []bool{true, false} {
		t.Run(map[bool]string{true: "kept", false: "default"}[keep], func(t *testing.T) {
			var mu sync.Mutex
			var turnTwoTools [][]string
			turn := 1
			model := &aitest.Model{Respond: func(_ context.Context, call int, opts *provider.CallOptions) (aitest.Response, error) {
				mu.Lock()
				defer mu.Unlock()
				var names []string
				for _, d := range opts.Tools {
					names = append(names, d.ToolName())
				}
				if turn == 2 {
					turnTwoTools = append(turnTwoTools, names)
					if len(turnTwoTools) == 1 {
						return aitest.Response{Content: []provider.Content{aitest.ToolCall("call-w2", "getWeather", `{"city":"Paris"}`)}, FinishReason: aitest.ToolCalls}, nil
					}
					return aitest.Response{Content: []provider.Content{aitest.Text("Paris is sunny.")}}, nil
				}
				switch call {
				case 0:
					return aitest.Response{Content: []provider.Content{aitest.ToolCall("call-s1", "toolSearch", `{"query":"weather"}`)}, FinishReason: aitest.ToolCalls}, nil
				case 1:
					return aitest.Response{Content: []provider.Content{aitest.ToolCall("call-w1", "getWeather", `{"city":"Berlin"}`)}, FinishReason: aitest.ToolCalls}, nil
				}
				return aitest.Response{Content: []provider.Content{aitest.Text("Berlin is sunny.")}}, nil
			}}
			srv := httptest.NewServer(uistream.NewChatHandler(uistream.ChatOptions{
				Agent:               ai.NewAgent(ai.AgentOptions{Settings: ai.GenerateTextOptions{Model: model, Tools: toolSearchTools()}}),
				KeepDiscoveredTools: keep,
			}))
			defer srv.Close()

			u1 := uistream.Message{ID: "u1", Role: uistream.RoleUser, Parts: []uistream.Part{uistream.TextPart{Text: "Weather in Berlin?"}}}
			status, body := postChat(t, srv.URL, "c", u1)
			require.Equal(t, 200, status, body)
			a1 := readBody(t, body, nil)
			assert.Contains(t, body, `"type":"tool-output-available","toolCallId":"call-w1"`)
			if keep {
				assert.JSONEq(t, `{"discoveredTools":["getWeather"]}`, string(a1.Metadata))
			} else {
				assert.Empty(t, a1.Metadata, "no metadata by default")
			}

			mu.Lock()
			turn = 2
			mu.Unlock()
			u2 := uistream.Message{ID: "u2", Role: uistream.RoleUser, Parts: []uistream.Part{uistream.TextPart{Text: "And Paris?"}}}
			status, body = postChat(t, srv.URL, "c", u1, a1, u2)
			require.Equal(t, 200, status, body)
			require.NotEmpty(t, turnTwoTools)
			if !keep {
				assert.NotContains(t, turnTwoTools[0], "getWeather", "the default searches anew")
				assert.Contains(t, body, `"type":"tool-input-error"`)
				return
			}
			assert.Contains(t, turnTwoTools[0], "getWeather", "the first call of the next turn has the tool")
			assert.Contains(t, body, `"type":"tool-output-available","toolCallId":"call-w2"`)
			assert.NotContains(t, body, `"toolName":"toolSearch"`, "no second search")
			a2 := readBody(t, body, nil)
			assert.JSONEq(t, `{"discoveredTools":["getWeather"]}`, string(a2.Metadata))
		})
	}
}

// TestChatHandlerDiscoveryIgnoresOtherNames: names a client adds to the
// metadata load only deferred tools of the agent.
func TestChatHandlerDiscoveryIgnoresOtherNames(t *testing.T) {
	var first []string
	model := &aitest.Model{Respond: func(_ context.Context, call int, opts *provider.CallOptions) (aitest.Response, error) {
		if call == 0 {
			for _, d := range opts.Tools {
				first = append(first, d.ToolName())
			}
		}
		return aitest.Response{Content: []provider.Content{aitest.Text("ok")}}, nil
	}}
	srv := httptest.NewServer(uistream.NewChatHandler(uistream.ChatOptions{
		Agent:               ai.NewAgent(ai.AgentOptions{Settings: ai.GenerateTextOptions{Model: model, Tools: toolSearchTools()}}),
		KeepDiscoveredTools: true,
		Stateless:           true, // the client holds the history, metadata included
	}))
	defer srv.Close()
	prior := json.RawMessage(`{"id":"a1","role":"assistant","metadata":{"discoveredTools":["getStockPrice","rm-rf","getLocalTime"]},"parts":[{"type":"text","text":"hi"}]}`)
	u := json.RawMessage(`{"id":"u2","role":"user","parts":[{"type":"text","text":"more"}]}`)
	status, body := postChat(t, srv.URL, "c", json.RawMessage(`{"id":"u1","role":"user","parts":[{"type":"text","text":"hi"}]}`), prior, u)
	require.Equal(t, 200, status, body)
	assert.Equal(t, []string{"toolSearch", "getStockPrice", "getLocalTime"}, first)
	assert.Contains(t, body, `"messageMetadata":{"discoveredTools":["getStockPrice"]}`)
}

// TestChatHandlerToolData: a tool writes a data part to the stream; the
// client gets it and the stored message holds it.
func TestChatHandlerToolData(t *testing.T) {
	progress := ai.NewTool(ai.ToolDef[cityIn, string]{Execute: func(ctx context.Context, in cityIn, _ ai.ToolExecutionOptions) (string, error) {
		sw, ok := uistream.FromContext(ctx)
		if !ok {
			return "", errors.New("no stream in the context")
		}
		return "ok", sw.Write(uistream.Data{Name: "progress", ID: "p1", Data: map[string]string{"city": in.City}})
	}})
	model := aitest.NewModel(
		aitest.Response{Content: []provider.Content{aitest.ToolCall("c1", "progress", `{"city":"Oslo"}`)}, FinishReason: aitest.ToolCalls},
		aitest.Response{Content: []provider.Content{aitest.Text("done")}},
	)
	store := &memoryChats{}
	srv := httptest.NewServer(uistream.NewChatHandler(uistream.ChatOptions{
		Agent: ai.NewAgent(ai.AgentOptions{Settings: ai.GenerateTextOptions{Model: model, Tools: ai.Tools{{Name: "progress", Tool: progress}}}}),
		Store: store,
	}))
	defer srv.Close()
	status, body := postChat(t, srv.URL, "c", uistream.Message{ID: "u1", Role: uistream.RoleUser, Parts: []uistream.Part{uistream.TextPart{Text: "go"}}})
	require.Equal(t, 200, status, body)
	assert.Contains(t, body, `{"type":"data-progress","id":"p1","data":{"city":"Oslo"}}`)
	stored := store.get("c")
	require.Len(t, stored, 2)
	assert.Equal(t, readBody(t, body, nil), stored[1])
	assert.Contains(t, stored[1].Parts, uistream.DataPart{Name: "progress", ID: "p1", Data: json.RawMessage(`{"city":"Oslo"}`)})
}

// TestChatHandlerRegenerate: with stored chats, posting a stored user
// message again drops the answers after it and stores the new one.
func TestChatHandlerRegenerate(t *testing.T) {
	model := aitest.NewModel(
		aitest.Response{Content: []provider.Content{aitest.Text("first")}},
		aitest.Response{Content: []provider.Content{aitest.Text("second")}},
	)
	store := &memoryChats{}
	n := 0
	srv := httptest.NewServer(uistream.NewChatHandler(uistream.ChatOptions{
		Agent: ai.NewAgent(ai.AgentOptions{Settings: ai.GenerateTextOptions{Model: model}}),
		Store: store,
		NewID: func() string { n++; return "a" + string(rune('0'+n)) },
	}))
	defer srv.Close()
	user := uistream.Message{ID: "u1", Role: uistream.RoleUser, Parts: []uistream.Part{uistream.TextPart{Text: "hi"}}}
	status, body := postChat(t, srv.URL, "c", user)
	require.Equal(t, 200, status, body)
	// The posted copy of a stored message does not change what was stored.
	edited := user
	edited.Parts = []uistream.Part{uistream.TextPart{Text: "something else"}}
	status, body = postChat(t, srv.URL, "c", edited)
	require.Equal(t, 200, status, body)
	stored := store.get("c")
	require.Len(t, stored, 2)
	assert.Equal(t, user, stored[0])
	assert.Equal(t, "a2", stored[1].ID)
	assert.Equal(t, []uistream.Part{uistream.StepStartPart{}, uistream.TextPart{Text: "second", State: "done"}}, stored[1].Parts)
	assert.Equal(t, "hi", model.Calls()[1].Prompt[0].(provider.UserMessage).Content[0].(provider.TextPart).Text)
}

// failingSaves is a chat store that cannot save.
type failingSaves struct{}

func (failingSaves) Load(context.Context, string) (uistream.Chat, error) { return uistream.Chat{}, nil }
func (failingSaves) Save(context.Context, string, uistream.Chat) error {
	return errors.New("disk full")
}

// saveFunc is a chat store of empty chats whose saves go to a function.
type saveFunc func(ctx context.Context, chatID string, chat uistream.Chat) error

func (saveFunc) Load(context.Context, string) (uistream.Chat, error) { return uistream.Chat{}, nil }
func (f saveFunc) Save(ctx context.Context, chatID string, chat uistream.Chat) error {
	return f(ctx, chatID, chat)
}

// hangingModel streams some text, then waits for the cancellation.
type hangingModel struct{ *aitest.Model }

func (m hangingModel) Stream(ctx context.Context, _ *provider.CallOptions) (*provider.StreamResult, error) {
	return &provider.StreamResult{Stream: func(yield func(provider.StreamPart, error) bool) {
		for _, p := range []provider.StreamPart{provider.StreamStart{}, provider.TextStart{ID: "t"}, provider.TextDelta{ID: "t", Delta: "partial"}} {
			if !yield(p, nil) {
				return
			}
		}
		<-ctx.Done()
		yield(nil, ctx.Err())
	}}, nil
}

// TestChatHandlerClientGone: a client that goes away in the middle of an
// answer stops the generation; the chat is stored with what was streamed.
func TestChatHandlerClientGone(t *testing.T) {
	type saved struct {
		msgs []uistream.Message
		ev   uistream.FinishEvent
	}
	done := make(chan saved, 1)
	var msgs []uistream.Message
	srv := httptest.NewServer(uistream.NewChatHandler(uistream.ChatOptions{
		Agent: ai.NewAgent(ai.AgentOptions{Settings: ai.GenerateTextOptions{Model: hangingModel{aitest.NewModel()}}}),
		NewID: func() string { return "a1" },
		Store: saveFunc(func(ctx context.Context, _ string, c uistream.Chat) error {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			msgs = c.Messages
			return nil
		}),
		Stream: uistream.Options{OnFinish: func(ev uistream.FinishEvent) { done <- saved{msgs, ev} }},
	}))
	defer srv.Close()

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	body, err := json.Marshal(map[string]any{"id": "c", "messages": []uistream.Message{{ID: "u1", Role: uistream.RoleUser, Parts: []uistream.Part{uistream.TextPart{Text: "hi"}}}}})
	require.NoError(t, err)
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, srv.URL, bytes.NewReader(body))
	require.NoError(t, err)
	req.Header.Set("Content-Type", "application/json")
	res, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	for c, err := range uistream.ReadChunks(res.Body) {
		require.NoError(t, err)
		if _, ok := c.(uistream.TextDelta); ok {
			break
		}
	}
	cancel()
	res.Body.Close()

	s := <-done
	require.Len(t, s.msgs, 2, "the chat is stored")
	assert.Equal(t, []uistream.Part{uistream.StepStartPart{}, uistream.TextPart{Text: "partial", State: "streaming"}}, s.msgs[1].Parts)
	assert.Equal(t, s.msgs[1], s.ev.ResponseMessage)
	assert.True(t, s.ev.IsAborted || s.ev.Err != nil, "the event says the turn did not finish: %+v", s.ev)
	assert.Empty(t, s.ev.FinishReason)
}
