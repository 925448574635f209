package ai_test

import (
	"context"
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/aisdkgo/ai"
	"github.com/aisdkgo/ai/aitest"
	"github.com/aisdkgo/ai/provider"
)

type city struct {
	Name string  `json:"name"`
	Temp float64 `json:"temp"`
}

func textChunks(deltas ...string) []provider.StreamPart {
	parts := []provider.StreamPart{provider.TextStart{ID: "t"}}
	for _, d := range deltas {
		parts = append(parts, provider.TextDelta{ID: "t", Delta: d})
	}
	return append(parts, provider.TextEnd{ID: "t"}, provider.Finish{FinishReason: aitest.Stop})
}

func TestOutputObjectAfterTools(t *testing.T) {
	lookup := ai.NewTool(ai.ToolDef[struct {
		City string `json:"city"`
	}, float64]{
		Execute: func(context.Context, struct {
			City string `json:"city"`
		}, ai.ToolExecutionOptions) (float64, error) {
			return 21.5, nil
		},
	})
	model := aitest.NewModel(
		aitest.Response{Content: []provider.Content{aitest.ToolCall("c1", "lookup", `{"city":"Rome"}`)}, FinishReason: aitest.ToolCalls},
		aitest.Response{Content: []provider.Content{aitest.Text(`{"name":"Rome","temp":21.5}`)}},
	)
	res, err := ai.GenerateText(context.Background(), ai.GenerateTextOptions{
		Model: model, Prompt: "Weather in Rome?", Tools: ai.Tools{{Name: "lookup", Tool: lookup}},
		StopWhen: ai.StepCountIs(5), Output: ai.OutputObject[city](&ai.OutputOptions{Name: "city"}),
	})
	if err != nil {
		t.Fatal(err)
	}
	got, err := ai.OutputOf[city](res)
	if err != nil || got != (city{"Rome", 21.5}) {
		t.Fatalf("OutputOf = %+v, %v", got, err)
	}
	// The same output decodes into another type on request.
	m, err := ai.OutputOf[map[string]any](res)
	if err != nil || m["name"] != "Rome" {
		t.Fatalf("OutputOf[map] = %v, %v", m, err)
	}
	calls := model.Calls()
	if len(calls) != 2 {
		t.Fatalf("%d calls", len(calls))
	}
	for i, c := range calls {
		rf := c.ResponseFormat
		if rf == nil || rf.Type != "json" || rf.Name != "city" {
			t.Fatalf("call %d: response format %+v", i, rf)
		}
		var s map[string]any
		if err := json.Unmarshal(rf.Schema, &s); err != nil || s["type"] != "object" {
			t.Fatalf("call %d: schema %s", i, rf.Schema)
		}
	}
}

func TestOutputFailures(t *testing.T) {
	cases := []struct {
		name   string
		output ai.Output
		resp   aitest.Response
		msg    string
	}{
		{"not JSON", ai.OutputObject[city](nil), aitest.Response{Content: []provider.Content{aitest.Text("sunny, 20 degrees")}}, "not valid JSON"},
		{"schema violation", ai.OutputObject[city](nil), aitest.Response{Content: []provider.Content{aitest.Text(`{"name":"Rome"}`)}}, "does not match"},
		{"cut off", ai.OutputObject[city](nil), aitest.Response{Content: []provider.Content{aitest.Text(`{"name":"Ro`)}, FinishReason: aitest.Length}, "not valid JSON"},
		{"no choice", ai.OutputChoice([]string{"yes", "no"}, nil), aitest.Response{Content: []provider.Content{aitest.Text(`{"result":"maybe"}`)}}, "does not match"},
		{"too many", ai.OutputArray[int](&ai.OutputOptions{MaxItems: ptr(1)}), aitest.Response{Content: []provider.Content{aitest.Text(`{"elements":[1,2]}`)}}, "at most 1"},
		{"bad element", ai.OutputArray[int](nil), aitest.Response{Content: []provider.Content{aitest.Text(`{"elements":[1,"two"]}`)}}, "element 1"},
		{"no envelope", ai.OutputArray[int](nil), aitest.Response{Content: []provider.Content{aitest.Text(`[1,2]`)}}, "elements"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			res, err := ai.GenerateText(context.Background(), ai.GenerateTextOptions{
				Model: aitest.NewModel(c.resp), Prompt: "hi", Output: c.output})
			var nog *ai.NoObjectGeneratedError
			if !errors.As(err, &nog) {
				t.Fatalf("error %v (%T), want a NoObjectGeneratedError", err, err)
			}
			if !strings.Contains(err.Error(), c.msg) {
				t.Errorf("error %q does not say %q", err, c.msg)
			}
			if nog.Text != c.resp.Content[0].(provider.Text).Text || nog.FinishReason != c.resp.FinishReason.Unified && c.resp.FinishReason.Unified != "" {
				t.Errorf("error fields %+v", nog)
			}
			if nog.Response.ID == "" {
				t.Error("the error has no response")
			}
			if res == nil || len(res.Steps) != 1 {
				t.Fatal("the result is missing")
			}
			if _, err := ai.OutputOf[json.RawMessage](res); !errors.As(err, &nog) {
				t.Errorf("OutputOf error %v", err)
			}
		})
	}
}

