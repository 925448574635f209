package openaichat

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/aisdkgo/ai/provider"
)

func TestModelCapabilities(t *testing.T) {
	tests := []struct {
		id                      string
		reasoning, nonReasoning bool
		flex, priority, gpt6    bool
		efforts                 []string
	}{
		{id: "gpt-4o", priority: true},
		{id: "gpt-4.1-nano", priority: true},
		{id: "o3", reasoning: true, flex: true, priority: true},
		{id: "o1-mini", reasoning: true},
		{id: "o4-mini", reasoning: true, flex: true, priority: true},
		{id: "gpt-5", reasoning: true, flex: true, priority: true},
		{id: "gpt-5-nano", reasoning: true, flex: true},
		{id: "gpt-5-chat-latest", priority: false},
		{id: "gpt-5.1", reasoning: true, nonReasoning: true, flex: true, priority: true},
		{id: "gpt-5.1-chat-latest", reasoning: true, nonReasoning: true, flex: true, priority: true},
		{id: "gpt-6-astra", reasoning: true, flex: true, priority: true, gpt6: true, efforts: []string{"low", "medium", "high", "xhigh", "max"}},
		{id: "gpt-6-sol", reasoning: true, flex: true, priority: true, gpt6: true, efforts: []string{"none", "low", "medium", "high", "xhigh", "max"}},
		{id: "llama3"},
	}
	for _, tt := range tests {
		c := ModelCapabilities(tt.id)
		assert.Equal(t, Capabilities{ReasoningModel: tt.reasoning, NonReasoningParameters: tt.nonReasoning,
			FlexProcessing: tt.flex, PriorityProcessing: tt.priority, GPT6: tt.gpt6, ReasoningEfforts: tt.efforts}, c, tt.id)
	}
}

func TestParseStreamError(t *testing.T) {
	tests := []struct {
		frame     string
		ok        bool
		message   string
		status    int
		retryable bool
	}{
		{`{"error":{"message":"quota","type":"insufficient_quota","code":"insufficient_quota"}}`, true, "quota", 429, false},
		{`{"type":"error","sequence_number":2,"error":{"type":"insufficient_quota","code":"insufficient_quota","message":"q","param":null}}`, true, "q", 429, false},
		{`{"type":"error","code":"rate_limit_exceeded","message":"slow","param":null}`, true, "slow", 429, true},
		{`{"type":"response.failed","response":{"error":{"code":"server_error","message":"down"}}}`, true, "down", 500, true},
		{`{"type":"response.failed","response":{"error":null}}`, false, "", 0, false},
		{`{"error":{"message":"bad","code":400}}`, true, "bad", 400, false},
		{`{"error":{"message":"bad gateway","code":"502"}}`, true, "bad gateway", 502, true},
		{`{"error":{"message":"who","type":"authentication_error"}}`, true, "who", 401, false},
		{`{"error":{"message":"no","type":"permission_denied"}}`, true, "no", 403, false},
		{`{"error":{"message":"gone","code":"model_not_found"}}`, true, "gone", 404, false},
		{`{"error":{"message":"long","code":"context_length_exceeded"}}`, true, "long", 400, false},
		{`{"error":{"message":"busy","type":"overloaded_error"}}`, true, "busy", 503, true},
		{`{"error":{"message":"late","code":"timeout"}}`, true, "late", 504, true},
		{`{"error":{"message":"??"}}`, true, "??", 500, true},
		{`{"message":"plain text without error markers"}`, false, "", 0, false},
		{`{"choices":[]}`, false, "", 0, false},
		{`{"error":null,"choices":[]}`, false, "", 0, false},
		{`not json`, false, "", 0, false},
	}
	for _, tt := range tests {
		e, ok := ParseStreamError([]byte(tt.frame))
		require.Equal(t, tt.ok, ok, tt.frame)
		if !ok {
			continue
		}
		assert.Equal(t, tt.message, e.Message, tt.frame)
		assert.Equal(t, tt.status, e.StatusCode(), tt.frame)
		assert.Equal(t, tt.retryable, e.Retryable(), tt.frame)
		apiErr := e.APIError("u", []byte("req"), nil, []byte(tt.frame))
		assert.Equal(t, tt.status, apiErr.StatusCode)
		assert.Equal(t, tt.frame, string(apiErr.ResponseBody))
	}
}

