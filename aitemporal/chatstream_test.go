package aitemporal_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"

	"github.com/aisdkgo/ai"
	"github.com/aisdkgo/ai/aitemporal"
	"github.com/aisdkgo/ai/aitemporal/durablechat"
	"github.com/aisdkgo/ai/internal/redistest"
	"github.com/aisdkgo/ai/provider"
	"github.com/aisdkgo/ai/uistream"
	"github.com/aisdkgo/ai/uistream/redisstore"
)

// Environment of a worker process started by TestTemporalChatStream.
const (
	envChatWorker = "AITEMPORAL_TEST_CHAT_WORKER"
	envRedisAddr  = "AITEMPORAL_TEST_REDIS_ADDR"
	envRedisKeys  = "AITEMPORAL_TEST_REDIS_PREFIX"
)

// The chat scenario: the model tells a story, slowly, and asks to mail
// it; once the mail is approved and sent it says so.
const (
	chatPrompt   = "Tell me a story and mail it to bob."
	storyDeltas  = 30
	storyDelay   = 150 * time.Millisecond
	mailSentText = "Mail sent to bob."
)

var chatSecrets = [][]byte{[]byte("chat-stream-test-secret")}

func storyText() string {
	var b strings.Builder
	for i := range storyDeltas {
		fmt.Fprintf(&b, "word%d ", i)
	}
	return b.String()
}

// chatModel streams the scenario's answers; it logs each call's start.
type chatModel struct{ log *execLog }

func (chatModel) Provider() string { return "test" }
func (chatModel) ModelID() string  { return "chat" }

func (chatModel) Generate(context.Context, *provider.CallOptions) (*provider.GenerateResult, error) {
	return nil, errors.New("the chat model only streams")
}

func (m chatModel) Stream(ctx context.Context, o *provider.CallOptions) (*provider.StreamResult, error) {
	sent := false
	for _, msg := range o.Prompt {
		if tm, ok := msg.(provider.ToolMessage); ok {
			for _, p := range tm.Content {
				if tr, ok := p.(provider.ToolResultPart); ok && tr.ToolName == "sendEmail" {
					sent = true
				}
			}
		}
	}
	logModel(ctx, m.log, "start", fmt.Sprintf("model-sent=%v", sent))
	var parts []provider.StreamPart
	delay := time.Duration(0)
	if !sent {
		delay = storyDelay
		parts = append(parts, provider.TextStart{ID: "t"})
		for i := range storyDeltas {
			parts = append(parts, provider.TextDelta{ID: "t", Delta: fmt.Sprintf("word%d ", i)})
		}
		parts = append(parts, provider.TextEnd{ID: "t"},
			provider.ToolCall{ToolCallID: "call-mail", ToolName: "sendEmail", Input: `{"to":"bob"}`},
			provider.Finish{FinishReason: provider.FinishReason{Unified: provider.FinishToolCalls}})
	} else {
		parts = append(parts, provider.TextStart{ID: "t"}, provider.TextDelta{ID: "t", Delta: "Mail sent "},
			provider.TextDelta{ID: "t", Delta: "to bob."}, provider.TextEnd{ID: "t"},
			provider.Finish{FinishReason: provider.FinishReason{Unified: provider.FinishStop}})
	}
	return &provider.StreamResult{Stream: func(yield func(provider.StreamPart, error) bool) {
		for _, p := range parts {
			if _, ok := p.(provider.TextDelta); ok && delay > 0 {
				select {
				case <-time.After(delay):
				case <-ctx.Done():
					yield(nil, ctx.Err())
					return
				}
			}
			if !yield(p, nil) {
				return
			}
		}
		logModel(ctx, m.log, "done", fmt.Sprintf("model-sent=%v", sent))
	}}, nil
}

