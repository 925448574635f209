package uistream

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"iter"
	"time"

	"github.com/aisdkgo/ai"
)

// DefaultErrorText is what a stream-level error shows when
// [Options.OnError] is nil.
const DefaultErrorText = "An error occurred."

// Options configure how a [ai.StreamText] stream becomes UI message chunks.
// The zero value works: reasoning is sent, sources are not, errors are
// masked and the client keeps its own message id.
type Options struct {
	// MessageID is the id of a new assistant message, sent in the start
	// chunk (see [NewID]). Empty leaves the id to the client. It is not
	// used when OriginalMessages ends with an assistant message: the
	// stream then continues that message under its id.
	MessageID string
	// OriginalMessages are the messages the client posted. When the last
	// one is an assistant message (a resumed approval, a client-side tool
	// result), the stream continues it instead of starting a new one.
	OriginalMessages []Message
	// Tools is the tool set of the generation. With it, the dynamic flag of
	// tool chunks is taken from the tool's kind, as the client expects;
	// without it, from the parts.
	Tools ai.Tools

	// MessageMetadata, when set, is called with every part of the stream;
	// a non-nil result is sent as message metadata: inside the start and
	// finish chunks for [ai.Start] and [ai.Finish], in a message-metadata
	// chunk otherwise (before the finish-step chunk for [ai.FinishStep],
	// after the part's own chunk for any other part).
	MessageMetadata func(p ai.Part) any
	// OmitReasoning leaves reasoning and reasoning files out.
	OmitReasoning bool
	// SendSources sends source parts (they are left out by default).
	SendSources bool
	// OmitStart and OmitFinish leave the start and finish chunks out, for
	// streams that an application assembles from several parts (see
	// [Writer]).
	OmitStart  bool
	OmitFinish bool

	// ResultSecrets, when set, sign the outcome of every tool call the
	// stream reports (results and errors; the signature goes into the
	// chunk's tool metadata under [ResultSignatureKey]), so that
	// [ConvertMessages] with the same secrets can tell the results this
	// server produced from results a client invented. Use the secrets of
	// [DecodeOptions.ToolApprovalSecrets]; the first one signs.
	ResultSecrets [][]byte

	// OnError formats stream-level errors (provider errors, failed model
	// calls) for the client. When nil they show [DefaultErrorText]: their
	// text may hold internal details and never reaches the client unless
	// OnError lets it. It is also the place to log them.
	OnError func(err error) string
	// RedactToolErrors replaces the error text of failed tool calls with
	// the result of OnError. By default a failed call shows the text the
	// model receives, because the client sends it back with the history:
	// a different text would change what the model saw. Tools that must
	// not expose details should return errors with safe messages.
	RedactToolErrors bool

	// KeepAlive, when positive, makes [Write] open the stream with a
	// comment and send a keep-alive comment whenever no chunk was written
	// for that long, so that proxies do not close a quiet connection (a
	// long tool call).
	KeepAlive time.Duration

	// OnFinish, when set, is called once when the stream ends, however it
	// ends (see [FinishEvent]), with the original messages and the
	// response message: what to store as the chat. [Writer.WriteParts]
	// (and [Write]) call it after the last chunk of the generation and
	// before the end of the stream, with the chunks the writer sent while
	// the generation ran (data parts of tools included); [Chunks] calls it
	// when its range loop ends.
	OnFinish func(FinishEvent)
}

// ResponseMessageID returns the id under which a response to messages is
// streamed: the id of the last message when it is an assistant message
// (the response continues it), newID otherwise.
func ResponseMessageID(messages []Message, newID string) string {
	if n := len(messages); n > 0 && messages[n-1].Role == RoleAssistant {
		return messages[n-1].ID
	}
	return newID
}

