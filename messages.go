package ai

import (
	"encoding/json"
	"maps"
	"slices"

	"github.com/aisdkgo/ai/provider"
)

// Messages and their parts are the provider contract's types; the aliases
// let applications stay in package ai. Messages marshal to and from the JSON
// shape of the TypeScript AI SDK, so a conversation can be stored and
// resumed (see [UnmarshalMessages]).
type (
	// Message is a conversation message: [SystemMessage], [UserMessage],
	// [AssistantMessage] or [ToolMessage].
	Message = provider.Message
	// SystemMessage holds instructions.
	SystemMessage = provider.SystemMessage
	// UserMessage is what the user said.
	UserMessage = provider.UserMessage
	// AssistantMessage is what the model said.
	AssistantMessage = provider.AssistantMessage
	// ToolMessage carries tool results.
	ToolMessage = provider.ToolMessage

	// UserPart is a part of a user message.
	UserPart = provider.UserPart
	// AssistantPart is a part of an assistant message.
	AssistantPart = provider.AssistantPart
	// ToolPart is a part of a tool message.
	ToolPart = provider.ToolPart

	// TextPart is text in a message.
	TextPart = provider.TextPart
	// FilePart is a file in a message.
	FilePart = provider.FilePart
	// ReasoningPart is reasoning in an assistant message.
	ReasoningPart = provider.ReasoningPart
	// ReasoningFilePart is a reasoning file in an assistant message.
	ReasoningFilePart = provider.ReasoningFilePart
	// CustomPart is provider-specific content.
	CustomPart = provider.CustomPart
	// ToolCallPart is a tool call in an assistant message.
	ToolCallPart = provider.ToolCallPart
	// ToolResultPart is a tool result.
	ToolResultPart = provider.ToolResultPart
	// ToolApprovalRequestPart records a call that waited for approval.
	ToolApprovalRequestPart = provider.ToolApprovalRequestPart
	// ToolApprovalResponsePart answers an approval request.
	ToolApprovalResponsePart = provider.ToolApprovalResponsePart

	// ToolResultOutput is what the model is told about a tool call.
	ToolResultOutput = provider.ToolResultOutput
	// TextOutput is a text tool result.
	TextOutput = provider.TextOutput
	// JSONOutput is a JSON tool result.
	JSONOutput = provider.JSONOutput
	// ExecutionDeniedOutput reports a denied tool call.
	ExecutionDeniedOutput = provider.ExecutionDeniedOutput
	// ErrorTextOutput reports a failed tool call as text.
	ErrorTextOutput = provider.ErrorTextOutput
	// ErrorJSONOutput reports a failed tool call as JSON.
	ErrorJSONOutput = provider.ErrorJSONOutput
	// ContentOutput is a tool result made of text, files and custom parts.
	ContentOutput = provider.ContentOutput
	// ContentOutputPart is a part of a ContentOutput.
	ContentOutputPart = provider.ContentOutputPart

	// FileData holds a file's content or says where it is.
	FileData = provider.FileData
	// FileBytes is a file's content.
	FileBytes = provider.FileBytes
	// FileURL points at a file.
	FileURL = provider.FileURL
	// FileReference names a file stored with a provider.
	FileReference = provider.FileReference
	// FileText is a text file's content.
	FileText = provider.FileText

	// ProviderOptions carry provider-specific settings.
	ProviderOptions = provider.ProviderOptions
	// ProviderMetadata carries provider-specific output data.
	ProviderMetadata = provider.ProviderMetadata
	// ToolChoice says whether and which tools the model should call.
	ToolChoice = provider.ToolChoice
	// Warning reports a setting a provider could not honour.
	Warning = provider.Warning
)

// The tool choice types; see [ToolChoice].
const (
	ToolChoiceAuto     = provider.ToolChoiceAuto
	ToolChoiceNone     = provider.ToolChoiceNone
	ToolChoiceRequired = provider.ToolChoiceRequired
	ToolChoiceTool     = provider.ToolChoiceTool
)

// RequireTool returns the tool choice that demands a call of the named tool.
func RequireTool(name string) ToolChoice {
	return ToolChoice{Type: ToolChoiceTool, ToolName: name}
}

// UserText returns a user message holding text.
func UserText(text string) UserMessage {
	return UserMessage{Content: []UserPart{TextPart{Text: text}}}
}

// UnmarshalMessages decodes a JSON array of messages, for example a stored
// conversation.
func UnmarshalMessages(data []byte) ([]Message, error) {
	return provider.UnmarshalMessages(data)
}

