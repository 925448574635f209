package uistream_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"iter"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/aisdkgo/ai"
	"github.com/aisdkgo/ai/aitest"
	"github.com/aisdkgo/ai/provider"
	"github.com/aisdkgo/ai/uistream"
)

// chatServer serves a chat handler at /api/chat, as an application mounts
// it.
func chatServer(t *testing.T, opts uistream.ChatOptions) *httptest.Server {
	t.Helper()
	h := uistream.NewChatHandler(opts)
	mux := http.NewServeMux()
	mux.Handle("/api/chat", h)
	mux.Handle("/api/chat/", h)
	srv := httptest.NewServer(mux)
	t.Cleanup(func() {
		srv.Close()
		if opts.Resumer != nil {
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			if err := opts.Resumer.Shutdown(ctx); err != nil {
				t.Errorf("the answers did not stop: %v", err)
			}
		}
	})
	return srv
}

func getBody(t *testing.T, url string) (int, string) {
	t.Helper()
	res, err := http.Get(url)
	require.NoError(t, err)
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	require.NoError(t, err)
	return res.StatusCode, string(b)
}

func storedMessages(t *testing.T, base, chatID string) []uistream.Message {
	t.Helper()
	status, body := getBody(t, base+"/api/chat/"+chatID+"/messages")
	require.Equal(t, http.StatusOK, status, body)
	var msgs []uistream.Message
	require.NoError(t, json.Unmarshal([]byte(body), &msgs), body)
	return msgs
}

func partTypes(m uistream.Message) []string {
	var out []string
	for _, p := range m.Parts {
		s := p.PartType()
		if tp, ok := p.(uistream.ToolPart); ok {
			s += ":" + string(tp.State)
		}
		out = append(out, s)
	}
	return out
}

// approve answers every open approval request of an assistant message.
func approve(m uistream.Message) uistream.Message {
	m.Parts = append([]uistream.Part(nil), m.Parts...)
	for i, p := range m.Parts {
		if tp, ok := p.(uistream.ToolPart); ok && tp.State == uistream.ApprovalRequested {
			ap := *tp.Approval
			ap.Approved = new(true)
			tp.State, tp.Approval = uistream.ApprovalResponded, &ap
			m.Parts[i] = tp
		}
	}
	return m
}

func totalTokens(t *testing.T, m uistream.Message) int {
	t.Helper()
	var meta struct {
		Usage ai.Usage `json:"totalUsage"`
	}
	require.NoError(t, json.Unmarshal(m.Metadata, &meta), string(m.Metadata))
	require.NotNil(t, meta.Usage.TotalTokens, string(m.Metadata))
	return *meta.Usage.TotalTokens
}

