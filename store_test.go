package ai

import (
	"reflect"
	"runtime"
	"testing"
	"unsafe"

	"github.com/aisdkgo/ai/provider"
)

// TestStorageBlocksFitWithoutHeader keeps the blocks a generation
// allocates within 512 bytes: larger allocations cost Go a header and more
// work each.
func TestStorageBlocksFitWithoutHeader(t *testing.T) {
	for name, size := range map[string]uintptr{
		"kept":       unsafe.Sizeof(kept{}),
		"stepStore":  unsafe.Sizeof(stepStore{}),
		"callRecord": unsafe.Sizeof(callRecord{}),
	} {
		if size > 512 {
			t.Errorf("%s is %d bytes, over 512", name, size)
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

// TestDeltaLayouts checks that the stream's deltas and the provider's have
// one layout, which textDelta and reasoningDelta rely on.
func TestDeltaLayouts(t *testing.T) {
	for _, pair := range [][2]reflect.Type{
		{reflect.TypeFor[TextDelta](), reflect.TypeFor[provider.TextDelta]()},
		{reflect.TypeFor[ReasoningDelta](), reflect.TypeFor[provider.ReasoningDelta]()},
	} {
		a, b := pair[0], pair[1]
		if a.Size() != b.Size() || a.NumField() != b.NumField() {
			t.Fatalf("%v and %v differ in size or fields", a, b)
		}
		for i := range a.NumField() {
			fa, fb := a.Field(i), b.Field(i)
			if fa.Type != fb.Type || fa.Offset != fb.Offset {
				t.Errorf("%v.%s and %v.%s differ", a, fa.Name, b, fb.Name)
			}
		}
	}
	part := provider.StreamPart(provider.TextDelta{ID: "t1", Delta: "ab", ProviderMetadata: provider.ProviderMetadata{"x": {"y": 1}}})
	got, ok := textDelta(part).(TextDelta)
	if !ok || got.ID != "t1" || got.Text != "ab" || got.ProviderMetadata["x"]["y"] != 1 {
		t.Fatalf("textDelta = %#v", got)
	}
	rpart := provider.StreamPart(provider.ReasoningDelta{ID: "r1", Delta: "hm"})
	if got, ok := reasoningDelta(rpart).(ReasoningDelta); !ok || got.ID != "r1" || got.Text != "hm" {
		t.Fatalf("reasoningDelta = %#v", got)
	}
}