// promptBuilder builds the prompts of a generation's steps: instructions
// first, then the messages with approval requests, non-provider approval
// responses and empty text parts removed, and consecutive tool messages
// merged. Messages that need no change are shared, not copied: without
// instructions, while no message needs a change, the prompt is the
// messages themselves. Building fails when a tool call has no result
// before the conversation moves on. Each step's messages extend the
// previous step's, so only the new messages are converted and appended;
// the prompts of earlier steps are never modified.
type promptBuilder struct {
	instructions []SystemMessage // what out starts with
	src          []Message       // the messages converted so far
	out          []provider.Message
	// aliased is set while out is a prefix of src (same storage): every
	// message so far is passed on unchanged.
	aliased    bool
	next       []Message // the messages being converted
	handed     int       // len(out) when it was last returned
	pending    []string  // client tool calls without a result yet
	pendingBuf [4]string
	// programCalls are the ids of paused code mode programs' calls seen so
	// far: neither they nor their results (a person's input) are sent.
	programCalls []string
}

// build returns the prompt of instructions and messages.
func (b *promptBuilder) build(instructions []SystemMessage, messages []Message) ([]provider.Message, error) {
	if !b.extends(instructions, messages) {
		b.instructions, b.src, b.out, b.handed, b.aliased = instructions, nil, nil, 0, false
		b.pending = b.pendingBuf[:0]
		b.programCalls = nil
		if len(instructions) == 0 && len(messages) > 0 {
			b.out, b.aliased = messages[:0], true
		} else {
			// Room for the messages of a few more steps.
			b.out = make([]provider.Message, 0, len(instructions)+len(messages)+6)
		}
		for _, m := range instructions {
			b.out = append(b.out, m)
		}
	}
	b.next = messages
	for _, msg := range messages[len(b.src):] {
		if err := b.add(msg); err != nil {
			b.out = nil
			return nil, err
		}
	}
	b.src = messages
	if len(b.pending) > 0 {
		ids := slices.Clone(b.pending)
		b.out = nil
		return nil, &MissingToolResultsError{ToolCallIDs: ids}
	}
	out := b.out
	if t, ok := lastTool(out); ok && len(t.Content) == 0 {
		// An empty tool message is kept only to merge with the next one.
		out = out[:len(out)-1]
	}
	b.handed = len(out)
	return slices.Clip(out), nil
}

// own gives the builder storage of its own once the prompt departs from
// the messages.
func (b *promptBuilder) own() {
	if b.aliased {
		b.out = append(make([]provider.Message, 0, len(b.out)+8), b.out...)
		b.aliased, b.handed = false, 0
	}
}

// extends reports whether messages extend what the builder converted, after
// the same instructions.
func (b *promptBuilder) extends(instructions []SystemMessage, messages []Message) bool {
	if b.out == nil || len(instructions) != len(b.instructions) || len(messages) < len(b.src) {
		return false
	}
	if len(instructions) > 0 && &instructions[0] != &b.instructions[0] {
		return false
	}
	return len(b.src) == 0 || &messages[0] == &b.src[0]
}

// add converts one message and appends it.
func (b *promptBuilder) add(msg Message) error {
	// A message that needs no change is passed on as the same interface
	// value, without copying or boxing it again.
	changed := false
	switch m := msg.(type) {
	case nil:
		return &InvalidPromptError{Message: "a message is nil"}
	case ToolMessage:
		if c, ok := cleanTool(m, b.programCalls); ok {
			m, msg, changed = c, c, true
		}
		for _, p := range m.Content {
			if r, ok := p.(ToolResultPart); ok {
				b.pending = removeString(b.pending, r.ToolCallID)
			}
		}
		if last, ok := lastTool(b.out); ok {
			b.own()
			b.set(len(b.out)-1, mergeTool(last, m))
			return nil
		}
		b.push(msg, changed)
		return nil
	case UserMessage:
		if c, ok := cleanUser(m); ok {
			msg, changed = c, true
		}
	case AssistantMessage:
		for _, p := range m.Content {
			if c, ok := p.(ToolCallPart); ok && isProgramCall(c) {
				b.programCalls = append(b.programCalls, c.ToolCallID)
			}
		}
		if c, ok := cleanAssistant(m); ok {
			m, msg, changed = c, c, true
		}
		for _, p := range m.Content {
			if c, ok := p.(ToolCallPart); ok && !c.ProviderExecuted {
				b.pending = append(b.pending, c.ToolCallID)
			}
		}
	}
	if _, isAssistant := msg.(AssistantMessage); !isAssistant && len(b.pending) > 0 {
		return &MissingToolResultsError{ToolCallIDs: slices.Clone(b.pending)}
	}
	if t, ok := lastTool(b.out); ok && len(t.Content) == 0 {
		b.own()
		b.out = b.out[:len(b.out)-1]
		if b.handed > len(b.out) {
			b.handed = len(b.out)
		}
	}
	b.push(msg, changed)
	return nil
}

// push appends a converted message; changed says whether it differs from
// the message it came from.
func (b *promptBuilder) push(msg Message, changed bool) {
	if b.aliased && !changed {
		// The message is the next one of the messages, whose storage out
		// shares.
		b.out = b.next[:len(b.out)+1]
		return
	}
	b.own()
	b.out = append(b.out, msg)
}