// chatConfig is the configuration of the chat workers.
func chatConfig(log *execLog, store uistream.StreamStore) *aitemporal.Config {
	model := &chatModel{log: log}
	mail := ai.NewTool(ai.ToolDef[mailIn, string]{
		Description: "Send an email.",
		NeedsApproval: func(context.Context, mailIn, ai.ApprovalOptions) (bool, error) {
			return true, nil
		},
		Execute: func(ctx context.Context, in mailIn, _ ai.ToolExecutionOptions) (string, error) {
			log.add(ctx, "done", "sendEmail")
			return "sent to " + in.To, nil
		},
	})
	return &aitemporal.Config{
		Models: map[string]provider.LanguageModel{"chat": model},
		Agents: map[string]*aitemporal.Agent{"assistant": {
			Options: ai.GenerateTextOptions{
				Model:               model,
				Tools:               ai.Tools{{Name: "sendEmail", Tool: mail}},
				StopWhen:            ai.StepCountIs(5),
				ToolApprovalSecrets: chatSecrets,
			},
			ModelActivity: workflow.ActivityOptions{
				HeartbeatTimeout: 2 * time.Second,
				RetryPolicy:      &temporal.RetryPolicy{InitialInterval: 100 * time.Millisecond, MaximumAttempts: 5},
			},
			ToolActivity: workflow.ActivityOptions{StartToCloseTimeout: time.Minute, HeartbeatTimeout: 2 * time.Second},
		}},
		Stream: &aitemporal.Streaming{Store: store},
	}
}

// TestTemporalChatStream streams a durable agent's answer to a Go client
// of the useChat protocol through the durablechat handler, kills the worker
// while the model streams, and checks that the client ends with the
// message of an uninterrupted run; an approval answered through the
// handler continues the run.
func TestTemporalChatStream(t *testing.T) {
	if os.Getenv(envChatWorker) != "" {
		runChatWorkerProcess(t)
		return
	}
	if testing.Short() {
		t.Skip("starts a Temporal server, Redis and worker processes")
	}
	address := serverAddress(t)
	rc := redistest.Client(t)
	suffix := randomSuffix()
	prefix := "aitemporal-chat-" + suffix
	store := redisstore.New(rc, &redisstore.Options{Prefix: prefix})
	c, err := client.Dial(client.Options{HostPort: address, Logger: quietLogger()})
	require.NoError(t, err)
	defer c.Close()

	queue := "aitemporal-chat-" + suffix
	log := &execLog{path: filepath.Join(t.TempDir(), "executions.log")}
	startChat := func() *exec.Cmd {
		cmd := exec.Command(os.Args[0], "-test.run=^TestTemporalChatStream$", "-test.count=1")
		cmd.Env = append(os.Environ(), envChatWorker+"=1", envAddress+"="+address, envTaskQueue+"="+queue,
			envLog+"="+log.path, envRedisAddr+"="+rc.Options().Addr, envRedisKeys+"="+prefix)
		cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
		require.NoError(t, cmd.Start())
		return cmd
	}
	workers := []*exec.Cmd{startChat()}
	defer func() {
		for _, w := range workers {
			_ = w.Process.Kill()
			_ = w.Wait()
		}
	}()

	h := durablechat.New(durablechat.Options{Client: c, TaskQueue: queue, Agent: "assistant", Store: store,
		ToolApprovalSecrets: chatSecrets, WorkflowIDPrefix: "chat-" + suffix + "-"})
	mux := http.NewServeMux()
	mux.Handle("POST /api/chat", h)
	mux.HandleFunc("GET /api/chat/{id}/stream", func(w http.ResponseWriter, r *http.Request) {
		_ = h.Resume(w, r, r.PathValue("id"))
	})
	srv := httptest.NewServer(mux)
	defer srv.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()

	user := uistream.Message{ID: "u1", Role: uistream.RoleUser, Parts: []uistream.Part{uistream.TextPart{Text: chatPrompt}}}

	// An uninterrupted run.
	clean := chatTurn(t, ctx, srv.URL, "clean", []uistream.Message{user}, nil)
	requireApprovalRequested(t, clean.msg)
	// The recorded step replaces what the model call streamed (a model
	// call that a loaded machine made miss its heartbeats is retried, and
	// resets once more).
	assert.GreaterOrEqual(t, clean.resets, 1)
	cleanDone := chatTurn(t, ctx, srv.URL, "clean", []uistream.Message{user, approve(t, clean.msg)}, &clean.msg)

	// A run whose worker is killed while the model streams the story.
	var killed bool
	crash := chatTurn(t, ctx, srv.URL, "crash", []uistream.Message{user}, func(c uistream.Chunk, deltas int) {
		if !killed && deltas == 5 {
			killed = true
			require.NoError(t, workers[0].Process.Kill())
			_ = workers[0].Wait()
			workers = append(workers, startChat())
		}
	})
	require.True(t, killed, "the worker was killed mid-stream")
	assert.GreaterOrEqual(t, crash.resets, 2, "the client is told to drop the partial step")
	assert.Greater(t, crash.deltas, storyDeltas, "the retry streamed the story again")
	requireApprovalRequested(t, crash.msg)
	assert.Equal(t, withoutRunIDs(clean.msg), withoutRunIDs(crash.msg), "the crash does not change the message")

	// The approval, answered through the handler, continues the run.
	crashDone := chatTurn(t, ctx, srv.URL, "crash", []uistream.Message{user, approve(t, crash.msg)}, &crash.msg)
	assert.Equal(t, withoutRunIDs(cleanDone.msg), withoutRunIDs(crashDone.msg))
	text := texts(crashDone.msg)
	assert.Equal(t, []string{storyText(), mailSentText}, text)
	tool := toolPart(t, crashDone.msg)
	assert.Equal(t, uistream.OutputAvailable, tool.State)
	assert.JSONEq(t, `"sent to bob"`, string(tool.Output))

	// The message is the history's.
	wid := "chat-" + suffix + "-crash/" + crash.msg.ID
	var res aitemporal.Result
	require.NoError(t, c.GetWorkflow(ctx, wid, "").Get(ctx, &res))
	require.Len(t, res.Steps, 2)
	assert.Equal(t, storyText(), res.Steps[0].Text)
	assert.Equal(t, mailSentText, res.Text)
	assert.GreaterOrEqual(t, log.count(wid, "start", "model-sent=false"), 2, "the call cut off by the crash ran again")
	assert.GreaterOrEqual(t, log.count(wid, "done", "model-sent=false"), 1)
	assert.Equal(t, 1, log.count(wid, "start", "model-sent=true"), "a completed call does not run again")
	assert.Equal(t, 1, log.count(wid, "done", "sendEmail"))

	// A reloaded page resumes the chat's current stream from its start.
	resumed := readStream(t, ctx, http.MethodGet, srv.URL+"/api/chat/crash/stream", nil, &crash.msg, nil)
	assert.Equal(t, withoutRunIDs(crashDone.msg), withoutRunIDs(resumed.msg))

	// An approval whose signature does not match is refused.
	forged := approve(t, clean.msg)
	for i, p := range forged.Parts {
		if tp, ok := p.(uistream.ToolPart); ok {
			a := *tp.Approval
			a.Signature = "forged"
			tp.Approval = &a
			forged.Parts[i] = tp
		}
	}
	body, _ := json.Marshal(map[string]any{"id": "clean", "messages": []uistream.Message{user, forged}, "trigger": uistream.TriggerSubmit})
	resp, err := http.Post(srv.URL+"/api/chat", "application/json", bytes.NewReader(body))
	require.NoError(t, err)
	resp.Body.Close()
	assert.Equal(t, http.StatusBadRequest, resp.StatusCode)
}