func TestErrorMessage(t *testing.T) {
	assert.Equal(t, "m", ErrorMessage([]byte(`{"error":{"message":"m","type":"t"}}`)))
	assert.Equal(t, "s", ErrorMessage([]byte(`{"error":"s"}`)))
	assert.Equal(t, "", ErrorMessage([]byte(`{"detail":"x"}`)))
	assert.Equal(t, "", ErrorMessage([]byte(`<html>`)))
}

func TestToolArguments(t *testing.T) {
	for in, want := range map[string]string{
		`{"a": 1}`:      `{"a":1}`,
		`"{\"a\":1}"`:   `{"a":1}`,
		`null`:          `{}`,
		``:              `{}`,
		`[1]`:           `{}`,
		`"not json"`:    `{}`,
		`3`:             `{}`,
		`{"nested":{}}`: `{"nested":{}}`,
	} {
		assert.Equal(t, want, ToolArguments(json.RawMessage(in)), in)
	}
}

func TestContentPieces(t *testing.T) {
	pieces := func(raw string) []contentPiece {
		var c messageContent
		if raw != "" {
			require.NoError(t, json.Unmarshal([]byte(raw), &c))
		}
		return contentPieces(c)
	}
	assert.Nil(t, pieces(""))
	assert.Nil(t, pieces(`null`))
	assert.Nil(t, pieces(`""`))
	assert.Nil(t, pieces(`3`))
	assert.Equal(t, []contentPiece{{text: "a\n\"b\""}}, pieces(`"a\n\"b\""`))
	assert.Equal(t, []contentPiece{{reasoning: true, text: "xy"}, {text: "z"}}, pieces(
		`[{"type":"thinking","thinking":[{"type":"text","text":"x"},{"type":"other"},{"type":"text","text":"y"}]},{"type":"text","text":"z"},{"type":"image"}]`))
}

func TestNormalizeSchema(t *testing.T) {
	plain := json.RawMessage(`{"type": "object"}`)
	assert.Equal(t, plain, NormalizeSchema(plain), "schemas without allOf are untouched")
	kept := NormalizeSchema(json.RawMessage(`{"allOf":[{"type":"string"},{"minLength":1}]}`))
	assert.JSONEq(t, `{"allOf":[{"type":"string"},{"minLength":1}]}`, string(kept), "real allOf lists stay")
	nested := NormalizeSchema(json.RawMessage(`{"type":"array","items":{"allOf":[{"$ref":"#/$defs/A"}],"description":"d"},"$defs":{"A":{"type":"string"}}}`))
	assert.JSONEq(t, `{"type":"array","items":{"$ref":"#/$defs/A","description":"d"},"$defs":{"A":{"type":"string"}}}`, string(nested))
	root := NormalizeSchema(json.RawMessage(`{"allOf":[{"$ref":"#/$defs/A"}],"$defs":{"A":{"type":"object","title":"A"}},"title":"Root"}`))
	assert.JSONEq(t, `{"type":"object","title":"Root","$defs":{"A":{"type":"object","title":"A"}}}`, string(root), "root keys win over the definition's")
}

// tracked runs fragments through a tracker and returns the parts it emitted.
func tracked(t *testing.T, deltas ...toolDelta) ([]provider.StreamPart, []error) {
	t.Helper()
	var parts []provider.StreamPart
	n := 0
	tr := newToolTracker(func() string { n++; return fmt.Sprintf("gen-%d", n) }, func(p provider.StreamPart) { parts = append(parts, p) })
	var errs []error
	for _, d := range deltas {
		if err := tr.add(d); err != nil {
			errs = append(errs, err)
		}
	}
	tr.finish()
	return parts, errs
}

func calls(parts []provider.StreamPart) []provider.ToolCall {
	var out []provider.ToolCall
	for _, p := range parts {
		if c, ok := p.(provider.ToolCall); ok {
			out = append(out, c)
		}
	}
	return out
}

func idx(i int) *int       { return &i }
func str(s string) *string { return &s }

