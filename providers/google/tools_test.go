package google_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/aisdkgo/ai"
	"github.com/aisdkgo/ai/providers/google"
)

// TestProviderToolsThroughTheLoop registers the provider tools with the ai
// package and checks what reaches the API, and that code execution comes
// back under the registered name.
func TestProviderToolsThroughTheLoop(t *testing.T) {
	var body []byte
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ = io.ReadAll(r.Body)
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"candidates":[{"content":{"role":"model","parts":[
			{"executableCode":{"language":"PYTHON","code":"print(6*7)"}},
			{"codeExecutionResult":{"outcome":"OUTCOME_OK","output":"42\n"}},
			{"text":"42"}]},"finishReason":"STOP"}]}`)
	}))
	defer srv.Close()
	p := google.New(google.WithAPIKey("k"), google.WithBaseURL(srv.URL), google.WithHTTPClient(srv.Client()))
	res, err := ai.GenerateText(context.Background(), ai.GenerateTextOptions{
		Model:  p.Model("gemini-2.5-flash"),
		Prompt: "What is 6 times 7? Compute it.",
		Tools: ai.Tools{
			{Name: "search", Tool: ai.ProviderDefined(google.GoogleSearch(google.GoogleSearchArgs{
				TimeRangeFilter: &google.TimeRange{StartTime: "2025-01-01T00:00:00Z", EndTime: "2025-02-01T00:00:00Z"}}))},
			{Name: "python", Tool: ai.ProviderDefined(google.CodeExecution())},
			{Name: "pages", Tool: ai.ProviderDefined(google.URLContext())},
		},
	})
	require.NoError(t, err)
	var sent struct {
		Tools []map[string]any `json:"tools"`
	}
	require.NoError(t, json.Unmarshal(body, &sent))
	assert.Equal(t, []map[string]any{
		{"googleSearch": map[string]any{"timeRangeFilter": map[string]any{"startTime": "2025-01-01T00:00:00Z", "endTime": "2025-02-01T00:00:00Z"}}},
		{"codeExecution": map[string]any{}},
		{"urlContext": map[string]any{}},
	}, sent.Tools)
	assert.Equal(t, "42", res.Text)
	calls, results := res.ToolCalls(), res.ToolResults()
	require.Len(t, calls, 1)
	require.Len(t, results, 1)
	assert.Equal(t, "python", calls[0].ToolName)
	assert.True(t, calls[0].ProviderExecuted)
	assert.Equal(t, "python", results[0].ToolName)
	assert.Equal(t, ai.FinishStop, res.FinishReason)
}

// TestThoughtSignaturesThroughTheLoop runs a two-step tool call on a
// Gemini 3 model with GenerateText and StreamText: the second request
// carries the signatures the first answer came with.
func TestThoughtSignaturesThroughTheLoop(t *testing.T) {
	for _, stream := range []bool{false, true} {
		var bodies [][]byte
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			b, _ := io.ReadAll(r.Body)
			bodies = append(bodies, b)
			answer := `{"candidates":[{"content":{"role":"model","parts":[
				{"text":"Let me look.","thoughtSignature":"sig-text"},
				{"functionCall":{"id":"fc-1","name":"getWeather","args":{"city":"Paris"}},"thoughtSignature":"sig-call"}]},"finishReason":"STOP"}]}`
			if len(bodies) > 1 {
				answer = `{"candidates":[{"content":{"role":"model","parts":[{"text":"Rain."}]},"finishReason":"STOP"}]}`
			}
			if stream {
				w.Header().Set("Content-Type", "text/event-stream")
				io.WriteString(w, "data: "+strings.ReplaceAll(answer, "\n", "")+"\n\n")
				return
			}
			w.Header().Set("Content-Type", "application/json")
			io.WriteString(w, answer)
		}))
		p := google.New(google.WithAPIKey("k"), google.WithBaseURL(srv.URL), google.WithHTTPClient(srv.Client()))
		opts := ai.GenerateTextOptions{
			Model:    p.Model("gemini-3-pro-preview"),
			Prompt:   "Weather in Paris?",
			StopWhen: ai.StepCountIs(3),
			Tools: ai.Tools{{Name: "getWeather", Tool: ai.NewTool(ai.ToolDef[struct {
				City string `json:"city"`
			}, string]{
				Execute: func(context.Context, struct {
					City string `json:"city"`
				}, ai.ToolExecutionOptions) (string, error) {
					return "rain", nil
				},
			})}},
		}
		var text string
		if stream {
			s, err := ai.StreamText(context.Background(), opts)
			require.NoError(t, err)
			text, err = s.Text()
			require.NoError(t, err)
		} else {
			res, err := ai.GenerateText(context.Background(), opts)
			require.NoError(t, err)
			text = res.Text
		}
		srv.Close()
		assert.Equal(t, "Rain.", text, "the text of the last step")
		require.Len(t, bodies, 2)
		var second struct {
			Contents []struct {
				Role  string           `json:"role"`
				Parts []map[string]any `json:"parts"`
			} `json:"contents"`
		}
		require.NoError(t, json.Unmarshal(bodies[1], &second))
		require.Len(t, second.Contents, 3)
		model := second.Contents[1]
		assert.Equal(t, "model", model.Role)
		require.Len(t, model.Parts, 2)
		assert.Equal(t, map[string]any{"text": "Let me look.", "thoughtSignature": "sig-text"}, model.Parts[0])
		assert.Equal(t, map[string]any{"functionCall": map[string]any{"id": "fc-1", "name": "getWeather", "args": map[string]any{"city": "Paris"}},
			"thoughtSignature": "sig-call"}, model.Parts[1], "stream %v", stream)
		assert.Equal(t, map[string]any{"functionResponse": map[string]any{"id": "fc-1", "name": "getWeather",
			"response": map[string]any{"name": "getWeather", "content": "rain"}}}, second.Contents[2].Parts[0])
	}
}