// Chunks converts the parts of a [ai.StreamText] stream into UI message
// chunks. Breaking out of the range loop stops reading parts, which
// cancels the generation. An error of the part stream itself ends the
// chunks with an [Error] chunk.
func Chunks(parts iter.Seq2[ai.Part, error], opts *Options) iter.Seq[Chunk] {
	if opts != nil && opts.OnFinish != nil {
		return finishing(chunks(parts, opts), opts)
	}
	return chunks(parts, opts)
}

// chunks is [Chunks] without the end hook.
func chunks(parts iter.Seq2[ai.Part, error], opts *Options) iter.Seq[Chunk] {
	var o Options
	if opts != nil {
		o = *opts
	}
	return func(yield func(Chunk) bool) {
		c := converter{opts: &o, yield: yield}
		for p, err := range parts {
			if err != nil {
				c.emit(Error{ErrorText: c.errorText(err)})
				return
			}
			if !c.part(p) {
				return
			}
		}
	}
}

// converter holds the state of one conversion.
type converter struct {
	opts    *Options
	yield   func(Chunk) bool
	stopped bool
	// invalid holds the ids of invalid calls: the tool error that follows
	// such a call is not sent, its tool-input-error already says it.
	invalid map[string]bool
	// denied holds the ids of the calls reported as denied.
	denied map[string]bool
}

func (c *converter) emit(ch Chunk) bool {
	if c.stopped {
		return false
	}
	if !c.yield(ch) {
		c.stopped = true
	}
	return !c.stopped
}

func (c *converter) errorText(err error) string {
	if c.opts.OnError != nil {
		return c.opts.OnError(err)
	}
	return DefaultErrorText
}

// toolErrorText is the text of a failed call of an application tool.
func (c *converter) toolErrorText(err error) string {
	if c.opts.RedactToolErrors {
		return c.errorText(err)
	}
	if err == nil {
		return "unknown error"
	}
	return err.Error()
}

// providerToolErrorText is the text of a failed provider-executed call:
// the provider's error value, a JSON string as its content.
func providerToolErrorText(err error) string {
	var pe *ai.ProviderToolError
	if errors.As(err, &pe) {
		var s string
		if json.Unmarshal(pe.Value, &s) == nil {
			return s
		}
		return string(pe.Value)
	}
	if err == nil {
		return "unknown error"
	}
	return err.Error()
}

var (
	yes = new(true)
	no  = new(false)
)

// dynamic returns the dynamic flag of a tool chunk.
func (c *converter) dynamic(toolName string, flag bool) *bool {
	if c.opts.Tools != nil {
		if t, ok := c.opts.Tools.Get(toolName); ok {
			if t.Kind() == ai.DynamicKind {
				return yes
			}
			return nil
		}
		if flag {
			return yes
		}
		return no
	}
	if flag {
		return yes
	}
	return nil
}