func ptr[T any](v T) *T { return &v }

func TestOutputKinds(t *testing.T) {
	type weather string
	gen := func(o ai.Output, text string) *ai.GenerateTextResult {
		t.Helper()
		res, err := ai.GenerateText(context.Background(), ai.GenerateTextOptions{
			Model: aitest.NewModel(aitest.Response{Content: []provider.Content{aitest.Text(text)}}), Prompt: "hi", Output: o})
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	if v, err := ai.OutputOf[[]city](gen(ai.OutputArray[city](nil), `{"elements":[{"name":"A","temp":1},{"name":"B","temp":2}]}`)); err != nil || len(v) != 2 || v[1].Name != "B" {
		t.Errorf("array: %v, %v", v, err)
	}
	if v, err := ai.OutputOf[weather](gen(ai.OutputChoice([]weather{"sunny", "rainy"}, nil), `{"result":"rainy"}`)); err != nil || v != "rainy" {
		t.Errorf("choice: %v, %v", v, err)
	}
	if v, err := ai.OutputOf[json.RawMessage](gen(ai.OutputJSON(nil), ` {"any":[1,true]} `)); err != nil || string(v) != `{"any":[1,true]}` {
		t.Errorf("json: %s, %v", v, err)
	}
	if v, err := ai.OutputOf[string](gen(ai.OutputText(), `plain`)); err != nil || v != "plain" {
		t.Errorf("text: %v, %v", v, err)
	}
	if v, err := ai.OutputOf[string](gen(nil, `plain`)); err != nil || v != "plain" {
		t.Errorf("default: %v, %v", v, err)
	}
	if _, err := ai.OutputOf[int](gen(nil, `plain`)); err == nil {
		t.Error("a text output read as an int")
	}
}

func TestOutputSchemas(t *testing.T) {
	format := func(o ai.Output) map[string]any {
		var m map[string]any
		if err := json.Unmarshal(o.ResponseFormat().Schema, &m); err != nil {
			t.Fatal(err)
		}
		return m
	}
	arr := format(ai.OutputArray[city](&ai.OutputOptions{MinItems: ptr(1), MaxItems: ptr(3)}))
	elems := arr["properties"].(map[string]any)["elements"].(map[string]any)
	if arr["$schema"] != "http://json-schema.org/draft-07/schema#" || arr["additionalProperties"] != false ||
		!reflect.DeepEqual(arr["required"], []any{"elements"}) || elems["minItems"] != 1.0 || elems["maxItems"] != 3.0 {
		t.Errorf("array schema %v", arr)
	}
	if items := elems["items"].(map[string]any); items["type"] != "object" {
		t.Errorf("items %v", items)
	}
	ch := format(ai.OutputChoice([]string{"a", "b"}, nil))
	if !reflect.DeepEqual(ch["properties"], map[string]any{"result": map[string]any{"type": "string", "enum": []any{"a", "b"}}}) {
		t.Errorf("choice schema %v", ch)
	}
	if rf := ai.OutputJSON(&ai.OutputOptions{Name: "n", Description: "d"}).ResponseFormat(); rf.Schema != nil || rf.Name != "n" || rf.Description != "d" {
		t.Errorf("json format %+v", rf)
	}
	if rf := ai.OutputText().ResponseFormat(); rf.Type != "text" {
		t.Errorf("text format %+v", rf)
	}
	_, err := ai.GenerateText(context.Background(), ai.GenerateTextOptions{Model: aitest.NewModel(), Prompt: "hi",
		Output: ai.OutputArray[int](&ai.OutputOptions{MinItems: ptr(3), MaxItems: ptr(2)})})
	var iae *ai.InvalidArgumentError
	if !errors.As(err, &iae) {
		t.Errorf("bounds: %v", err)
	}
	_, err = ai.GenerateText(context.Background(), ai.GenerateTextOptions{Model: aitest.NewModel(), Prompt: "hi",
		Output: ai.OutputObject[chan int](nil)})
	if !errors.As(err, &iae) {
		t.Errorf("uninferable type: %v", err)
	}
}

func TestOutputNoneAfterToolCalls(t *testing.T) {
	tool := ai.NewTool(ai.ToolDef[struct{}, string]{Execute: func(context.Context, struct{}, ai.ToolExecutionOptions) (string, error) { return "ok", nil }})
	res, err := ai.GenerateText(context.Background(), ai.GenerateTextOptions{
		Model:  aitest.NewModel(aitest.Response{Content: []provider.Content{aitest.ToolCall("c1", "t", `{}`)}, FinishReason: aitest.ToolCalls}),
		Prompt: "hi", Tools: ai.Tools{{Name: "t", Tool: tool}}, Output: ai.OutputObject[city](nil),
	})
	if err != nil {
		t.Fatal(err)
	}
	var noOut *ai.NoOutputGeneratedError
	if _, err := ai.OutputOf[city](res); !errors.As(err, &noOut) {
		t.Fatalf("OutputOf error %v", err)
	}
}

func TestStreamPartialObject(t *testing.T) {
	model := aitest.NewModel(aitest.Response{Chunks: textChunks(`{"na`, `me":"Ro`, `me","te`, `mp":2`, `1.`, `5}`)})
	res, err := ai.StreamText(context.Background(), ai.StreamTextOptions{Model: model, Prompt: "hi", Output: ai.OutputObject[city](nil)})
	if err != nil {
		t.Fatal(err)
	}
	var seq []string
	for p, err := range res.Parts() {
		if err != nil {
			t.Fatal(err)
		}
		switch p := p.(type) {
		case ai.TextDelta:
			seq = append(seq, "delta "+p.Delta)
		case ai.PartialOutput:
			seq = append(seq, "partial "+string(p.JSON()))
		}
	}
	want := []string{
		`delta {"na`, `partial {}`,
		`delta me":"Ro`, `partial {"name":"Ro"}`,
		`delta me","te`, `partial {"name":"Rome"}`,
		`delta mp":2`, `partial {"name":"Rome","temp":2}`,
		`delta 1.`, `partial {"name":"Rome","temp":21}`,
		`delta 5}`, `partial {"name":"Rome","temp":21.5}`,
	}
	if !reflect.DeepEqual(seq, want) {
		t.Fatalf("parts:\n%s\nwant:\n%s", strings.Join(seq, "\n"), strings.Join(want, "\n"))
	}
	got, err := ai.OutputOf[city](res)
	if err != nil || got != (city{"Rome", 21.5}) {
		t.Fatalf("OutputOf = %+v, %v", got, err)
	}
}

func TestStreamHoldsDeltasUntilTheValueChanges(t *testing.T) {
	model := aitest.NewModel(aitest.Response{Chunks: textChunks(`{"a":1`, `.`, `0`, `, "b`, `": `, `2}`, ` `)})
	res, err := ai.StreamText(context.Background(), ai.StreamTextOptions{Model: model, Prompt: "hi", Output: ai.OutputJSON(nil)})
	if err != nil {
		t.Fatal(err)
	}
	var deltas []string
	partials := 0
	for p := range res.Parts() {
		switch p := p.(type) {
		case ai.TextDelta:
			deltas = append(deltas, p.Delta)
		case ai.PartialOutput:
			partials++
		}
	}
	// "1.0" is still 1, and a key without a value adds nothing: those
	// deltas wait for the next change; the trailing space goes out at the
	// block's end.
	if want := []string{`{"a":1`, `.0, "b": 2}`, ` `}; !reflect.DeepEqual(deltas, want) || partials != 2 {
		t.Fatalf("deltas %q (%d partials), want %q", deltas, partials, want)
	}
	if text, _ := res.Text(); text != `{"a":1.0, "b": 2} ` {
		t.Fatalf("text %q", text)
	}
}

func TestStreamArrayElements(t *testing.T) {
	model := aitest.NewModel(aitest.Response{Chunks: textChunks(`{"elements":[{"name":"A","te`, `mp":1},{"name":"B",`, `"temp":2}`, `]}`)})
	res, err := ai.StreamText(context.Background(), ai.StreamTextOptions{Model: model, Prompt: "hi", Output: ai.OutputArray[city](nil)})
	if err != nil {
		t.Fatal(err)
	}
	var got []city
	for c, err := range ai.ElementStream[city](res) {
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, c)
	}
	if want := []city{{"A", 1}, {"B", 2}}; !reflect.DeepEqual(got, want) {
		t.Fatalf("elements %v, want %v", got, want)
	}
	all, err := ai.OutputOf[[]city](res)
	if err != nil || len(all) != 2 {
		t.Fatalf("OutputOf = %v, %v", all, err)
	}
}

