package providertest

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/aisdkgo/ai"
	"github.com/aisdkgo/ai/provider"
	"github.com/aisdkgo/ai/providers/openai"
)

// forecast has fields a strict schema cannot leave out of "required".
type forecast struct {
	City  string   `json:"city"`
	Note  string   `json:"note,omitempty"`
	High  *float64 `json:"high"`
	Rainy bool     `json:"rainy"`
}

// strictForecast is the schema sent for forecast in strict mode: every
// property required, the optional note nullable, the object closed. The
// pointer field admits null already.
const strictForecast = `{"type":"object","properties":{"city":{"type":"string"},"note":{"type":["string","null"]},
	"high":{"type":["null","number"]},"rainy":{"type":"boolean"}},"required":["city","high","rainy","note"],"additionalProperties":false}`

// TestStrictSchemaWithOptionalFields sends a structured-output request
// for a struct with omitempty and pointer fields to OpenAI, whose strict
// mode requires every property: the schema sent makes every property
// required and the optional ones nullable, and an answer with nulls
// decodes into the struct as if the optional fields were left out.
func TestStrictSchemaWithOptionalFields(t *testing.T) {
	cases := []struct {
		name  string
		model func(url string) provider.LanguageModel
		// format finds the response format in a request body.
		format func(body map[string]any) map[string]any
		answer string
	}{
		{"responses", func(u string) provider.LanguageModel {
			return openai.New(openai.WithAPIKey("k"), openai.WithBaseURL(u)).Responses("gpt-4.1")
		}, func(b map[string]any) map[string]any {
			return b["text"].(map[string]any)["format"].(map[string]any)
		}, `{"id":"resp_1","object":"response","created_at":1,"status":"completed","model":"gpt-4.1","output":[{"type":"message","id":"m1","role":"assistant","status":"completed","content":[{"type":"output_text","text":"{\"city\":\"Oslo\",\"note\":null,\"high\":null,\"rainy\":true}","annotations":[]}]}],"usage":{"input_tokens":1,"output_tokens":1,"total_tokens":2}}`},
		{"chat", func(u string) provider.LanguageModel {
			return openai.New(openai.WithAPIKey("k"), openai.WithBaseURL(u)).Chat("gpt-4.1")
		}, func(b map[string]any) map[string]any {
			return b["response_format"].(map[string]any)["json_schema"].(map[string]any)
		}, `{"id":"c1","object":"chat.completion","created":1,"model":"gpt-4.1","choices":[{"index":0,"message":{"role":"assistant","content":"{\"city\":\"Oslo\",\"note\":null,\"high\":null,\"rainy\":true}"},"finish_reason":"stop"}],"usage":{"prompt_tokens":1,"completion_tokens":1,"total_tokens":2}}`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var mu sync.Mutex
			var recorded []byte
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				b, _ := io.ReadAll(r.Body)
				mu.Lock()
				recorded = b
				mu.Unlock()
				w.Header().Set("Content-Type", "application/json")
				_, _ = io.WriteString(w, c.answer)
			}))
			defer srv.Close()
			res, err := ai.GenerateText(context.Background(), ai.GenerateTextOptions{
				Model: c.model(srv.URL), Prompt: "Weather?", Output: ai.OutputObject[forecast](nil),
			})
			require.NoError(t, err)
			assert.Empty(t, res.Warnings())

			mu.Lock()
			var body map[string]any
			require.NoError(t, json.Unmarshal(recorded, &body))
			mu.Unlock()
			format := c.format(body)
			assert.Equal(t, true, format["strict"])
			schema, err := json.Marshal(format["schema"])
			require.NoError(t, err)
			assert.JSONEq(t, strictForecast, string(schema), "the schema as sent")

			got, err := ai.OutputOf[forecast](res)
			require.NoError(t, err)
			assert.Equal(t, forecast{City: "Oslo", Rainy: true}, got)
			raw, err := ai.OutputOf[json.RawMessage](res)
			require.NoError(t, err)
			assert.Equal(t, `{"city":"Oslo","high":null,"rainy":true}`, string(raw), "the null of the optional note reads as its absence")
		})
	}
}
