// Package durablechat serves a chat client that speaks the AI SDK's UI
// message stream protocol (useChat) from durable runs of package
// aitemporal: each turn the client posts starts a run, or answers the
// approvals a run waits for, and the answer streams from the
// [uistream.StreamStore] the workers publish into, so that it survives the
// crash of a worker and the reload of a page.
//
//	h := durablechat.New(durablechat.Options{
//		Client: c, TaskQueue: "chat", Agent: "assistant",
//		Store: store, // the workers' Config.Stream.Store
//		ToolApprovalSecrets: secrets, // the agent's
//	})
//	mux.Handle("POST /api/chat", h)
//	mux.HandleFunc("GET /api/chat/{id}/stream", func(w http.ResponseWriter, r *http.Request) {
//		h.Resume(w, r, r.PathValue("id"))
//	})
//
// A turn is a workflow whose id names the chat and the assistant message
// of the turn; the message id goes to the client in the stream's start
// chunk, and the client sends it back with its approval answers, which
// become approval signals of that workflow. The workflow checks their
// signatures, as it checks any approval signal.
package durablechat

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"net/http"
	"sync"
	"time"

	"go.temporal.io/sdk/client"

	"github.com/aisdkgo/ai"
	"github.com/aisdkgo/ai/aitemporal"
	"github.com/aisdkgo/ai/uistream"
)

// Options configure a [Handler]. Client, TaskQueue, Agent and Store are
// required.
type Options struct {
	// Client reaches the Temporal server.
	Client client.Client
	// TaskQueue is the task queue of the workers that run the agent.
	TaskQueue string
	// Agent names the agent of the workers' Config that answers.
	Agent string
	// Store is the store the workers publish into (their
	// Config.Stream.Store).
	Store uistream.StreamStore
	// StreamID derives stream ids as the workers do (their
	// Config.Stream.StreamID); nil means [aitemporal.DefaultStreamID].
	StreamID func(aitemporal.StreamKey) string
	// ToolApprovalSecrets are the agent's: requests whose approvals they do
	// not verify are refused with a 400, and the tool results the client
	// sends back are checked with them.
	ToolApprovalSecrets [][]byte
	// Tools are the agent's tools, used to convert the client's messages
	// for the model (see [uistream.ConvertOptions]); may be nil.
	Tools ai.Tools
	// Active records each chat's current stream, for [Handler.Resume]. Nil
	// means a [MemoryActive] of this process.
	Active ActiveRuns
	// WorkflowIDPrefix starts the workflow id of each turn, followed by
	// the chat id, "/" and the message id. Empty means "chat-".
	WorkflowIDPrefix string
	// KeepAlive is passed to the stream's [uistream.Writer]: a positive
	// value sends comments while a stream is quiet (a run waits for a worker
	// or a long tool), so that proxies keep the connection.
	KeepAlive time.Duration
	// MaxBytes bounds a request's body; zero means
	// [uistream.DefaultMaxBytes].
	MaxBytes int64
}

// Active is the stream a chat's client reads.
type Active struct {
	WorkflowID string
	MessageID  string
	StreamID   string
}

// ActiveRuns records the current stream of each chat.
type ActiveRuns interface {
	SetActive(ctx context.Context, chatID string, a Active) error
	// Active returns the chat's stream, and false when there is none.
	Active(ctx context.Context, chatID string) (Active, bool, error)
}

// MemoryActive keeps the active streams in this process, the latest
// Max chats (zero means 10000).
type MemoryActive struct {
	Max int

	mu    sync.Mutex
	m     map[string]Active
	order []string
}

// SetActive records a chat's stream.
func (m *MemoryActive) SetActive(_ context.Context, chatID string, a Active) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.m == nil {
		m.m = map[string]Active{}
	}
	if _, ok := m.m[chatID]; !ok {
		m.order = append(m.order, chatID)
	}
	m.m[chatID] = a
	limit := m.Max
	if limit <= 0 {
		limit = 10000
	}
	for len(m.order) > limit {
		delete(m.m, m.order[0])
		m.order = m.order[1:]
	}
	return nil
}

// Active returns a chat's stream.
func (m *MemoryActive) Active(_ context.Context, chatID string) (Active, bool, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	a, ok := m.m[chatID]
	return a, ok, nil
}

