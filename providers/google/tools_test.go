package google_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
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
