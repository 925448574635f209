package uistream

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"io"
	"iter"
	"net/http"
	"net/url"
	"slices"
	"strings"

	"github.com/aisdkgo/ai"
)

// The message metadata keys a chat handler writes (see [ChatOptions]).
const (
	// MetadataTotalUsage holds the usage of the whole assistant message
	// (an [ai.Usage] as JSON), with [ChatOptions.RecordUsage].
	MetadataTotalUsage = "totalUsage"
	// MetadataDiscoveredTools lists the deferred tools the conversation
	// found with tool search, with [ChatOptions.KeepDiscoveredTools].
	MetadataDiscoveredTools = "discoveredTools"
)

// ChatOptions configure [NewChatHandler]. Agent is required.
type ChatOptions struct {
	// Agent runs each turn: model, instructions, tools, approval rules. Its
	// tools serve the conversion and the stream as well, and its
	// Settings.ToolApprovalSecrets sign the approval requests and check the
	// answers the client posts (they are set in Decode), and sign the tool
	// results the stream sends and check those the client posts back
	// (they are set in Convert.ResultSecrets and Stream.ResultSecrets).
	// An agent without secrets gets a random one for this handler: its
	// approvals then do not survive a restart and are not taken by other
	// servers; set the agent's secrets to share them.
	Agent *ai.Agent
	// Decode bounds the requests; its ToolApprovalSecrets are replaced by
	// the agent's.
	Decode DecodeOptions
	// Convert configures [ConvertMessages]; its Tools and ResultSecrets are
	// set by the handler (OnForgedResult is the place to log forgeries).
	Convert ConvertOptions
	// Stream configures the response stream; its MessageID,
	// OriginalMessages, Tools and ResultSecrets are set by the handler, its
	// OnFinish is called after the chat is saved.
	Stream Options
	// NewID returns the id of a new assistant message ([NewID] when nil).
	NewID func() string

	// Store keeps the chats; nil means a [MemoryChatStore] of this
	// handler. The stored history replaces what the client posted, but
	// for the posted last message: a new message is added at the end; a
	// stored one keeps its stored form and the messages after it are
	// dropped (a regenerated answer), and when it is the assistant message
	// that carries the user's approval answers (or results of tools that
	// run in the client), only those answers are taken from it. An
	// approval is then checked against the request the server stored, and
	// posting it again runs nothing: the stored call has its result.
	//
	// The chat is saved when its turn ends, however it ends (an aborted or
	// failed turn stores what was streamed, a turn whose agent did not
	// start nothing): the history with the response message last, merged
	// into the message it continued. The save runs with the request's
	// values but without its cancellation, before the stream ends; when it
	// fails the stream ends with an error chunk (text from
	// Stream.OnError). With a Resumer the chat is also saved when the turn
	// starts, with the posted message and the turn's stream.
	Store ChatStore
	// Stateless makes the client hold the chat, as useChat does by
	// default: the posted messages are the history, nothing is stored, and
	// Store and Resumer must be nil.
	Stateless bool
	// Resumer, when set, makes each answer outlive its request: the
	// generation runs in the Resumer and writes into its store, the POST
	// reads it from there, a reloaded page resumes it (GET
	// {api}/{chatId}/stream) and only the stop route (or an error, or
	// [Resumer.Shutdown]) ends it early. Without it, an answer stops when
	// its client goes away and there is nothing to resume.
	Resumer *Resumer
	// Authorize, when set, is asked before each request is served, with
	// the chat's id: an error refuses the request (403, or the status of a
	// [*RequestError]). Without it every client that knows a chat's id can
	// continue it, read its messages, resume and stop its answer.
	Authorize func(r *http.Request, chatID string) error

	// RecordUsage records the usage of the assistant message in its
	// metadata under [MetadataTotalUsage], sent with the finish chunk. A
	// message that a resumed approval continues sums the usage of every
	// request that built it, and the [ai.Finish] part that
	// Stream.MessageMetadata receives carries the same sum. In a Stateless
	// handler the prior usage comes from the posted message, which the
	// client can change.
	RecordUsage bool
	// KeepDiscoveredTools makes tool search last the whole conversation:
	// the deferred tools a turn found (and those it had loaded) are
	// recorded in the response message's metadata under
	// [MetadataDiscoveredTools], and later turns load them from the start,
	// so that the model does not search for them again. Only names of
	// deferred tools of the agent are loaded; a client that edits the list
	// can at most load tools it could have found. Off by default, as in
	// the TypeScript AI SDK, where every request searches anew.
	KeepDiscoveredTools bool
}

