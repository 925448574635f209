package ai

import (
	"reflect"
	"runtime"
	"testing"
	"unsafe"

	"github.com/aisdkgo/ai/provider"
)

// TestStorageBlockSizes keeps each block a generation allocates within the
// Go size class it was laid out for: a field added carelessly would move a
// block to the next class, at a cost on every generation.
func TestStorageBlockSizes(t *testing.T) {
	for _, b := range []struct {
		name       string
		size, most uintptr
	}{
		{"kept", unsafe.Sizeof(kept{}), 576},
		{"one-part step", unsafe.Sizeof(stepBlock[oneSlots, *oneSlots]{}), 416},
		{"two-part step", unsafe.Sizeof(stepBlock[twoSlots, *twoSlots]{}), 480},
		{"three-part step", unsafe.Sizeof(stepBlock[threeSlots, *threeSlots]{}), 512},
		{"single-call step", unsafe.Sizeof(stepBlock[callSlots, *callSlots]{}), 896},
		{"callRecord", unsafe.Sizeof(callRecord{}), 384},
	} {
		if b.size > b.most {
			t.Errorf("%s is %d bytes, over %d", b.name, b.size, b.most)
		}
	}
}

func TestInPlaceSharesStorage(t *testing.T) {
	rec := new(callRecord)
	want := ToolCall{ToolCallID: "c1", ToolName: "weather", Input: []byte(`{"city":"Oslo"}`)}
	var part ContentPart
	allocs := testing.AllocsPerRun(100, func() {
		rec.used = 0
		part = rec.callContent(want)
	})
	if allocs != 0 {
		t.Errorf("callContent allocated %v times", allocs)
	}
	got, ok := part.(ToolCall)
	if !ok || got.ToolCallID != "c1" || string(got.Input) != `{"city":"Oslo"}` {
		t.Fatalf("part = %#v", part)
	}
	switch p := part.(type) {
	case ToolResult:
		t.Fatalf("type switch took ToolResult: %#v", p)
	case ToolCall:
	default:
		t.Fatalf("type switch missed ToolCall: %#v", p)
	}
	// The record is reachable only through the interface; it must survive
	// collections.
	rec = nil
	for range 3 {
		runtime.GC()
	}
	if got := part.(ToolCall); got.ToolName != "weather" || string(got.Input) != `{"city":"Oslo"}` {
		t.Fatalf("after GC: %#v", got)
	}
}

func TestCallRecordSlotsAreTakenOnce(t *testing.T) {
	rec := new(callRecord)
	first := rec.resultMessagePart(ToolResultPart{ToolCallID: "a"})
	second := rec.resultMessagePart(ToolResultPart{ToolCallID: "b"})
	if first.(ToolResultPart).ToolCallID != "a" || second.(ToolResultPart).ToolCallID != "b" {
		t.Fatalf("first %#v, second %#v", first, second)
	}
	var none *callRecord
	if got := none.textOutput(TextOutput{Value: "x"}); got.(TextOutput).Value != "x" {
		t.Fatalf("nil record: %#v", got)
	}
}

// TestSharedLayouts checks the layouts that values sharing storage rely
// on: each field of the first type is at the same offset, with the same
// type, in the second (store.go).
func TestSharedLayouts(t *testing.T) {
	for _, pair := range [][2]reflect.Type{
		{reflect.TypeFor[TextDelta](), reflect.TypeFor[provider.TextDelta]()},
		{reflect.TypeFor[ReasoningDelta](), reflect.TypeFor[provider.ReasoningDelta]()},
		{reflect.TypeFor[TextPart](), reflect.TypeFor[Text]()},
		{reflect.TypeFor[ReasoningPart](), reflect.TypeFor[Reasoning]()},
		{reflect.TypeFor[ToolCallPart](), reflect.TypeFor[ToolCall]()},
	} {
		part, whole := pair[0], pair[1]
		if part.Size() > whole.Size() {
			t.Fatalf("%v is larger than %v", part, whole)
		}
		for i := range part.NumField() {
			f := part.Field(i)
			found := false
			for j := range whole.NumField() {
				g := whole.Field(j)
				if g.Offset == f.Offset && g.Type == f.Type {
					found = true
				}
			}
			if !found {
				t.Errorf("%v.%s has no counterpart in %v", part, f.Name, whole)
			}
		}
		for _, typ := range pair {
			if typ.NumField() < 2 {
				t.Errorf("%v is pointer-shaped or empty", typ)
			}
		}
	}
	call := ContentPart(ToolCall{ToolCallID: "c1", ToolName: "w", Input: []byte(`{}`), ProviderExecuted: true, Dynamic: true,
		ProviderMetadata: ProviderMetadata{"p": {"k": 1}}, Title: "t"})
	got := callPart(call).(ToolCallPart)
	if got.ToolCallID != "c1" || got.ToolName != "w" || string(got.Input) != "{}" || !got.ProviderExecuted || got.ProviderOptions["p"]["k"] != 1 {
		t.Fatalf("callPart = %#v", got)
	}
	if tp := textPart(ContentPart(Text{Text: "hi", Citations: []Citation{{}}})).(TextPart); tp.Text != "hi" {
		t.Fatalf("textPart = %#v", tp)
	}
	if rp := reasoningPart(ContentPart(Reasoning{Text: "hm"})).(ReasoningPart); rp.Text != "hm" {
		t.Fatalf("textPart of reasoning = %#v", rp)
	}
	part := provider.StreamPart(provider.TextDelta{ID: "t1", Delta: "ab", ProviderMetadata: provider.ProviderMetadata{"x": {"y": 1}}})
	delta, ok := textDelta(part).(TextDelta)
	if !ok || delta.ID != "t1" || delta.Text != "ab" || delta.ProviderMetadata["x"]["y"] != 1 {
		t.Fatalf("textDelta = %#v", delta)
	}
	rpart := provider.StreamPart(provider.ReasoningDelta{ID: "r1", Delta: "hm"})
	if got, ok := reasoningDelta(rpart).(ReasoningDelta); !ok || got.ID != "r1" || got.Text != "hm" {
		t.Fatalf("reasoningDelta = %#v", got)
	}
}
