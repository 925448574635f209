package streamfold

import (
	"errors"
	"reflect"
	"testing"
	"time"

	"github.com/aisdkgo/ai/provider"
)

func TestFold(t *testing.T) {
	meta := provider.ProviderMetadata{"p": {"k": "v"}}
	endMeta := provider.ProviderMetadata{"p": {"k": "end"}}
	stamp := time.Unix(100, 0)
	call := provider.ToolCall{ToolCallID: "c1", ToolName: "weather", Input: `{"city":"Paris"}`}
	usage := provider.Usage{OutputTokens: provider.OutputTokens{Total: new(5)}}
	resp := &provider.ResponseInfo{ID: "first"}
	f := New(nil, resp)
	parts := []provider.StreamPart{
		provider.StreamStart{Warnings: []provider.Warning{{Type: "other", Message: "w"}}},
		provider.ResponseMetadata{ModelID: "m", Timestamp: stamp},
		provider.ReasoningStart{ID: "r"},
		provider.ReasoningDelta{ID: "r", Delta: "think"},
		provider.TextStart{ID: "t", ProviderMetadata: meta},
		provider.TextDelta{ID: "t", Delta: "Sun"},
		provider.ReasoningEnd{ID: "r"},
		provider.TextDelta{ID: "t", Delta: "ny"},
		provider.TextEnd{ID: "t", Citations: []provider.Citation{{CitedText: "doc"}}, ProviderMetadata: endMeta},
		call,
		provider.TextStart{ID: "u"},
		provider.TextDelta{ID: "u", Delta: "unended"},
		provider.Finish{FinishReason: provider.FinishReason{Unified: provider.FinishToolCalls, Raw: "tool_calls"}, Usage: usage},
	}
	for _, p := range parts {
		if err := f.Add(p); err != nil {
			t.Fatalf("%T: %v", p, err)
		}
	}
	if !f.Finished() {
		t.Fatal("not finished after a finish part")
	}
	got := f.Result()
	want := []provider.Content{
		provider.Reasoning{Text: "think"},
		provider.Text{Text: "Sunny", Citations: []provider.Citation{{CitedText: "doc"}}, ProviderMetadata: endMeta},
		call,
		provider.Text{Text: "unended"},
	}
	if !reflect.DeepEqual(got.Content, want) {
		t.Errorf("content %#v\nwant %#v", got.Content, want)
	}
	if got.Response.ID != "first" || got.Response.ModelID != "m" || !got.Response.Timestamp.Equal(stamp) || resp.ModelID != "" {
		t.Errorf("response %+v (the stream's own %+v must stay as it was)", got.Response, resp)
	}
	if len(got.Warnings) != 1 || got.FinishReason.Unified != provider.FinishToolCalls || *got.Usage.OutputTokens.Total != 5 {
		t.Errorf("result %+v", got)
	}
	// The result is a copy: more parts do not change it.
	_ = f.Add(provider.TextDelta{ID: "u", Delta: " more"})
	if got.Content[3].(provider.Text).Text != "unended" {
		t.Error("a later part changed a returned result")
	}
	if f.Result().Content[3].(provider.Text).Text != "unended more" {
		t.Error("the fold did not go on after Result")
	}
}

func TestFoldOrphans(t *testing.T) {
	f := New(nil, nil)
	var bad *provider.InvalidResponseDataError
	for _, p := range []provider.StreamPart{
		provider.TextDelta{ID: "x", Delta: "lost"},
		provider.TextEnd{ID: "x"},
		provider.ReasoningDelta{ID: "x", Delta: "lost"},
		provider.ReasoningEnd{ID: "x"},
	} {
		if err := f.Add(p); !errors.As(err, &bad) {
			t.Errorf("%T of a block never started: %v", p, err)
		}
	}
	// A text block does not take a reasoning block's parts, nor the other
	// way round.
	_ = f.Add(provider.TextStart{ID: "x"})
	if err := f.Add(provider.ReasoningDelta{ID: "x", Delta: "r"}); err == nil {
		t.Error("a reasoning delta went into a text block")
	}
	_ = f.Add(provider.TextDelta{ID: "x", Delta: "a"})
	_ = f.Add(provider.TextStart{ID: "x"}) // restarted: the first keeps its text
	_ = f.Add(provider.TextDelta{ID: "x", Delta: "b"})
	_ = f.Add(provider.TextEnd{ID: "x"})
	if f.Finished() {
		t.Error("finished without a finish part")
	}
	want := []provider.Content{provider.Text{Text: "a"}, provider.Text{Text: "b"}}
	if got := f.Result().Content; !reflect.DeepEqual(got, want) {
		t.Errorf("content %#v, want %#v", got, want)
	}
	if f.Result().Response != nil {
		t.Error("a response was made up")
	}
}