// runChatWorkerProcess is the body of a chat worker process.
func runChatWorkerProcess(t *testing.T) {
	c, err := client.Dial(client.Options{HostPort: os.Getenv(envAddress), Logger: quietLogger()})
	if err != nil {
		t.Fatal(err)
	}
	rc := redis.NewClient(&redis.Options{Addr: os.Getenv(envRedisAddr)})
	store := redisstore.New(rc, &redisstore.Options{Prefix: os.Getenv(envRedisKeys)})
	w := worker.New(c, os.Getenv(envTaskQueue), worker.Options{})
	if err := aitemporal.Register(w, chatConfig(&execLog{path: os.Getenv(envLog)}, store)); err != nil {
		t.Fatal(err)
	}
	if err := w.Run(worker.InterruptCh()); err != nil {
		t.Fatal(err)
	}
}

// turn is what a client made of one streamed answer.
type turn struct {
	msg    uistream.Message
	resets int
	deltas int
}

// chatTurn posts a turn as useChat does and folds the answer. onChunk (for
// a new message) or cont (the message the answer continues) may be nil.
func chatTurn(t *testing.T, ctx context.Context, base, chatID string, msgs []uistream.Message, arg any) turn {
	t.Helper()
	body, err := json.Marshal(map[string]any{"id": chatID, "messages": msgs, "trigger": uistream.TriggerSubmit})
	require.NoError(t, err)
	var cont *uistream.Message
	var onChunk func(uistream.Chunk, int)
	switch a := arg.(type) {
	case *uistream.Message:
		cont = a
	case func(uistream.Chunk, int):
		onChunk = a
	}
	return readStream(t, ctx, http.MethodPost, base+"/api/chat", body, cont, onChunk)
}