func TestPartialOutputStream(t *testing.T) {
	model := aitest.NewModel(aitest.Response{Chunks: textChunks(`{"result":"ra`, `in`, `y"}`)})
	res, err := ai.StreamText(context.Background(), ai.StreamTextOptions{Model: model, Prompt: "hi",
		Output: ai.OutputChoice([]string{"rainy", "sunny", "rain-and-snow"}, nil)})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for v, err := range ai.PartialOutputStream[string](res) {
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, v)
	}
	// "ra" and "rain" fit two choices; "rainy" is the first to single one out.
	if want := []string{"rainy"}; !reflect.DeepEqual(got, want) {
		t.Fatalf("partials %q, want %q", got, want)
	}
}

func TestStreamOutputInvalid(t *testing.T) {
	model := aitest.NewModel(aitest.Response{Chunks: textChunks(`{"name":`, `"Rome"}`)})
	res, err := ai.StreamText(context.Background(), ai.StreamTextOptions{Model: model, Prompt: "hi", Output: ai.OutputObject[city](nil)})
	if err != nil {
		t.Fatal(err)
	}
	var last error
	for _, err := range ai.PartialOutputStream[city](res) {
		last = err
	}
	var nog *ai.NoObjectGeneratedError
	if !errors.As(last, &nog) || nog.Text != `{"name":"Rome"}` {
		t.Fatalf("stream ended with %v", last)
	}
	if _, err := res.Wait(); err != nil {
		t.Fatalf("Wait: %v (an invalid output does not fail the stream)", err)
	}
}

