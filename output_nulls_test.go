package ai_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/aisdkgo/ai"
	"github.com/aisdkgo/ai/aitest"
	"github.com/aisdkgo/ai/provider"
)

// report has optional properties (omitempty) that do not admit null, a
// pointer that does, and the same inside nested objects and arrays.
type report struct {
	City  string   `json:"city"`
	Note  string   `json:"note,omitempty"`
	High  *float64 `json:"high"`
	Level int      `json:"level,omitempty"`
	Inner struct {
		Code string `json:"code,omitempty"`
		Must string `json:"must"`
	} `json:"inner"`
	Items []struct {
		Label string `json:"label,omitempty"`
	} `json:"items"`
}

// TestOutputNullMeansAbsent checks that a null in an optional property
// whose schema does not admit null (as a model in a provider's strict mode
// answers) is read as the property's absence, in generated and streamed
// objects and array elements, while a null the schema admits stays and a
// null in a required property still fails.
func TestOutputNullMeansAbsent(t *testing.T) {
	answer := `{"city":"Oslo","note":null,"high":null,"level":null,"inner":{"code":null,"must":"m"},"items":[{"label":null},{"label":"x"}]}`
	res, err := ai.GenerateText(context.Background(), ai.GenerateTextOptions{
		Model:  aitest.NewModel(aitest.Response{Content: []provider.Content{aitest.Text(answer)}}),
		Prompt: "Weather?", Output: ai.OutputObject[report](nil),
	})
	if err != nil {
		t.Fatal(err)
	}
	got, err := ai.OutputOf[report](res)
	if err != nil {
		t.Fatal(err)
	}
	if got.City != "Oslo" || got.Note != "" || got.High != nil || got.Level != 0 || got.Inner.Must != "m" ||
		len(got.Items) != 2 || got.Items[1].Label != "x" {
		t.Fatalf("OutputOf = %+v", got)
	}
	raw, err := ai.OutputOf[json.RawMessage](res)
	if err != nil {
		t.Fatal(err)
	}
	const want = `{"city":"Oslo","high":null,"inner":{"must":"m"},"items":[{},{"label":"x"}]}`
	if string(raw) != want {
		t.Fatalf("output JSON = %s, want %s", raw, want)
	}

	// A required property that is null is still a mismatch.
	_, err = ai.GenerateText(context.Background(), ai.GenerateTextOptions{
		Model:  aitest.NewModel(aitest.Response{Content: []provider.Content{aitest.Text(`{"city":null,"high":1,"inner":{"must":"m"},"items":[]}`)}}),
		Prompt: "Weather?", Output: ai.OutputObject[report](nil),
	})
	if _, ok := err.(*ai.NoObjectGeneratedError); !ok {
		t.Fatalf("a null required property: err = %v, want *NoObjectGeneratedError", err)
	}

	// Streamed array elements are checked and emitted without the nulls.
	type elem struct {
		Name string `json:"name"`
		Tag  string `json:"tag,omitempty"`
	}
	stream, err := ai.StreamText(context.Background(), ai.StreamTextOptions{
		Model:  aitest.NewModel(aitest.Response{Chunks: textChunks(`{"elements":[{"name":"a","tag":null},`, `{"name":"b","tag":"t"}]}`)}),
		Prompt: "List.", Output: ai.OutputArray[elem](nil),
	})
	if err != nil {
		t.Fatal(err)
	}
	var values []string
	for p, err := range stream.Parts() {
		if err != nil {
			t.Fatal(err)
		}
		if e, ok := p.(ai.OutputElement); ok {
			values = append(values, string(e.Value))
		}
	}
	elems, err := ai.OutputOf[[]elem](stream)
	if err != nil || len(elems) != 2 || elems[0].Tag != "" || elems[1].Tag != "t" {
		t.Fatalf("OutputOf = %+v, %v", elems, err)
	}
	if len(values) != 2 || values[0] != `{"name":"a"}` {
		t.Fatalf("elements = %q", values)
	}
}