// readStream reads an SSE answer and folds it into a message.
func readStream(t *testing.T, ctx context.Context, method, url string, body []byte, cont *uistream.Message, onChunk func(uistream.Chunk, int)) turn {
	t.Helper()
	req, err := http.NewRequestWithContext(ctx, method, url, bytes.NewReader(body))
	require.NoError(t, err)
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	require.Equal(t, http.StatusOK, resp.StatusCode)
	require.Equal(t, "text/event-stream", resp.Header.Get("Content-Type"))
	var tr turn
	chunks := func(yield func(uistream.Chunk, error) bool) {
		for c, err := range uistream.ReadChunks(resp.Body) {
			if err == nil {
				switch c.(type) {
				case uistream.ResetStep:
					tr.resets++
				case uistream.TextDelta:
					tr.deltas++
				}
				if onChunk != nil {
					onChunk(c, tr.deltas)
				}
			}
			if !yield(c, err) {
				return
			}
		}
	}
	var opts uistream.ReadOptions
	if cont != nil {
		m := cloneMessage(t, *cont)
		opts.Message = &m
	}
	got := false
	for m, err := range uistream.ReadMessage(chunks, &opts) {
		require.NoError(t, err)
		tr.msg, got = m, true
	}
	require.True(t, got, "the stream made a message")
	return tr
}

func cloneMessage(t *testing.T, m uistream.Message) uistream.Message {
	t.Helper()
	b, err := json.Marshal(m)
	require.NoError(t, err)
	var out uistream.Message
	require.NoError(t, json.Unmarshal(b, &out))
	return out
}

func toolPart(t *testing.T, m uistream.Message) uistream.ToolPart {
	t.Helper()
	for _, p := range m.Parts {
		if tp, ok := p.(uistream.ToolPart); ok {
			return tp
		}
	}
	t.Fatal("the message has no tool part")
	return uistream.ToolPart{}
}

func requireApprovalRequested(t *testing.T, m uistream.Message) {
	t.Helper()
	tp := toolPart(t, m)
	require.Equal(t, uistream.ApprovalRequested, tp.State)
	require.NotNil(t, tp.Approval)
	require.NotEmpty(t, tp.Approval.Signature, "the request carries its signature")
	assert.Equal(t, []string{storyText()}, texts(m))
}

// approve answers the message's approval request as the user would.
func approve(t *testing.T, m uistream.Message) uistream.Message {
	t.Helper()
	out := cloneMessage(t, m)
	for i, p := range out.Parts {
		if tp, ok := p.(uistream.ToolPart); ok && tp.State == uistream.ApprovalRequested {
			a := *tp.Approval
			a.Approved = new(true)
			tp.Approval, tp.State = &a, uistream.ApprovalResponded
			out.Parts[i] = tp
		}
	}
	return out
}

func texts(m uistream.Message) []string {
	var out []string
	for _, p := range m.Parts {
		if tp, ok := p.(uistream.TextPart); ok {
			out = append(out, tp.Text)
		}
	}
	return out
}

// withoutRunIDs returns the JSON of a message without what differs from
// run to run: the message id, approval ids and their signatures.
func withoutRunIDs(m uistream.Message) string {
	m.ID = ""
	parts := make([]uistream.Part, len(m.Parts))
	for i, p := range m.Parts {
		if tp, ok := p.(uistream.ToolPart); ok && tp.Approval != nil {
			a := *tp.Approval
			a.ID, a.Signature = "", ""
			tp.Approval = &a
			if tp.ToolMetadata != nil {
				tp.ToolMetadata = map[string]any{"signed": true}
			}
			p = tp
		}
		parts[i] = p
	}
	m.Parts = parts
	b, _ := json.Marshal(m)
	return string(b)
}

// logModel logs a model call's event as execLog.add logs a tool's.
func logModel(ctx context.Context, l *execLog, event, name string) {
	info := activity.GetInfo(ctx)
	l.mu.Lock()
	defer l.mu.Unlock()
	f, err := os.OpenFile(l.path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		panic(err)
	}
	defer f.Close()
	fmt.Fprintf(f, "%s %s %s %d -\n", info.WorkflowExecution.ID, event, name, info.Attempt)
}