// part converts one part; false means stop.
func (c *converter) part(p ai.Part) bool {
	var meta any
	if f := c.opts.MessageMetadata; f != nil {
		meta = f(p)
	}
	var ch Chunk
	switch p := p.(type) {
	case ai.Start:
		if !c.opts.OmitStart && !c.emit(Start{MessageID: ResponseMessageID(c.opts.OriginalMessages, c.opts.MessageID), MessageMetadata: meta}) {
			return false
		}
		return c.deniedByUser()
	case ai.Finish:
		if !c.opts.OmitFinish {
			ch = Finish{FinishReason: p.FinishReason, MessageMetadata: meta}
		}
		meta = nil
	case ai.StartStep:
		ch = StartStep{}
	case ai.FinishStep:
		if meta != nil && !c.emit(MessageMetadata{MessageMetadata: meta}) {
			return false
		}
		return c.emit(FinishStep{})
	case ai.Abort:
		ch = Abort{Reason: abortReason(p.Reason)}
	case ai.ErrorPart:
		ch = Error{ErrorText: c.errorText(p.Err)}

	case ai.TextStart:
		ch = TextStart{ID: p.ID, ProviderMetadata: p.ProviderMetadata}
	case ai.TextDelta:
		ch = TextDelta{ID: p.ID, Delta: p.Delta, ProviderMetadata: p.ProviderMetadata}
	case ai.TextEnd:
		te := TextEnd{ID: p.ID, ProviderMetadata: p.ProviderMetadata}
		if len(p.Citations) > 0 {
			te.Citations = p.Citations
		}
		ch = te
	case ai.ReasoningStart:
		if !c.opts.OmitReasoning {
			ch = ReasoningStart{ID: p.ID, ProviderMetadata: p.ProviderMetadata}
		}
	case ai.ReasoningDelta:
		if !c.opts.OmitReasoning {
			ch = ReasoningDelta{ID: p.ID, Delta: p.Delta, ProviderMetadata: p.ProviderMetadata}
		}
	case ai.ReasoningEnd:
		if !c.opts.OmitReasoning {
			ch = ReasoningEnd{ID: p.ID, ProviderMetadata: p.ProviderMetadata}
		}

	case ai.ToolInputStart:
		ch = ToolInputStart{
			ToolCallID: p.ID, ToolName: p.ToolName, InputEncoding: p.InputEncoding,
			ProviderExecuted: p.ProviderExecuted, ProviderMetadata: p.ProviderMetadata,
			ToolMetadata: p.ToolMetadata, Dynamic: c.dynamic(p.ToolName, p.Dynamic), Title: p.Title,
		}
	case ai.ToolInputDelta:
		ch = ToolInputDelta{ToolCallID: p.ID, InputTextDelta: p.Delta}
	case ai.ToolCall:
		if p.Invalid {
			if !p.ProviderExecuted {
				if c.invalid == nil {
					c.invalid = map[string]bool{}
				}
				c.invalid[p.ToolCallID] = true
			}
			text := c.toolErrorText(p.Error)
			if p.ProviderExecuted {
				text = c.errorText(p.Error)
			}
			ch = ToolInputError{
				ToolCallID: p.ToolCallID, ToolName: p.ToolName, Input: p.Input,
				ProviderExecuted: p.ProviderExecuted, ProviderMetadata: p.ProviderMetadata,
				ToolMetadata: c.signedMetadata(p.ToolMetadata, p.ToolCallID, p.ToolName, p.Input, OutputError, text),
				Dynamic:      c.dynamic(p.ToolName, p.Dynamic),
				ErrorText:    text, Title: p.Title,
			}
			break
		}
		ch = ToolInputAvailable{
			ToolCallID: p.ToolCallID, ToolName: p.ToolName, Input: p.Input,
			ProviderExecuted: p.ProviderExecuted, ProviderMetadata: p.ProviderMetadata,
			ToolMetadata: p.ToolMetadata, Dynamic: c.dynamic(p.ToolName, p.Dynamic), Title: p.Title,
		}
	case ai.ToolApprovalRequest:
		ch = ToolApprovalRequest{
			ApprovalID: p.ApprovalID, ToolCallID: p.ToolCall.ToolCallID,
			Reason: p.Reason, IsAutomatic: p.IsAutomatic, Signature: p.Signature,
		}
	case ai.ToolApprovalResponse:
		ch = ToolApprovalResponse{ApprovalID: p.ApprovalID, Approved: p.Approved, Reason: p.Reason, ProviderExecuted: p.ProviderExecuted}
	case ai.ToolResult:
		meta := p.ToolMetadata
		if !p.Preliminary {
			meta = c.signedMetadata(meta, p.ToolCallID, p.ToolName, p.Input, OutputAvailable, p.Output)
		}
		ch = ToolOutputAvailable{
			ToolCallID: p.ToolCallID, Output: p.Output, ProviderExecuted: p.ProviderExecuted,
			ProviderMetadata: p.ProviderMetadata, ToolMetadata: meta,
			Preliminary: p.Preliminary, Dynamic: c.dynamic(p.ToolName, p.Dynamic),
		}
	case ai.ToolError:
		if !p.ProviderExecuted && c.invalid[p.ToolCallID] {
			delete(c.invalid, p.ToolCallID)
			break
		}
		text := c.toolErrorText(p.Error)
		if p.ProviderExecuted {
			text = providerToolErrorText(p.Error)
		}
		ch = ToolOutputError{
			ToolCallID: p.ToolCallID, ErrorText: text, ProviderExecuted: p.ProviderExecuted,
			ProviderMetadata: p.ProviderMetadata,
			ToolMetadata:     c.signedMetadata(p.ToolMetadata, p.ToolCallID, p.ToolName, p.Input, OutputError, text),
			Dynamic:          c.dynamic(p.ToolName, p.Dynamic),
		}
	case ai.ToolOutputDenied:
		if !c.denied[p.ToolCallID] {
			ch = ToolOutputDenied{ToolCallID: p.ToolCallID}
		}

	case ai.Source:
		if c.opts.SendSources {
			ch = sourceChunk(p)
		}
	case ai.File:
		if url, ok := fileURL(p.MediaType, p.Data); ok {
			ch = File{MediaType: p.MediaType, URL: url, ProviderMetadata: p.ProviderMetadata}
		}
	case ai.ReasoningFile:
		if url, ok := fileURL(p.MediaType, p.Data); ok && !c.opts.OmitReasoning {
			ch = ReasoningFile{MediaType: p.MediaType, URL: url, ProviderMetadata: p.ProviderMetadata}
		}
	case ai.Custom:
		ch = Custom{Kind: p.Kind, ProviderMetadata: p.ProviderMetadata}
	}
	if ch != nil && !c.emit(ch) {
		return false
	}
	if meta != nil {
		return c.emit(MessageMetadata{MessageMetadata: meta})
	}
	return true
}