// Handler answers the POSTs of a chat client; see the package comment.
type Handler struct {
	opts   Options
	active ActiveRuns
}

// New returns a handler with the options.
func New(opts Options) *Handler {
	h := &Handler{opts: opts, active: opts.Active}
	if h.active == nil {
		h.active = &MemoryActive{}
	}
	if h.opts.WorkflowIDPrefix == "" {
		h.opts.WorkflowIDPrefix = "chat-"
	}
	return h
}

func (h *Handler) streamID(k aitemporal.StreamKey) string {
	if h.opts.StreamID != nil {
		return h.opts.StreamID(k)
	}
	return aitemporal.DefaultStreamID(k)
}

// maxChatID bounds the chat ids that become part of workflow ids.
const maxChatID = 200

// ServeHTTP answers one turn: a new user message starts a run; an
// assistant message with approval answers (the ones of the run's pause)
// sends them to the run as approval signals. Either way the answer is the
// stream of what the run does next.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	req, err := uistream.DecodeRequest(r, &uistream.DecodeOptions{MaxBytes: h.opts.MaxBytes, ToolApprovalSecrets: h.opts.ToolApprovalSecrets})
	if err != nil {
		uistream.WriteError(w, err)
		return
	}
	if req.ID == "" || len(req.ID) > maxChatID {
		uistream.WriteError(w, &uistream.RequestError{Status: http.StatusBadRequest, Path: "id", Message: fmt.Sprintf("the chat id must have 1 to %d bytes", maxChatID)})
		return
	}
	if len(req.Messages) == 0 {
		uistream.WriteError(w, &uistream.RequestError{Status: http.StatusBadRequest, Path: "messages", Message: "there are no messages"})
		return
	}
	last := req.Messages[len(req.Messages)-1]
	if answers := approvalAnswers(last); last.Role == uistream.RoleAssistant && len(answers) > 0 {
		h.continueRun(w, r, req.ID, last.ID, answers)
		return
	}
	h.startRun(w, r, req)
}

// approvalAnswers returns the approvals a message answers, in order.
func approvalAnswers(m uistream.Message) []aitemporal.Approval {
	var out []aitemporal.Approval
	for _, p := range m.Parts {
		tp, ok := p.(uistream.ToolPart)
		if !ok || tp.State != uistream.ApprovalResponded || tp.Approval == nil || tp.Approval.Approved == nil {
			continue
		}
		out = append(out, aitemporal.Approval{ApprovalID: tp.Approval.ID, Approved: *tp.Approval.Approved,
			Reason: tp.Approval.Reason, Signature: tp.Approval.Signature})
	}
	return out
}

func (h *Handler) startRun(w http.ResponseWriter, r *http.Request, req *uistream.Request) {
	ctx := r.Context()
	msgs, err := uistream.ConvertMessages(ctx, req.Messages, &uistream.ConvertOptions{Tools: h.opts.Tools, ResultSecrets: h.opts.ToolApprovalSecrets})
	if err != nil {
		uistream.WriteError(w, &uistream.RequestError{Status: http.StatusBadRequest, Path: "messages", Message: err.Error()})
		return
	}
	messageID := uistream.NewID()
	a := Active{WorkflowID: h.opts.WorkflowIDPrefix + req.ID + "/" + messageID, MessageID: messageID}
	a.StreamID = h.streamID(aitemporal.StreamKey{WorkflowID: a.WorkflowID})
	if err := h.prepare(ctx, req.ID, a); err != nil {
		uistream.WriteError(w, &uistream.RequestError{Status: http.StatusInternalServerError, Message: "the stream cannot be created"})
		return
	}
	_, err = aitemporal.Start(ctx, h.opts.Client, client.StartWorkflowOptions{ID: a.WorkflowID, TaskQueue: h.opts.TaskQueue},
		aitemporal.Input{Agent: h.opts.Agent, Messages: msgs, Stream: true})
	if err != nil {
		h.abandon(ctx, a.StreamID)
		uistream.WriteError(w, &uistream.RequestError{Status: http.StatusInternalServerError, Message: "the run cannot be started"})
		return
	}
	_ = h.serve(w, r, a, true)
}