func TestToolTracker(t *testing.T) {
	t.Run("fragments by index", func(t *testing.T) {
		parts, errs := tracked(t,
			toolDelta{index: idx(0), id: "a", typ: str("function"), name: str("f"), args: str("")},
			toolDelta{index: idx(0), args: str(`{"x":`)},
			toolDelta{index: idx(0), args: str(`1}`)},
		)
		assert.Empty(t, errs)
		assert.Equal(t, []provider.ToolCall{{ToolCallID: "a", ToolName: "f", Input: `{"x":1}`}}, calls(parts))
		assert.Equal(t, provider.ToolInputStart{ID: "a", ToolName: "f"}, parts[0])
		assert.Equal(t, provider.ToolInputEnd{ID: "a"}, parts[3])
	})
	t.Run("every parallel call numbered 0", func(t *testing.T) {
		parts, errs := tracked(t,
			toolDelta{index: idx(0), id: "a", name: str("f"), args: str(`{"n":1}`)},
			toolDelta{index: idx(0), id: "b", name: str("f"), args: str(`{"n":2}`)},
		)
		assert.Empty(t, errs)
		assert.Equal(t, []provider.ToolCall{{ToolCallID: "a", ToolName: "f", Input: `{"n":1}`}, {ToolCallID: "b", ToolName: "f", Input: `{"n":2}`}}, calls(parts))
	})
	t.Run("same index without ids starts a new call after a complete value", func(t *testing.T) {
		parts, _ := tracked(t,
			toolDelta{index: idx(0), name: str("f"), args: str(`{"n":1}`)},
			toolDelta{index: idx(0), name: str("f"), args: str(`{"n":2}`)},
		)
		got := calls(parts)
		require.Len(t, got, 2)
		assert.Equal(t, "gen-1", got[0].ToolCallID)
		assert.Equal(t, "gen-2", got[1].ToolCallID)
		assert.Equal(t, `{"n":2}`, got[1].Input)
	})
	t.Run("no index: the only open call continues", func(t *testing.T) {
		parts, _ := tracked(t,
			toolDelta{id: "a", name: str("f"), args: str(`{"`)},
			toolDelta{args: str(`k":1}`)},
		)
		assert.Equal(t, []provider.ToolCall{{ToolCallID: "a", ToolName: "f", Input: `{"k":1}`}}, calls(parts))
	})
	t.Run("a repeated wire id gets a fresh one", func(t *testing.T) {
		parts, _ := tracked(t,
			toolDelta{index: idx(0), id: "dup", name: str("f"), args: str(`{}`)},
			toolDelta{index: idx(1), id: "dup", name: str("g"), args: str(`{}`)},
		)
		got := calls(parts)
		require.Len(t, got, 2)
		assert.Equal(t, "dup", got[0].ToolCallID)
		assert.Equal(t, "gen-1", got[1].ToolCallID)
	})
	t.Run("calls finish in index order", func(t *testing.T) {
		parts, _ := tracked(t,
			toolDelta{index: idx(2), id: "b", name: str("g"), args: str(`{}`)},
			toolDelta{index: idx(1), id: "a", name: str("f"), args: str(`{}`)},
		)
		got := calls(parts)
		assert.Equal(t, "a", got[0].ToolCallID)
		assert.Equal(t, "b", got[1].ToolCallID)
	})
	t.Run("missing name and wrong type are errors", func(t *testing.T) {
		_, errs := tracked(t, toolDelta{index: idx(0), args: str(`{}`)}, toolDelta{index: idx(1), name: str("f"), typ: str("custom")})
		require.Len(t, errs, 2)
		var invalid *provider.InvalidResponseDataError
		assert.ErrorAs(t, errs[0], &invalid)
	})
	t.Run("ambiguous fragments are dropped", func(t *testing.T) {
		parts, errs := tracked(t,
			toolDelta{id: "a", name: str("f"), args: str(`{"a":`)},
			toolDelta{id: "b", name: str("g"), args: str(`{"b":`)},
			toolDelta{args: str(`1}`)},
		)
		assert.Empty(t, errs)
		got := calls(parts)
		assert.Equal(t, `{"a":`, got[0].Input)
		assert.Equal(t, `{"b":`, got[1].Input)
	})
	t.Run("blank names are ignored", func(t *testing.T) {
		parts, errs := tracked(t, toolDelta{index: idx(0), id: "a", name: str("  ")})
		assert.Empty(t, errs)
		assert.Empty(t, parts)
	})
}

func TestArgShape(t *testing.T) {
	for text, complete := range map[string]bool{
		`{"a":1}`:         true,
		` [1,{"b":"}"}] `: true,
		`{"a":"\"}"`:      false,
		`{"a":{}`:         false,
		`"str"`:           false,
		`{]`:              false,
		`{"a":"\\"}`:      true,
		``:                false,
	} {
		var s argShape
		for _, r := range text { // feed one byte at a time
			s.add(string(r))
		}
		assert.Equal(t, complete, s.complete(), text)
	}
}
