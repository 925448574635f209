package ai

import (
	"encoding/json"
	"unsafe"

	"github.com/aisdkgo/ai/provider"
)

// This file holds the storage of what a generation returns: its result,
// steps, content and messages. The engine's working state is recycled from
// one generation to the next (see run.release); what the result refers to
// is allocated anew for each generation, in a few blocks laid out to fill
// Go's size classes (TestStorageBlockSizes): one for the generation, one
// per step and one per tool call, or one for a step and its single call.

// kept is the generation's block: the result, the first steps' pointers,
// usage counts, a few ids, the conversation (which also holds the response
// messages and, without instructions, the prompts) and a string prompt's
// message.
type kept struct {
	res       GenerateTextResult
	stepPtrs  [4]*StepResult
	totals    [8]int
	idBuf     [3 * idLen]byte
	idsUsed   int
	userParts [1]UserPart
	msgBuf    [6]Message
	// The prompt's message and text, when the prompt is a string.
	userText TextPart
	userMsg  UserMessage
}

// A step's block is allocated when the step ends, in the size its content
// needs (or, for a response that is a single tool call, when it arrives,
// with the call's record): its result, its content, the parts of its
// response messages and the messages themselves. What a step needs only while it runs (the step
// itself, its state, its calls, its content so far) lives in the run and
// serves every step in turn.

// stepHead is what every step's block holds.
type stepHead struct {
	res     StepResult
	total   int
	asstMsg AssistantMessage
}

// stepRoom is the room of a step's block: its content and message parts
// (empty, with the block's capacity) and its tool message.
type stepRoom struct {
	head      *stepHead
	content   []ContentPart
	assistant []AssistantPart
	tool      []ToolPart
	toolMsg   *ToolMessage // nil when the block has none
	// rec is the record of the step's one tool call, when the block was
	// made with it (see callSlots); nil once taken.
	rec *callRecord
}

// The layouts of a step's block beyond its head, from a single part (a
// text answer) to a few parts with calls and results.
type (
	oneSlots struct {
		content   [1]ContentPart
		assistant [1]AssistantPart
	}
	twoSlots struct {
		toolMsg   ToolMessage
		content   [2]ContentPart
		assistant [1]AssistantPart
		tool      [1]ToolPart
	}
	threeSlots struct {
		toolMsg   ToolMessage
		content   [3]ContentPart
		assistant [2]AssistantPart
		tool      [2]ToolPart
	}
	// callSlots are those of a step whose response is a single tool call
	// (its content, the call and its outcome), made with the call's
	// record when the response arrives whole, as in GenerateText.
	callSlots struct {
		twoSlots
		rec callRecord
	}
)

func (x *oneSlots) room() stepRoom {
	return stepRoom{content: x.content[:0], assistant: x.assistant[:0]}
}

func (x *twoSlots) room() stepRoom {
	return stepRoom{content: x.content[:0], assistant: x.assistant[:0], tool: x.tool[:0], toolMsg: &x.toolMsg}
}

func (x *threeSlots) room() stepRoom {
	return stepRoom{content: x.content[:0], assistant: x.assistant[:0], tool: x.tool[:0], toolMsg: &x.toolMsg}
}

func (x *callSlots) room() stepRoom {
	r := x.twoSlots.room()
	r.rec = &x.rec
	return r
}

// stepBlock is a step's block with the slots S.
type stepBlock[S any, P interface {
	*S
	room() stepRoom
}] struct {
	head  stepHead
	slots S
}

// newBlock allocates a step's block with the slots S and returns its room.
func newBlock[S any, P interface {
	*S
	room() stepRoom
}]() stepRoom {
	b := new(stepBlock[S, P])
	r := P(&b.slots).room()
	r.head = &b.head
	return r
}

// newStepRoom allocates the block of a step with n content parts.
func newStepRoom(n int) stepRoom {
	switch {
	case n <= 1:
		return newBlock[oneSlots]()
	case n == 2:
		return newBlock[twoSlots]()
	}
	return newBlock[threeSlots]()
}

// callRecord is a tool call's block: the call and its result as step
// content, the result's part of the tool message (the call's part of the
// assistant message shares the call's storage), the result's output for
// the model when it is text, and room for the input's bytes.
type callRecord struct {
	call       ToolCall
	result     ToolResult
	resultPart ToolResultPart
	text       TextOutput
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

// messages appends the step's assistant and tool messages to dst; either
// is left out when it has no parts. It is called once per block.
func (room stepRoom) messages(dst []Message, assistant []AssistantPart, tool []ToolPart) []Message {
	if len(assistant) > 0 {
		room.head.asstMsg = AssistantMessage{Content: assistant}
		dst = append(dst, inPlace(Message(AssistantMessage{}), &room.head.asstMsg))
	}
	if len(tool) > 0 {
		if room.toolMsg == nil {
			dst = append(dst, ToolMessage{Content: tool})
		} else {
			*room.toolMsg = ToolMessage{Content: tool}
			dst = append(dst, inPlace(Message(ToolMessage{}), room.toolMsg))
		}
	}
	return dst
}

// inputArena is room for the bytes of tool inputs.
type inputArena struct {
	used uint8
	buf  [54]byte
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

// textPart returns the assistant message part of a Text content part p,
// sharing its storage: a TextPart is the first two fields of a Text.
func textPart(p ContentPart) AssistantPart {
	return inPlace(AssistantPart(TextPart{}), (*TextPart)(dataOf(p)))
}

// reasoningPart returns the assistant message part of a Reasoning content
// part p, sharing its storage: the two types have one layout.
func reasoningPart(p ContentPart) AssistantPart {
	return inPlace(AssistantPart(ReasoningPart{}), (*ReasoningPart)(dataOf(p)))
}

// callPart returns the assistant message part of a ToolCall content part
// p, sharing its storage: a ToolCallPart is the first five fields of a
// ToolCall, ProviderMetadata standing for ProviderOptions.
func callPart(p ContentPart) AssistantPart {
	return inPlace(AssistantPart(ToolCallPart{}), (*ToolCallPart)(dataOf(p)))
}

// noCall is the call of a result whose call is not found; it is only read.
var noCall ToolCall

// dataOf returns where an interface value's dynamic value is stored; the
// value must not be pointer-shaped.
func dataOf[I any](v I) unsafe.Pointer {
	return (*[2]unsafe.Pointer)(unsafe.Pointer(&v))[1]
}