// ChatHandler serves a chat with an agent; see [NewChatHandler].
type ChatHandler struct {
	opts    ChatOptions
	store   ChatStore
	secrets [][]byte
}

// NewChatHandler returns the HTTP handler of a chat with an agent, for
// useChat's default transport. Mount it at the chat's API path and below
// it, e.g. for api "/api/chat":
//
//	h := uistream.NewChatHandler(opts)
//	mux.Handle("/api/chat", h)
//	mux.Handle("/api/chat/", h)
//
// or route by route ("POST /api/chat", "GET /api/chat/{id}/stream",
// "POST /api/chat/{id}/stop", "GET /api/chat/{id}/messages"): the handler
// tells them apart by method and last path segment. It serves these
// routes (the chat's id is one path segment, as
// encodeURIComponent writes it):
//
//   - POST {api}: a turn. It decodes the request ([DecodeRequest]; the
//     chat's id is required unless Stateless), loads the stored chat
//     (Store) and puts the posted last message into it, converts the
//     messages ([ConvertMessages]), runs the agent, streams its answer
//     ([Write]) and saves the chat when the turn ends.
//   - GET {api}/{chatId}/stream: the answer that is streaming in the
//     chat, from its start and then live, for useChat's resume; 204 No
//     Content when none is (no Resumer, or the turn has ended).
//   - POST {api}/{chatId}/stop: stops the answer that is streaming in the
//     chat, wherever it runs (with a Resumer); 204. A JSON body
//     {"activeStreamId": id} stops only that stream. Without a Resumer the
//     client's own abort stops the answer, and this does nothing.
//   - GET {api}/{chatId}/messages: the stored messages of the chat as a
//     JSON array (empty for an unknown chat), for a page that reopens a
//     chat; 404 when Stateless.
//
// The tools and the approval secrets are the agent's, given once. Values
// that metadata carries across turns are described at RecordUsage and
// KeepDiscoveredTools.
//
// A request that cannot be served gets an error status ([WriteError]).
// The stream starts before the agent runs, so that its tools can write
// data parts to it ([FromContext]); from then on failures are error
// chunks (texts from Stream.OnError, which also sees the errors of the
// store). An agent that cannot start stores nothing. It panics when
// opts.Agent is nil, or when a Stateless handler has a Store or a
// Resumer.
func NewChatHandler(opts ChatOptions) *ChatHandler {
	if opts.Agent == nil {
		panic("uistream: NewChatHandler needs an Agent")
	}
	if opts.Stateless && (opts.Store != nil || opts.Resumer != nil) {
		panic("uistream: a Stateless chat handler has no Store and no Resumer")
	}
	if opts.NewID == nil {
		opts.NewID = NewID
	}
	h := &ChatHandler{opts: opts, store: opts.Store}
	if h.store == nil && !opts.Stateless {
		h.store = NewMemoryChatStore()
	}
	h.secrets = opts.Agent.Options().Settings.ToolApprovalSecrets
	if len(h.secrets) == 0 {
		secret := make([]byte, 32)
		rand.Read(secret) // never fails
		h.secrets = [][]byte{secret}
	}
	h.opts.Decode.ToolApprovalSecrets = h.secrets
	return h
}