// finalAnswerModel answers with a draft and a final answer, and names the
// final answer as the text to parse, as the OpenAI Responses API does for
// phased output.
type finalAnswerModel struct{ aitest.Model }

func (m *finalAnswerModel) Generate(context.Context, *provider.CallOptions) (*provider.GenerateResult, error) {
	final := `{"name":"Oslo","temp":-2}`
	return &provider.GenerateResult{
		Content:              []provider.Content{aitest.Text("Checking the forecast first. "), aitest.Text(final)},
		StructuredOutputText: &final,
		FinishReason:         aitest.Stop,
	}, nil
}

func TestOutputParsesTheModelsChosenText(t *testing.T) {
	res, err := ai.GenerateText(context.Background(), ai.GenerateTextOptions{Model: &finalAnswerModel{}, Prompt: "hi",
		Output: ai.OutputObject[city](nil)})
	if err != nil {
		t.Fatal(err)
	}
	if c, err := ai.OutputOf[city](res); err != nil || c.Name != "Oslo" {
		t.Fatalf("OutputOf = %+v, %v", c, err)
	}
	// A text output is the whole text.
	res, err = ai.GenerateText(context.Background(), ai.GenerateTextOptions{Model: &finalAnswerModel{}, Prompt: "hi"})
	if err != nil {
		t.Fatal(err)
	}
	if s, _ := ai.OutputOf[string](res); !strings.HasPrefix(s, "Checking") {
		t.Fatalf("text output %q", s)
	}
}