// TestChatHandlerResumedApprovals runs a message over three requests (two
// approvals) with resumable streams: the stored message after each
// approval is the whole merged message, its usage is the sum of every
// request, a page that reloads during the last request gets the stored
// message and the stream that continues it, and folding that stream into
// that message gives what is stored at the end.
func TestChatHandlerResumedApprovals(t *testing.T) {
	secret := [][]byte{[]byte("resume secret")}
	var transfers atomic.Int32
	tools := ai.Tools{{Name: "transfer", Tool: ai.NewTool(ai.ToolDef[transferIn, string]{
		Execute: func(context.Context, transferIn, ai.ToolExecutionOptions) (string, error) {
			transfers.Add(1)
			return "done", nil
		}})}}
	held := make(chan struct{})
	release := make(chan struct{})
	model := &aitest.Model{Respond: func(ctx context.Context, call int, _ *provider.CallOptions) (aitest.Response, error) {
		switch call {
		case 0:
			return aitest.Response{Content: []provider.Content{aitest.ToolCall("call-1", "transfer", `{"to":"bob","amount":5}`)},
				FinishReason: aitest.ToolCalls, Usage: usageOf(10, 5)}, nil
		case 1:
			return aitest.Response{Content: []provider.Content{aitest.Text("half way"), aitest.ToolCall("call-2", "transfer", `{"to":"ann","amount":3}`)},
				FinishReason: aitest.ToolCalls, Usage: usageOf(7, 3)}, nil
		}
		close(held)
		select {
		case <-release:
		case <-ctx.Done():
			return aitest.Response{}, ctx.Err()
		}
		return aitest.Response{Content: []provider.Content{aitest.Text("all sent")}, Usage: usageOf(2, 1)}, nil
	}}
	agent := ai.NewAgent(ai.AgentOptions{Settings: ai.GenerateTextOptions{
		Model: model, Tools: tools, ToolApprovalSecrets: secret,
		ToolApproval: &ai.ToolApproval{Tools: map[string]ai.ApprovalRule{"transfer": ai.Rule(ai.RequiresApproval)}},
	}})
	srv := chatServer(t, uistream.ChatOptions{
		Agent: agent, RecordUsage: true, Resumer: &uistream.Resumer{Store: uistream.NewMemoryStore()},
	})
	api := srv.URL + "/api/chat"

	user := uistream.Message{ID: "u1", Role: uistream.RoleUser, Parts: []uistream.Part{uistream.TextPart{Text: "pay bob and ann"}}}
	status, body := postChat(t, api, "chat-1", user)
	require.Equal(t, 200, status, body)
	first := readBody(t, body, nil)
	assert.Equal(t, []uistream.Message{user, first}, storedMessages(t, srv.URL, "chat-1"))
	assert.Equal(t, 15, totalTokens(t, first))
	status, _ = getBody(t, api+"/chat-1/stream")
	assert.Equal(t, http.StatusNoContent, status, "a finished turn has nothing to resume")

	status, body = postChat(t, api, "chat-1", user, approve(first))
	require.Equal(t, 200, status, body)
	assert.EqualValues(t, 1, transfers.Load())
	stored := storedMessages(t, srv.URL, "chat-1")
	require.Len(t, stored, 2, "the continued message is merged, not added")
	second := stored[1]
	assert.Equal(t, first.ID, second.ID)
	assert.Equal(t, []string{"step-start", "tool-transfer:output-available", "step-start", "text", "tool-transfer:approval-requested"}, partTypes(second),
		"the stored message keeps the parts from before the approval")
	answered := approve(first)
	assert.Equal(t, readBody(t, body, &answered), second, "the stored message is the one the client holds")
	assert.Equal(t, 25, totalTokens(t, second), "the usage of both requests")

	// The second approval: the answer holds in its model call while a
	// reloaded page asks for the chat and resumes its answer.
	posted := make(chan string, 1)
	go func() {
		_, body := postChat(t, api, "chat-1", user, approve(second))
		posted <- body
	}()
	<-held
	assert.EqualValues(t, 2, transfers.Load())
	reloaded := storedMessages(t, srv.URL, "chat-1")
	require.Len(t, reloaded, 2)
	assert.Equal(t, []string{"step-start", "tool-transfer:output-available", "step-start", "text", "tool-transfer:approval-responded"}, partTypes(reloaded[1]),
		"during the turn the chat holds the answered message")
	resumed, err := http.Get(api + "/chat-1/stream")
	require.NoError(t, err)
	defer resumed.Body.Close()
	require.Equal(t, http.StatusOK, resumed.StatusCode)
	close(release)
	replay, err := io.ReadAll(resumed.Body)
	require.NoError(t, err)
	body = <-posted
	assert.Equal(t, body, string(replay), "the resumed stream is the answer from its start")

	final := storedMessages(t, srv.URL, "chat-1")
	require.Len(t, final, 2)
	assert.Equal(t, []string{"step-start", "tool-transfer:output-available", "step-start", "text", "tool-transfer:output-available", "step-start", "text"}, partTypes(final[1]))
	assert.Equal(t, readBody(t, string(replay), &reloaded[1]), final[1], "the reloaded page ends with the stored message")
	assert.Equal(t, 28, totalTokens(t, final[1]), "the usage of all three requests")
	status, _ = getBody(t, api+"/chat-1/stream")
	assert.Equal(t, http.StatusNoContent, status)
}