// ServeHTTP routes a request (see [NewChatHandler]).
func (h *ChatHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	path := strings.TrimSuffix(r.URL.EscapedPath(), "/")
	rest, name, _ := cutLast(path)
	_, rawID, _ := cutLast(rest)
	route := ""
	switch {
	case r.Method == http.MethodGet && name == "stream":
		route = "stream"
	case r.Method == http.MethodPost && name == "stop":
		route = "stop"
	case r.Method == http.MethodGet && name == "messages":
		route = "messages"
	case r.Method == http.MethodPost:
		h.turn(w, r)
		return
	default:
		w.Header().Set("Allow", "GET, POST")
		WriteError(w, &RequestError{Status: http.StatusMethodNotAllowed, Message: "the chat routes are POST {api}, GET {api}/{chatId}/stream, POST {api}/{chatId}/stop and GET {api}/{chatId}/messages"})
		return
	}
	chatID, err := url.PathUnescape(rawID)
	if err != nil || chatID == "" {
		WriteError(w, &RequestError{Status: http.StatusBadRequest, Message: "the chat id in the path is missing or malformed"})
		return
	}
	if !h.authorized(w, r, chatID) {
		return
	}
	switch route {
	case "stream":
		h.resume(w, r, chatID)
	case "stop":
		h.stop(w, r, chatID)
	case "messages":
		h.messages(w, r, chatID)
	}
}

// cutLast splits a path at its last slash.
func cutLast(path string) (before, after string, found bool) {
	i := strings.LastIndexByte(path, '/')
	if i < 0 {
		return "", path, false
	}
	return path[:i], path[i+1:], true
}

// authorized asks Authorize, answering the refusal itself.
func (h *ChatHandler) authorized(w http.ResponseWriter, r *http.Request, chatID string) bool {
	if h.opts.Authorize == nil {
		return true
	}
	err := h.opts.Authorize(r, chatID)
	if err == nil {
		return true
	}
	var re *RequestError
	if !errors.As(err, &re) {
		re = &RequestError{Status: http.StatusForbidden, Message: "this chat is not yours"}
	}
	WriteError(w, re)
	return false
}

// storeError reports a failed store operation and answers 500.
func (h *ChatHandler) storeError(w http.ResponseWriter, err error) {
	if h.opts.Stream.OnError != nil {
		h.opts.Stream.OnError(err)
	}
	WriteError(w, &RequestError{Status: http.StatusInternalServerError, Message: "the chat store failed"})
}

// resume answers useChat's resume request.
func (h *ChatHandler) resume(w http.ResponseWriter, r *http.Request, chatID string) {
	if h.opts.Resumer == nil {
		w.WriteHeader(http.StatusNoContent)
		return
	}
	chat, err := h.store.Load(r.Context(), chatID)
	if err != nil {
		h.storeError(w, err)
		return
	}
	if err := h.opts.Resumer.Serve(w, r, chat.ActiveStreamID); err != nil && r.Context().Err() == nil && h.opts.Stream.OnError != nil {
		h.opts.Stream.OnError(err)
	}
}

// maxStopBody bounds the body of a stop request.
const maxStopBody = 4 << 10

// stop stops the chat's active stream.
func (h *ChatHandler) stop(w http.ResponseWriter, r *http.Request, chatID string) {
	if h.opts.Resumer == nil {
		w.WriteHeader(http.StatusNoContent)
		return
	}
	var body struct {
		ActiveStreamID string `json:"activeStreamId"`
	}
	if b, err := io.ReadAll(io.LimitReader(r.Body, maxStopBody)); err == nil && len(bytes.TrimSpace(b)) > 0 {
		if err := json.Unmarshal(b, &body); err != nil {
			WriteError(w, &RequestError{Status: http.StatusBadRequest, Message: "the stop request's body is not the expected JSON"})
			return
		}
	}
	chat, err := h.store.Load(r.Context(), chatID)
	if err != nil {
		h.storeError(w, err)
		return
	}
	active := chat.ActiveStreamID
	if active != "" && (body.ActiveStreamID == "" || body.ActiveStreamID == active) {
		if err := h.opts.Resumer.Stop(r.Context(), active); err != nil && !errors.Is(err, ErrStreamNotFound) {
			h.storeError(w, err)
			return
		}
	}
	w.WriteHeader(http.StatusNoContent)
}

