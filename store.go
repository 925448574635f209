package ai

import (
	"encoding/json"
	"unsafe"

	"github.com/aisdkgo/ai/provider"
)

// This file holds the storage of what a generation returns: its result,
// steps, content and messages. The engine's working state is recycled from
// one generation to the next (see run.release); what the result refers to
// is allocated anew for each generation, in a few blocks of at most 512
// bytes (the largest allocation Go makes without a header): one for the
// generation, one per step, one per tool call.

// kept is the generation's block: the result, the first steps' pointers,
// usage counts, a few ids and the conversation (which also holds the
// response messages and, without instructions, the prompts).
type kept struct {
	res       GenerateTextResult
	stepPtrs  [4]*StepResult
	totals    [8]int
	idBuf     [3 * idLen]byte
	idsUsed   int
	userParts [1]UserPart
	msgBuf    [6]Message
}

// stepStore is a step's block: its result, room for a few content parts
// and for the parts of its response messages, and the messages themselves.
// What a step needs only while it runs (the step itself, its state, its
// calls) lives in the run and serves every step in turn.
type stepStore struct {
	res       StepResult
	total     int
	content   [3]ContentPart
	assistant [2]AssistantPart
	tool      [2]ToolPart
	asstMsg   AssistantMessage
	toolMsg   ToolMessage
}

// callRecord is a tool call's block: the call and its result as step
// content, the result's part of the tool message (the call's part of the
// assistant message shares the call's storage), the result's output for
// the model when it is text or JSON, and room for the input's bytes.
type callRecord struct {
	call       ToolCall
	result     ToolResult
	resultPart ToolResultPart
	text       TextOutput
	json       JSONOutput
	used       uint8 // the slots handed out
	input      inputArena
}

// The slots of a call record.
const (
	slotCall uint8 = 1 << iota
	slotResult
	slotResultPart
	slotOutput
)

// take reports whether the slot is free, and marks it used. A nil record
// has no free slot. Every slot is handed out once at most, whatever the
// model sends (two calls with one id, say): a value that finds its slot
// taken gets an allocation of its own.
func (rec *callRecord) take(slot uint8) bool {
	if rec == nil || rec.used&slot != 0 {
		return false
	}
	rec.used |= slot
	return true
}

// arena returns the room for the call's input bytes (nil without a
// record).
func (rec *callRecord) arena() *inputArena {
	if rec == nil {
		return nil
	}
	return &rec.input
}

// callContent returns the call as step content.
func (rec *callRecord) callContent(c ToolCall) ContentPart {
	if !rec.take(slotCall) {
		return c
	}
	rec.call = c
	return inPlace(ContentPart(ToolCall{}), &rec.call)
}

// resultContent returns the call's result as step content.
func (rec *callRecord) resultContent(r ToolResult) ContentPart {
	if !rec.take(slotResult) {
		return r
	}
	rec.result = r
	return inPlace(ContentPart(ToolResult{}), &rec.result)
}

// resultMessagePart returns the result's part of the tool message.
func (rec *callRecord) resultMessagePart(p ToolResultPart) ToolPart {
	if !rec.take(slotResultPart) {
		return p
	}
	rec.resultPart = p
	return inPlace(ToolPart(ToolResultPart{}), &rec.resultPart)
}

// textOutput returns a text output for the model.
func (rec *callRecord) textOutput(o TextOutput) ToolResultOutput {
	if !rec.take(slotOutput) {
		return o
	}
	rec.text = o
	return inPlace(ToolResultOutput(TextOutput{}), &rec.text)
}

// jsonOutput returns a JSON output for the model.
func (rec *callRecord) jsonOutput(o JSONOutput) ToolResultOutput {
	if !rec.take(slotOutput) {
		return o
	}
	rec.json = o
	return inPlace(ToolResultOutput(JSONOutput{}), &rec.json)
}