// TestChatHandlerResumableOutlivesClient: with a Resumer, a client that
// goes away does not stop the answer; the chat is stored complete.
func TestChatHandlerResumableOutlivesClient(t *testing.T) {
	release := make(chan struct{})
	model := &aitest.Model{Respond: func(ctx context.Context, call int, _ *provider.CallOptions) (aitest.Response, error) {
		if call == 1 {
			select {
			case <-release:
			case <-ctx.Done():
				return aitest.Response{}, ctx.Err()
			}
			return aitest.Response{Content: []provider.Content{aitest.Text("it is sunny")}}, nil
		}
		return aitest.Response{Content: []provider.Content{aitest.ToolCall("c1", "weather", `{"city":"Oslo"}`)}, FinishReason: aitest.ToolCalls}, nil
	}}
	weather := ai.NewTool(ai.ToolDef[cityIn, string]{Execute: func(ctx context.Context, in cityIn, _ ai.ToolExecutionOptions) (string, error) {
		sw, ok := uistream.FromContext(ctx)
		if !ok {
			return "", errors.New("no stream in the context")
		}
		return "sunny", sw.Write(uistream.Data{Name: "progress", ID: "p1", Data: map[string]string{"city": in.City}})
	}})
	finished := make(chan uistream.FinishEvent, 1)
	srv := chatServer(t, uistream.ChatOptions{
		Agent:   ai.NewAgent(ai.AgentOptions{Settings: ai.GenerateTextOptions{Model: model, Tools: ai.Tools{{Name: "weather", Tool: weather}}}}),
		Resumer: &uistream.Resumer{Store: uistream.NewMemoryStore()},
		Stream:  uistream.Options{OnFinish: func(ev uistream.FinishEvent) { finished <- ev }},
	})

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	body, err := json.Marshal(map[string]any{"id": "c", "messages": []uistream.Message{{ID: "u1", Role: uistream.RoleUser, Parts: []uistream.Part{uistream.TextPart{Text: "weather?"}}}}})
	require.NoError(t, err)
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, srv.URL+"/api/chat", bytes.NewReader(body))
	require.NoError(t, err)
	req.Header.Set("Content-Type", "application/json")
	res, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	for c, err := range uistream.ReadChunks(res.Body) {
		require.NoError(t, err)
		if _, ok := c.(uistream.Data); ok {
			break // the tool wrote through the stream in the store
		}
	}
	cancel()
	res.Body.Close()
	close(release)

	ev := <-finished
	assert.False(t, ev.IsAborted)
	assert.NoError(t, ev.Err)
	msgs := storedMessages(t, srv.URL, "c")
	require.Len(t, msgs, 2)
	assert.Equal(t, []string{"step-start", "tool-weather:output-available", "data-progress", "step-start", "text"}, partTypes(msgs[1]))
}

// TestChatHandlerStopRoute: the stop route ends the answer that streams,
// only the named one when a stream id is given; the stopped answer is
// stored with what was streamed.
func TestChatHandlerStopRoute(t *testing.T) {
	srv := chatServer(t, uistream.ChatOptions{
		Agent:   ai.NewAgent(ai.AgentOptions{Settings: ai.GenerateTextOptions{Model: hangingModel{aitest.NewModel()}}}),
		Resumer: &uistream.Resumer{Store: uistream.NewMemoryStore()},
		NewID:   func() string { return "a1" },
	})
	api := srv.URL + "/api/chat"
	body, err := json.Marshal(map[string]any{"id": "c", "messages": []uistream.Message{{ID: "u1", Role: uistream.RoleUser, Parts: []uistream.Part{uistream.TextPart{Text: "hi"}}}}})
	require.NoError(t, err)
	res, err := http.Post(api, "application/json", bytes.NewReader(body))
	require.NoError(t, err)
	defer res.Body.Close()
	next, stop := iter.Pull2(uistream.ReadChunks(res.Body))
	defer stop()
	for {
		c, err, ok := next()
		require.True(t, ok)
		require.NoError(t, err)
		if _, ok := c.(uistream.TextDelta); ok {
			break
		}
	}
	stopWith := func(body string) {
		t.Helper()
		res, err := http.Post(api+"/c/stop", "application/json", strings.NewReader(body))
		require.NoError(t, err)
		res.Body.Close()
		require.Equal(t, http.StatusNoContent, res.StatusCode)
	}
	stopWith(`{"activeStreamId":"another"}`) // a stale stop: ignored
	live, err := http.Get(api + "/c/stream")
	require.NoError(t, err)
	live.Body.Close()
	require.Equal(t, http.StatusOK, live.StatusCode, "the answer still streams")
	stopWith(``)
	var last uistream.Chunk
	for {
		c, err, ok := next()
		if !ok {
			break
		}
		require.NoError(t, err)
		last = c
	}
	assert.IsType(t, uistream.Abort{}, last)
	msgs := storedMessages(t, srv.URL, "c")
	require.Len(t, msgs, 2)
	assert.Equal(t, []uistream.Part{uistream.StepStartPart{}, uistream.TextPart{Text: "partial", State: "streaming"}}, msgs[1].Parts)
	status, _ := getBody(t, api+"/c/stream")
	assert.Equal(t, http.StatusNoContent, status)
}