// set replaces out[i], copying out first when a returned prompt holds it.
func (b *promptBuilder) set(i int, m provider.Message) {
	if i < b.handed {
		b.out = slices.Grow(slices.Clone(b.out[:len(b.out):len(b.out)]), 4)
		b.handed = 0
	}
	b.out[i] = m
}

func removeString(list []string, s string) []string {
	for i, x := range list {
		if x == s {
			return append(list[:i], list[i+1:]...)
		}
	}
	return list
}

func lastTool(out []provider.Message) (ToolMessage, bool) {
	if len(out) == 0 {
		return ToolMessage{}, false
	}
	t, ok := out[len(out)-1].(ToolMessage)
	return t, ok
}

// mergeTool appends b's parts to a; a's message-level provider options move
// onto its last part.
func mergeTool(a, b ToolMessage) ToolMessage {
	content := make([]ToolPart, 0, len(a.Content)+len(b.Content))
	content = append(content, a.Content...)
	po := b.ProviderOptions
	if n := len(content); n > 0 && a.ProviderOptions != nil {
		content[n-1] = withPartOptions(content[n-1], a.ProviderOptions)
	} else if n == 0 {
		po = mergeOptions(a.ProviderOptions, b.ProviderOptions)
	}
	content = append(content, b.Content...)
	return ToolMessage{Content: content, ProviderOptions: po}
}

func withPartOptions(p ToolPart, extra ProviderOptions) ToolPart {
	switch p := p.(type) {
	case ToolResultPart:
		p.ProviderOptions = mergeOptions(extra, p.ProviderOptions)
		return p
	case ToolApprovalResponsePart:
		p.ProviderOptions = mergeOptions(extra, p.ProviderOptions)
		return p
	}
	return p
}

// mergeOptions merges b over a, one level deep per provider.
func mergeOptions(a, b ProviderOptions) ProviderOptions {
	if a == nil {
		return b
	}
	if b == nil {
		return a
	}
	out := make(ProviderOptions, len(a)+len(b))
	for k, v := range a {
		out[k] = maps.Clone(v)
	}
	for k, v := range b {
		if out[k] == nil {
			out[k] = map[string]any{}
		}
		maps.Copy(out[k], v)
	}
	return out
}

func cleanUser(m UserMessage) (UserMessage, bool) {
	if _, plain := plainText(m); plain {
		// A plain text message is sent as it is, even when empty.
		return m, false
	}
	c, changed := keepParts(m.Content, func(p UserPart) bool {
		t, ok := p.(TextPart)
		return !ok || t.Text != ""
	})
	m.Content = c
	return m, changed
}

func cleanAssistant(m AssistantMessage) (AssistantMessage, bool) {
	c, changed := keepParts(m.Content, func(p AssistantPart) bool {
		switch p := p.(type) {
		case TextPart:
			return p.Text != "" || p.ProviderOptions != nil
		case ToolApprovalRequestPart:
			return false
		case ToolCallPart:
			// A paused call of a code mode program was made by the
			// program, not the model.
			return !isProgramCall(p)
		}
		return true
	})
	m.Content = c
	return m, changed
}

// cleanTool drops the approval responses the loop handled itself and keeps
// those of provider-executed calls, without the flag (the provider learns
// the decision, as in the reference's prompt).
func cleanTool(m ToolMessage, programCalls []string) (ToolMessage, bool) {
	c, changed := keepParts(m.Content, func(p ToolPart) bool {
		switch p := p.(type) {
		case ToolApprovalResponsePart:
			return p.ProviderExecuted
		case ToolResultPart:
			// The output of a code call whose program paused is for the
			// application (the call waits for its final result), and the
			// result of a paused program's call is a person's input to it.
			_, paused := pausedOutput(p.Output)
			return !paused && !slices.Contains(programCalls, p.ToolCallID)
		}
		return true
	})
	for i, p := range c {
		if r, ok := p.(ToolApprovalResponsePart); ok && r.ProviderExecuted {
			if !changed {
				c = slices.Clone(c)
				changed = true
			}
			r.ProviderExecuted = false
			c[i] = r
		}
	}
	m.Content = c
	return m, changed
}

// keepParts returns the parts keep accepts and whether any was dropped; it
// returns parts itself, without copying, when none is.
func keepParts[T any](parts []T, keep func(T) bool) ([]T, bool) {
	i := 0
	for i < len(parts) && keep(parts[i]) {
		i++
	}
	if i == len(parts) {
		return parts, false
	}
	out := make([]T, 0, len(parts)-1)
	out = append(out, parts[:i]...)
	for _, p := range parts[i+1:] {
		if keep(p) {
			out = append(out, p)
		}
	}
	return out, true
}

// jsonValue marshals v, mapping failures to null.
func jsonValue(v any) json.RawMessage {
	if raw, ok := v.(json.RawMessage); ok && raw != nil {
		return raw
	}
	b, err := json.Marshal(v)
	if err != nil {
		return json.RawMessage("null")
	}
	return b
}