func (h *Handler) continueRun(w http.ResponseWriter, r *http.Request, chatID, messageID string, answers []aitemporal.Approval) {
	ctx := r.Context()
	a := Active{WorkflowID: h.opts.WorkflowIDPrefix + chatID + "/" + messageID, MessageID: messageID}
	a.StreamID = h.streamID(aitemporal.StreamKey{WorkflowID: a.WorkflowID, After: answers[0].ApprovalID})
	if err := h.prepare(ctx, chatID, a); err != nil {
		uistream.WriteError(w, &uistream.RequestError{Status: http.StatusInternalServerError, Message: "the stream cannot be created"})
		return
	}
	for _, ans := range answers {
		if err := aitemporal.Approve(ctx, h.opts.Client, a.WorkflowID, "", ans); err != nil {
			h.abandon(ctx, a.StreamID)
			uistream.WriteError(w, &uistream.RequestError{Status: http.StatusBadRequest, Path: "messages", Message: "no run of this chat waits for these approvals"})
			return
		}
	}
	_ = h.serve(w, r, a, true)
}

// prepare creates the stream (the workers publish into it) and records it
// as the chat's.
func (h *Handler) prepare(ctx context.Context, chatID string, a Active) error {
	if err := h.opts.Store.Create(ctx, a.StreamID); err != nil && !errors.Is(err, uistream.ErrStreamExists) {
		return err
	}
	return h.active.SetActive(ctx, chatID, a)
}

// abandon ends a stream no run will publish to.
func (h *Handler) abandon(ctx context.Context, streamID string) {
	ctx = context.WithoutCancel(ctx)
	if b, err := uistream.Marshal(uistream.Error{ErrorText: uistream.DefaultErrorText}); err == nil {
		_ = h.opts.Store.Append(ctx, streamID, b)
	}
	_ = h.opts.Store.Finish(ctx, streamID)
}

// Resume answers the resume request of a chat's client (useChat with
// resume: true asks GET {api}/{chatId}/stream) with the chat's current
// stream from its start, then live; 204 No Content when there is none.
func (h *Handler) Resume(w http.ResponseWriter, r *http.Request, chatID string) error {
	a, ok, err := h.active.Active(r.Context(), chatID)
	if err != nil {
		uistream.WriteError(w, &uistream.RequestError{Status: http.StatusInternalServerError, Message: "the chat's stream cannot be found"})
		return err
	}
	if !ok {
		w.WriteHeader(http.StatusNoContent)
		return nil
	}
	return h.ServeStream(w, r, a)
}

// ServeStream answers with a stream the workers publish: a start chunk
// with the message id, then the stored chunks as [aitemporal.NormalizeStream]
// gives them, until the stream is finished or the client goes away. A
// stream the store does not hold is a 204.
func (h *Handler) ServeStream(w http.ResponseWriter, r *http.Request, a Active) error {
	return h.serve(w, r, a, false)
}

// serve serves a stream; created says that it was just created, so that
// the answer starts at once instead of with the stream's first chunk.
func (h *Handler) serve(w http.ResponseWriter, r *http.Request, a Active, created bool) error {
	next, stop := iter.Pull2(h.opts.Store.Read(r.Context(), a.StreamID, 0))
	defer stop()
	var sw *uistream.Writer
	open := func() error {
		sw = uistream.NewWriter(w, h.opts.KeepAlive)
		return sw.Write(uistream.Start{MessageID: a.MessageID})
	}
	if created {
		if err := open(); err != nil {
			sw.Close()
			return err
		}
	}
	first, err, ok := next()
	if sw == nil {
		if errors.Is(err, uistream.ErrStreamNotFound) {
			w.WriteHeader(http.StatusNoContent)
			return nil
		}
		if err != nil {
			uistream.WriteError(w, &uistream.RequestError{Status: http.StatusInternalServerError, Message: "the stream cannot be read"})
			return err
		}
	}
	stored := func(yield func([]byte, error) bool) {
		for ok {
			if !yield(first, err) || err != nil {
				return
			}
			first, err, ok = next()
		}
	}
	if sw == nil {
		if err := open(); err != nil {
			sw.Close()
			return err
		}
	}
	for c, err := range aitemporal.NormalizeStream(stored) {
		if err != nil {
			if r.Context().Err() == nil {
				_ = sw.Write(uistream.Error{ErrorText: uistream.DefaultErrorText})
			}
			sw.Close()
			return err
		}
		if err := sw.Write(c); err != nil {
			sw.Close()
			return err
		}
	}
	return sw.Close()
}