// messages returns the step's assistant and tool messages; either may be
// empty (then it is left out). It is called once per step.
func (st *stepStore) messages(dst []Message, assistant []AssistantPart, tool []ToolPart) []Message {
	if len(assistant) > 0 {
		if st == nil {
			dst = append(dst, AssistantMessage{Content: assistant})
		} else {
			st.asstMsg = AssistantMessage{Content: assistant}
			dst = append(dst, inPlace(Message(AssistantMessage{}), &st.asstMsg))
		}
	}
	if len(tool) > 0 {
		if st == nil {
			dst = append(dst, ToolMessage{Content: tool})
		} else {
			st.toolMsg = ToolMessage{Content: tool}
			dst = append(dst, inPlace(Message(ToolMessage{}), &st.toolMsg))
		}
	}
	return dst
}

// inputArena is room for the bytes of tool inputs.
type inputArena struct {
	used uint8
	buf  [40]byte
}

// take copies text into the arena and returns the copy, or nil when there
// is no room left.
func (a *inputArena) take(text string) json.RawMessage {
	if a == nil || len(text) > len(a.buf)-int(a.used) {
		return nil
	}
	n := int(a.used)
	a.used += uint8(copy(a.buf[n:], text))
	return a.buf[n:a.used:a.used]
}

// inPlace returns the value *p as an interface of type I without copying
// it to an allocation of its own: the interface refers to p's storage.
// zero is the zero value of *p's type converted to I; converting a zero
// value does not allocate, and it gives the interface its type.
//
// Interface values are never modified, so *p must not be written after
// this call; each slot of the blocks above is written once, then handed
// out. The garbage collector keeps the whole block alive while the
// interface lives.
func inPlace[I any, T any](zero I, p *T) I {
	(*[2]unsafe.Pointer)(unsafe.Pointer(&zero))[1] = unsafe.Pointer(p)
	return zero
}

// Values that are the same bytes under another type share storage instead
// of being copied: a provider's content and deltas passed on unchanged
// (the ai types convert from the provider's, so their layouts are the
// same), and the message parts whose fields are the first fields of a
// content part (TestSharedLayouts). Every type involved is a struct of
// several fields, so an interface holding one points at its storage.

// Compile-time checks that the shared types have one layout.
var (
	_ = Text(provider.Text{})
	_ = Reasoning(provider.Reasoning{})
	_ = File(provider.File{})
	_ = ReasoningFile(provider.ReasoningFile{})
	_ = Source(provider.Source{})
	_ = Custom(provider.Custom{})
)

// textDelta returns the provider's text delta held by part as a stream
// part.
func textDelta(part provider.StreamPart) Part {
	return inPlace(Part(TextDelta{}), (*TextDelta)(dataOf(part)))
}

// reasoningDelta returns the provider's reasoning delta held by part as a
// stream part.
func reasoningDelta(part provider.StreamPart) Part {
	return inPlace(Part(ReasoningDelta{}), (*ReasoningDelta)(dataOf(part)))
}

// textPart returns the assistant message part of a Text or Reasoning
// content part p, sharing its storage: TextPart and ReasoningPart are the
// first two fields of Text and the whole of Reasoning.
func textPart(p ContentPart) AssistantPart {
	if _, ok := p.(Reasoning); ok {
		return inPlace(AssistantPart(ReasoningPart{}), (*ReasoningPart)(dataOf(p)))
	}
	return inPlace(AssistantPart(TextPart{}), (*TextPart)(dataOf(p)))
}

// callPart returns the assistant message part of a ToolCall content part
// p, sharing its storage: a ToolCallPart is the first five fields of a
// ToolCall, ProviderMetadata standing for ProviderOptions.
func callPart(p ContentPart) AssistantPart {
	return inPlace(AssistantPart(ToolCallPart{}), (*ToolCallPart)(dataOf(p)))
}

// dataOf returns where an interface value's dynamic value is stored; the
// value must not be pointer-shaped.
func dataOf[I any](v I) unsafe.Pointer {
	return (*[2]unsafe.Pointer)(unsafe.Pointer(&v))[1]
}
