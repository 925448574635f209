package uistream

import (
	"context"
	"encoding/json"
	"iter"
	"net/http"
	"slices"

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
	Agent *ai.Agent
	// Decode bounds the requests; its ToolApprovalSecrets are replaced by
	// the agent's.
	Decode DecodeOptions
	// Convert configures [ConvertMessages]; its Tools and ResultSecrets are
	// set by the handler (OnForgedResult is the place to log forgeries).
	Convert ConvertOptions
	// Stream configures the response stream; its MessageID,
	// OriginalMessages, Tools and ResultSecrets are set by the handler, its
	// OnFinish is called after Persist.
	Stream Options
	// NewID returns the id of a new assistant message ([NewID] when nil).
	NewID func() string

	// Load, when set, returns the stored messages of a chat (none for a new
	// chat). The stored history then replaces what the client posted, but
	// for the posted last message: a new message is added at the end; a
	// stored one keeps its stored form and the messages after it are
	// dropped (a regenerated answer), and when it is the assistant message
	// that carries the user's approval answers (or results of tools that
	// run in the client), only those answers are taken from it. An
	// approval is then checked against the request the server stored, and
	// posting it again runs nothing: the stored call has its result.
	Load func(ctx context.Context, chatID string) ([]Message, error)
	// Persist, when set, stores a chat when its turn ends, however it ends
	// (an aborted or failed turn stores what was streamed, a turn whose
	// agent did not start nothing): the history with the response message
	// last. It runs with the request's values
	// but without its cancellation, before the stream ends; when it fails
	// the stream ends with an error chunk (text from Stream.OnError).
	Persist func(ctx context.Context, chatID string, messages []Message) error

	// RecordUsage records the usage of the assistant message in its
	// metadata under [MetadataTotalUsage], sent with the finish chunk. A
	// message that a resumed approval continues sums the usage of every
	// request that built it, and the [ai.Finish] part that
	// Stream.MessageMetadata receives carries the same sum. Without Load the
	// prior usage comes from the posted message, which the client can
	// change.
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

// NewChatHandler returns an HTTP handler that serves one chat turn per POST
// with an agent: it decodes the request ([DecodeRequest]), loads the
// stored history (Load), converts the messages ([ConvertMessages]), runs
// the agent with the request's context, streams its answer ([Write]) and
// stores the chat when the turn ends (Persist). The tools and the approval
// secrets are the agent's, given once. Values that metadata carries
// across turns are described at RecordUsage and KeepDiscoveredTools.
//
// A request that cannot be served gets an error status ([WriteError]).
// The stream starts before the agent runs, so that its tools can write
// data parts to it ([FromContext]); from then on failures are error
// chunks (texts from Stream.OnError, which also sees the errors of Load).
// An agent that cannot start stores nothing. It panics when opts.Agent is
// nil.
func NewChatHandler(opts ChatOptions) http.Handler {
	if opts.Agent == nil {
		panic("uistream: NewChatHandler needs an Agent")
	}
	if opts.NewID == nil {
		opts.NewID = NewID
	}
	opts.Decode.ToolApprovalSecrets = opts.Agent.Options().Settings.ToolApprovalSecrets
	return &chatHandler{opts: opts}
}

type chatHandler struct {
	opts ChatOptions
}

func (h *chatHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	req, err := DecodeRequest(r, &h.opts.Decode)
	if err != nil {
		WriteError(w, err)
		return
	}
	if (h.opts.Load != nil || h.opts.Persist != nil) && req.ID == "" {
		WriteError(w, &RequestError{Status: http.StatusBadRequest, Path: "id", Message: "the chat id is missing"})
		return
	}
	history := req.Messages
	if h.opts.Load != nil {
		stored, err := h.opts.Load(ctx, req.ID)
		if err != nil {
			if h.opts.Stream.OnError != nil {
				h.opts.Stream.OnError(err)
			}
			WriteError(w, err)
			return
		}
		history = withPosted(stored, req.Messages[len(req.Messages)-1])
	}
	agentOpts := h.opts.Agent.Options()
	tools := agentOpts.Settings.Tools
	var loaded []string
	if h.opts.KeepDiscoveredTools {
		loaded = discoveredIn(history, tools)
		agentOpts.Settings.Tools = withDiscovered(tools, loaded)
	}
	secrets := h.opts.Decode.ToolApprovalSecrets
	conv := h.opts.Convert
	conv.Tools = tools
	conv.ResultSecrets = secrets
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
	so.ResultSecrets = secrets
	so.MessageMetadata = turn.metadata
	var persistErr error
	so.OnFinish = func(ev FinishEvent) {
		if h.opts.Persist != nil {
			persistErr = h.opts.Persist(context.WithoutCancel(ctx), req.ID, ev.Messages)
		}
		if h.opts.Stream.OnFinish != nil {
			h.opts.Stream.OnFinish(ev)
		}
	}
	errorText := func(err error) string {
		if so.OnError != nil {
			return so.OnError(err)
		}
		return DefaultErrorText
	}

	// The stream starts before the generation, so that its tools can
	// write to it (see [FromContext]).
	sw := NewWriter(w, so.KeepAlive)
	defer sw.Close()
	res, err := ai.NewAgent(agentOpts).Stream(NewContext(ctx, sw), ai.AgentCall{Messages: msgs})
	if err != nil {
		sw.Write(Error{ErrorText: errorText(err)})
		return
	}
	if err := sw.WriteParts(turn.watch(res.Parts()), &so); err != nil {
		return
	}
	if persistErr != nil {
		sw.Write(Error{ErrorText: errorText(persistErr)})
	}
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