// TestChatHandlerRoutes: what the other routes answer, and Authorize.
func TestChatHandlerRoutes(t *testing.T) {
	agent := ai.NewAgent(ai.AgentOptions{Settings: ai.GenerateTextOptions{Model: aitest.NewModel(aitest.Response{Content: []provider.Content{aitest.Text("hi")}})}})
	srv := chatServer(t, uistream.ChatOptions{Agent: agent, Authorize: func(_ *http.Request, chatID string) error {
		if chatID == "theirs" {
			return errors.New("no")
		}
		return nil
	}})
	api := srv.URL + "/api/chat"
	for _, c := range []struct {
		method, path string
		status       int
	}{
		{"GET", "/api/chat", http.StatusMethodNotAllowed},
		{"DELETE", "/api/chat/c/stream", http.StatusMethodNotAllowed},
		{"GET", "/api/chat/c/stream", http.StatusNoContent}, // no Resumer
		{"POST", "/api/chat/c/stop", http.StatusNoContent},
		{"GET", "/api/chat/c/messages", http.StatusOK},
		{"GET", "/api/chat/a%2Fb/messages", http.StatusOK},
		{"GET", "/api/chat/theirs/messages", http.StatusForbidden},
		{"GET", "/api/chat/theirs/stream", http.StatusForbidden},
		{"POST", "/api/chat/theirs/stop", http.StatusForbidden},
	} {
		req, err := http.NewRequest(c.method, srv.URL+c.path, nil)
		require.NoError(t, err)
		res, err := http.DefaultClient.Do(req)
		require.NoError(t, err)
		b, _ := io.ReadAll(res.Body)
		res.Body.Close()
		assert.Equal(t, c.status, res.StatusCode, "%s %s: %s", c.method, c.path, b)
	}
	status, body := postChat(t, api, "theirs", uistream.Message{ID: "u1", Role: uistream.RoleUser, Parts: []uistream.Part{uistream.TextPart{Text: "hi"}}})
	assert.Equal(t, http.StatusForbidden, status, body)
	status, body = postChat(t, api, "", uistream.Message{ID: "u1", Role: uistream.RoleUser, Parts: []uistream.Part{uistream.TextPart{Text: "hi"}}})
	assert.Equal(t, http.StatusBadRequest, status, body)
	status, body = postChat(t, api, "a/b", uistream.Message{ID: "u1", Role: uistream.RoleUser, Parts: []uistream.Part{uistream.TextPart{Text: "hi"}}})
	require.Equal(t, http.StatusOK, status, body)
	assert.Len(t, storedMessages(t, srv.URL, "a%2Fb"), 2, "an id with a slash is one escaped segment")

	stateless := chatServer(t, uistream.ChatOptions{Agent: agent, Stateless: true})
	status, _ = getBody(t, stateless.URL+"/api/chat/c/messages")
	assert.Equal(t, http.StatusNotFound, status)
	assert.Panics(t, func() {
		uistream.NewChatHandler(uistream.ChatOptions{Agent: agent, Stateless: true, Store: uistream.NewMemoryChatStore()})
	})
}

// TestMemoryChatStore: copies in and out, the least recently saved chat
// makes room, and a chat over the message bound is refused.
func TestMemoryChatStore(t *testing.T) {
	ctx := context.Background()
	s := &uistream.MemoryChatStore{MaxChats: 2, MaxMessages: 2}
	msg := func(id string) uistream.Message {
		return uistream.Message{ID: id, Role: uistream.RoleUser, Parts: []uistream.Part{uistream.TextPart{Text: id}}}
	}
	chat, err := s.Load(ctx, "none")
	require.NoError(t, err)
	assert.Equal(t, uistream.Chat{}, chat)

	in := uistream.Chat{Messages: []uistream.Message{msg("a")}, ActiveStreamID: "s1"}
	require.NoError(t, s.Save(ctx, "a", in))
	in.Messages[0].Parts[0] = uistream.TextPart{Text: "changed"}
	out, err := s.Load(ctx, "a")
	require.NoError(t, err)
	assert.Equal(t, uistream.Chat{Messages: []uistream.Message{msg("a")}, ActiveStreamID: "s1"}, out, "the store keeps a copy")
	out.Messages[0].Parts[0] = uistream.TextPart{Text: "changed"}
	again, _ := s.Load(ctx, "a")
	assert.Equal(t, msg("a"), again.Messages[0], "and hands out copies")

	require.NoError(t, s.Save(ctx, "b", uistream.Chat{Messages: []uistream.Message{msg("b")}}))
	require.NoError(t, s.Save(ctx, "a", uistream.Chat{Messages: []uistream.Message{msg("a"), msg("a2")}}))
	require.NoError(t, s.Save(ctx, "c", uistream.Chat{Messages: []uistream.Message{msg("c")}}))
	b, _ := s.Load(ctx, "b")
	assert.Empty(t, b.Messages, "b was saved least recently")
	a, _ := s.Load(ctx, "a")
	assert.Len(t, a.Messages, 2)

	err = s.Save(ctx, "a", uistream.Chat{Messages: []uistream.Message{msg("1"), msg("2"), msg("3")}})
	assert.ErrorIs(t, err, uistream.ErrStoreFull)
	a, _ = s.Load(ctx, "a")
	assert.Len(t, a.Messages, 2, "a refused save changes nothing")
}