// messages answers the stored messages of a chat.
func (h *ChatHandler) messages(w http.ResponseWriter, r *http.Request, chatID string) {
	if h.store == nil {
		WriteError(w, &RequestError{Status: http.StatusNotFound, Message: "this chat handler stores no messages"})
		return
	}
	chat, err := h.store.Load(r.Context(), chatID)
	if err != nil {
		h.storeError(w, err)
		return
	}
	msgs := chat.Messages
	if msgs == nil {
		msgs = []Message{}
	}
	b, err := json.Marshal(msgs)
	if err != nil {
		h.storeError(w, err)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.Write(b)
}

// turn serves one turn of a chat.
func (h *ChatHandler) turn(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	req, err := DecodeRequest(r, &h.opts.Decode)
	if err != nil {
		WriteError(w, err)
		return
	}
	if h.store != nil && req.ID == "" {
		WriteError(w, &RequestError{Status: http.StatusBadRequest, Path: "id", Message: "the chat id is missing"})
		return
	}
	if !h.authorized(w, r, req.ID) {
		return
	}
	history := req.Messages
	var stored Chat
	if h.store != nil {
		stored, err = h.store.Load(ctx, req.ID)
		if err != nil {
			h.storeError(w, err)
			return
		}
		history = withPosted(stored.Messages, req.Messages[len(req.Messages)-1])
	}
	agentOpts := h.opts.Agent.Options()
	agentOpts.Settings.ToolApprovalSecrets = h.secrets
	tools := agentOpts.Settings.Tools
	var loaded []string
	if h.opts.KeepDiscoveredTools {
		loaded = discoveredIn(history, tools)
		agentOpts.Settings.Tools = withDiscovered(tools, loaded)
	}
	conv := h.opts.Convert
	conv.Tools = tools
	conv.ResultSecrets = h.secrets
	msgs, err := ConvertMessages(ctx, history, &conv)
	if err != nil {
		WriteError(w, &RequestError{Status: http.StatusBadRequest, Message: err.Error()})
		return
	}
	turn := &chatTurn{opts: &h.opts, loaded: loaded}
	if n := len(history); h.opts.RecordUsage && n > 0 && history[n-1].Role == RoleAssistant {
		turn.prior = usageIn(history[n-1].Metadata)
	}
	so := h.opts.Stream
	so.MessageID = h.opts.NewID()
	so.OriginalMessages = history
	so.Tools = tools
	so.ResultSecrets = h.secrets
	so.MessageMetadata = turn.metadata
	errorText := func(err error) string {
		if so.OnError != nil {
			return so.OnError(err)
		}
		return DefaultErrorText
	}
	agent := ai.NewAgent(agentOpts)
	call := ai.AgentCall{Messages: msgs}

	var streamID string
	if h.opts.Resumer != nil {
		streamID = NewID()
	}
	var saveErr error
	so.OnFinish = func(ev FinishEvent) {
		if h.store != nil {
			saveErr = h.saveEnd(context.WithoutCancel(ctx), req.ID, streamID, ev.Messages)
		}
		if h.opts.Stream.OnFinish != nil {
			h.opts.Stream.OnFinish(ev)
		}
	}
	write := func(sw *Writer, parts iter.Seq2[ai.Part, error]) error {
		if err := sw.WriteParts(turn.watch(parts), &so); err != nil {
			return err
		}
		if saveErr != nil {
			sw.Write(Error{ErrorText: errorText(saveErr)})
			return saveErr
		}
		return nil
	}

	if h.opts.Resumer == nil {
		// The stream starts before the generation, so that its tools can
		// write to it (see [FromContext]).
		sw := NewWriter(w, so.KeepAlive)
		defer sw.Close()
		res, err := agent.Stream(NewContext(ctx, sw), call)
		if err != nil {
			sw.Write(Error{ErrorText: errorText(err)})
			return
		}
		write(sw, res.Parts())
		return
	}

	err = h.opts.Resumer.launch(ctx, streamID, func(gctx context.Context) (iter.Seq2[ai.Part, error], error) {
		// The chat names its stream before the generation starts, so that
		// the save at its end comes after this one.
		if err := h.store.Save(context.WithoutCancel(ctx), req.ID, Chat{Messages: history, ActiveStreamID: streamID}); err != nil {
			return nil, err
		}
		res, err := agent.Stream(gctx, call)
		if err != nil {
			// Nothing was streamed: the chat stays as it was.
			stored.ActiveStreamID = ""
			h.store.Save(context.WithoutCancel(ctx), req.ID, stored)
			return nil, err
		}
		return res.Parts(), nil
	}, write)
	if errors.Is(err, ErrTooManyStreams) {
		WriteError(w, &RequestError{Status: http.StatusServiceUnavailable, Message: "too many answers are streaming; try again later"})
		return
	}
	if err != nil {
		sw := NewWriter(w, so.KeepAlive)
		sw.Write(Error{ErrorText: errorText(err)})
		sw.Close()
		return
	}
	if err := h.opts.Resumer.Serve(w, r, streamID); err != nil && ctx.Err() == nil && so.OnError != nil {
		so.OnError(err)
	}
}

// saveEnd saves a chat when its turn ends. With a stream, a chat whose
// record names another stream (a later turn started meanwhile) is left
// to that turn.
func (h *ChatHandler) saveEnd(ctx context.Context, chatID, streamID string, msgs []Message) error {
	if streamID != "" {
		cur, err := h.store.Load(ctx, chatID)
		if err != nil {
			return err
		}
		if cur.ActiveStreamID != "" && cur.ActiveStreamID != streamID {
			return nil
		}
	}
	return h.store.Save(ctx, chatID, Chat{Messages: msgs})
}

// withPosted puts the posted last message into the stored history. A
// message that is not stored yet is added at the end. A stored one keeps
// its stored form, with the messages after it dropped (a regenerated
// answer); from a posted assistant message only the user's answers are
// taken: approval answers to the requests the stored message holds, and
// outputs of calls it holds without a result (tools that run in the
// client). The approval's stored request, signature included, is kept.
func withPosted(stored []Message, posted Message) []Message {
	for i, m := range stored {
		if m.ID != posted.ID || m.Role != posted.Role {
			continue
		}
		out := append(slices.Clone(stored[:i]), m)
		if m.Role == RoleAssistant {
			out[i] = withAnswers(m, posted)
		}
		return out
	}
	return append(slices.Clone(stored), posted)
}

// withAnswers returns the stored message with the answers of the posted
// one.
func withAnswers(stored, posted Message) Message {
	answers := map[string]ToolPart{}
	for _, p := range posted.Parts {
		if tp, ok := p.(ToolPart); ok {
			answers[tp.ToolCallID] = tp
		}
	}
	out := cloneMessage(stored)
	for i, p := range out.Parts {
		tp, ok := p.(ToolPart)
		if !ok {
			continue
		}
		a, ok := answers[tp.ToolCallID]
		if !ok || a.ToolName != tp.ToolName || a.Dynamic != tp.Dynamic {
			continue
		}
		switch {
		case tp.State == ApprovalRequested && a.State == ApprovalResponded && tp.Approval != nil &&
			a.Approval != nil && a.Approval.ID == tp.Approval.ID && a.Approval.Approved != nil:
			ap := *tp.Approval
			ap.Approved, ap.Reason = new(*a.Approval.Approved), a.Approval.Reason
			tp.State, tp.Approval = ApprovalResponded, &ap
		case tp.State == InputAvailable && !tp.ProviderExecuted && (a.State == OutputAvailable || a.State == OutputError):
			tp.State, tp.Output, tp.ErrorText = a.State, a.Output, a.ErrorText
		default:
			continue
		}
		out.Parts[i] = tp
	}
	return out
}

// chatTurn is the per-request state of a chat handler: what the metadata
// of the response message records.
type chatTurn struct {
	opts   *ChatOptions
	prior  ai.Usage
	loaded []string
	found  []string
}

// watch passes the parts on, noting the tools that tool search found.
func (t *chatTurn) watch(parts iter.Seq2[ai.Part, error]) iter.Seq2[ai.Part, error] {
	if !t.opts.KeepDiscoveredTools {
		return parts
	}
	return func(yield func(ai.Part, error) bool) {
		for p, err := range parts {
			if r, ok := p.(ai.ToolResult); ok && !r.Preliminary {
				var found ai.ToolSearchResult
				switch out := r.Output.(type) {
				case ai.ToolSearchResult:
					found = out
				case *ai.ToolSearchResult:
					if out != nil {
						found = *out
					}
				}
				for _, c := range found.Tools {
					if !slices.Contains(t.found, c.Name) {
						t.found = append(t.found, c.Name)
					}
				}
			}
			if !yield(p, err) {
				return
			}
		}
	}
}

// metadata computes the metadata of a part: the application's, with the
// handler's records added to the finish chunk's.
func (t *chatTurn) metadata(p ai.Part) any {
	f, finish := p.(ai.Finish)
	if finish {
		f.TotalUsage = t.prior.Add(f.TotalUsage)
		p = f
	}
	var v any
	if t.opts.Stream.MessageMetadata != nil {
		v = t.opts.Stream.MessageMetadata(p)
	}
	if !finish || (!t.opts.RecordUsage && !t.opts.KeepDiscoveredTools) {
		return v
	}
	ours := map[string]any{}
	if t.opts.RecordUsage {
		ours[MetadataTotalUsage] = f.TotalUsage
	}
	if t.opts.KeepDiscoveredTools {
		names := slices.Clone(t.loaded)
		for _, n := range t.found {
			if !slices.Contains(names, n) {
				names = append(names, n)
			}
		}
		if names == nil {
			names = []string{}
		}
		ours[MetadataDiscoveredTools] = names
	}
	oursJSON, err := json.Marshal(ours)
	if err != nil {
		return v
	}
	if v == nil {
		return json.RawMessage(oursJSON)
	}
	appJSON, err := toRaw(v)
	if err != nil {
		return v // the stream reports the encoding error
	}
	merged, err := mergeJSON(appJSON, oursJSON)
	if err != nil {
		return v
	}
	return merged
}

// usageIn reads the usage recorded in a message's metadata.
func usageIn(meta json.RawMessage) ai.Usage {
	var m struct {
		Usage ai.Usage `json:"totalUsage"`
	}
	if len(meta) == 0 || json.Unmarshal(meta, &m) != nil {
		return ai.Usage{}
	}
	return m.Usage
}

// discoveredIn lists the deferred tools of tools that the assistant
// messages of history record as discovered.
func discoveredIn(history []Message, tools ai.Tools) []string {
	var names []string
	for _, m := range history {
		if m.Role != RoleAssistant || len(m.Metadata) == 0 {
			continue
		}
		var md struct {
			Names []string `json:"discoveredTools"`
		}
		if err := json.Unmarshal(m.Metadata, &md); err != nil {
			continue
		}
		for _, n := range md.Names {
			t, ok := tools.Get(n)
			if ok && t.DeferLoading() && !slices.Contains(names, n) {
				names = append(names, n)
			}
		}
	}
	return names
}

// withDiscovered returns the tools with the named deferred tools loaded
// from the start.
func withDiscovered(tools ai.Tools, names []string) ai.Tools {
	if len(names) == 0 {
		return tools
	}
	out := slices.Clone(tools)
	for i, nt := range out {
		if nt.Tool.DeferLoading() && slices.Contains(names, nt.Name) {
			out[i].Tool = ai.WithDeferLoading(nt.Tool, false)
		}
	}
	return out
}