// deniedByUser reports the calls that the user denied in the message the
// stream continues. A resumed generation reports only the denials it has
// not seen a result for, but the client waits for every one of them to
// leave the approval-responded state.
func (c *converter) deniedByUser() bool {
	msgs := c.opts.OriginalMessages
	if len(msgs) == 0 || msgs[len(msgs)-1].Role != RoleAssistant {
		return true
	}
	for _, p := range msgs[len(msgs)-1].Parts {
		tp, ok := p.(ToolPart)
		if !ok || tp.State != ApprovalResponded || tp.ProviderExecuted || tp.Approval == nil ||
			tp.Approval.Approved == nil || *tp.Approval.Approved || c.denied[tp.ToolCallID] {
			continue
		}
		if c.denied == nil {
			c.denied = map[string]bool{}
		}
		c.denied[tp.ToolCallID] = true
		if !c.emit(ToolOutputDenied{ToolCallID: tp.ToolCallID}) {
			return false
		}
	}
	return true
}

// abortReason passes on the reasons the context package gives; any other
// cause of a cancellation is the application's and is not sent.
func abortReason(reason string) string {
	switch reason {
	case context.Canceled.Error(), context.DeadlineExceeded.Error():
		return reason
	}
	return ""
}

func sourceChunk(s ai.Source) Chunk {
	if s.SourceType == "document" {
		return SourceDocument{SourceID: s.ID, MediaType: s.MediaType, Title: s.Title, Filename: s.Filename, ProviderMetadata: s.ProviderMetadata}
	}
	return SourceURL{SourceID: s.ID, URL: s.URL, Title: s.Title, ProviderMetadata: s.ProviderMetadata}
}

// fileURL returns the URL under which the client gets a generated file:
// its own URL, or a data: URL of its content. Files the provider only
// keeps a reference to have no URL.
func fileURL(mediaType string, d ai.FileData) (string, bool) {
	switch d := d.(type) {
	case ai.FileURL:
		return d.URL, true
	case ai.FileBytes:
		return "data:" + mediaType + ";base64," + base64.StdEncoding.EncodeToString(d.Data), true
	case ai.FileText:
		return "data:" + mediaType + ";base64," + base64.StdEncoding.EncodeToString([]byte(d.Text)), true
	}
	return "", false
}
