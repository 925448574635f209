package google

import (
	"context"
	"fmt"
	"net/http"

	"github.com/aisdkgo/ai/internal/httpx"
	"github.com/aisdkgo/ai/provider"
)

// maxEmbeddingsPerCall is how many values one batchEmbedContents call
// takes on the Gemini API.
const maxEmbeddingsPerCall = 100

// maxVertexEmbeddingsPerCall is the same for Vertex AI's predict endpoint.
const maxVertexEmbeddingsPerCall = 250

// embeddingModel embeds text with the Gemini API (embedContent for one
// value, batchEmbedContents for several).
type embeddingModel struct {
	p       *Provider
	modelID string
}

// Provider returns "google.generative-ai".
func (m *embeddingModel) Provider() string { return "google.generative-ai" }

// ModelID returns the model id.
func (m *embeddingModel) ModelID() string { return m.modelID }

// MaxEmbeddingsPerCall returns 100.
func (m *embeddingModel) MaxEmbeddingsPerCall() int { return maxEmbeddingsPerCall }

// SupportsParallelCalls returns true.
func (m *embeddingModel) SupportsParallelCalls() bool { return true }

type embedContent struct {
	Role  string `json:"role,omitempty"`
	Parts []part `json:"parts"`
}

type embedRequest struct {
	Model                string       `json:"model"`
	Content              embedContent `json:"content"`
	OutputDimensionality int          `json:"outputDimensionality,omitempty"`
	TaskType             string       `json:"taskType,omitempty"`
}

type embeddingValues struct {
	Values httpx.Vector `json:"values"`
}

// Embed embeds opts.Values in one call.
func (m *embeddingModel) Embed(ctx context.Context, opts *provider.EmbedCallOptions) (*provider.EmbedCallResult, error) {
	if len(opts.Values) > maxEmbeddingsPerCall {
		return nil, &provider.TooManyEmbeddingValuesError{Provider: m.Provider(), ModelID: m.modelID, Max: maxEmbeddingsPerCall, Count: len(opts.Values)}
	}
	if len(opts.Values) == 0 {
		return &provider.EmbedCallResult{Embeddings: [][]float64{}}, nil
	}
	var o EmbeddingOptions
	if _, err := decodeOptions(opts.ProviderOptions, []string{"google"}, &o); err != nil {
		return nil, err
	}
	dims := o.OutputDimensionality
	if dims == 0 {
		dims = opts.Dimensions
	}
	headers, root, err := m.p.requestHeaders(http.Header(opts.Headers))
	if err != nil {
		return nil, err
	}
	model := "models/" + m.modelID
	request := func(v string, role string) embedRequest {
		return embedRequest{Model: model, Content: embedContent{Role: role, Parts: []part{{Text: text(v)}}}, OutputDimensionality: dims, TaskType: o.TaskType}
	}
	var url string
	var body any
	if len(opts.Values) == 1 {
		url = root + "/models/" + m.modelID + ":embedContent"
		body = request(opts.Values[0], "")
	} else {
		url = root + "/models/" + m.modelID + ":batchEmbedContents"
		reqs := make([]embedRequest, len(opts.Values))
		for i, v := range opts.Values {
			reqs[i] = request(v, "user")
		}
		body = map[string]any{"requests": reqs}
	}
	resp, err := httpx.Post(ctx, httpx.Request{Client: m.p.cfg.client, URL: url, Headers: headers, Body: body, ErrorMessage: errorMessage})
	if err != nil {
		return nil, addRetryHint(err)
	}
	var wire struct {
		Error      *wireError        `json:"error"`
		Embedding  *embeddingValues  `json:"embedding"`
		Embeddings []embeddingValues `json:"embeddings"`
	}
	raw, err := resp.ReadJSON(ctx, &wire)
	if err != nil {
		return nil, err
	}
	if wire.Error != nil {
		return nil, apiError(*wire.Error, url, resp.RequestBody, resp.HTTP.Header, raw)
	}
	res := &provider.EmbedCallResult{Response: &provider.ResponseInfo{Headers: provider.Header(resp.HTTP.Header), Body: raw}}
	if len(opts.Values) == 1 {
		if wire.Embedding == nil {
			return nil, &provider.InvalidResponseDataError{Data: raw, Message: "the response has no embedding"}
		}
		res.Embeddings = [][]float64{wire.Embedding.Values}
	} else {
		for _, e := range wire.Embeddings {
			res.Embeddings = append(res.Embeddings, e.Values)
		}
	}
	if len(res.Embeddings) != len(opts.Values) {
		return nil, &provider.InvalidResponseDataError{Data: raw, Message: fmt.Sprintf("expected %d embeddings, received %d", len(opts.Values), len(res.Embeddings))}
	}
	if err := checkVectors(resp, raw, res.Embeddings); err != nil {
		return nil, err
	}
	return res, nil
}

// vertexEmbeddingModel embeds text with Vertex AI's predict endpoint.
type vertexEmbeddingModel struct {
	p       *Provider
	modelID string
}

// Provider returns "google.vertex.embedding".
func (m *vertexEmbeddingModel) Provider() string { return "google.vertex.embedding" }

// ModelID returns the model id.
func (m *vertexEmbeddingModel) ModelID() string { return m.modelID }

// embedContent reports whether the model is served by embedContent, one
// value a call, instead of predict.
func (m *vertexEmbeddingModel) embedContent() bool {
	return m.modelID == "gemini-embedding-2" || m.modelID == "gemini-embedding-2-preview"
}

// MaxEmbeddingsPerCall returns 250, or 1 for the gemini-embedding-2
// models.
func (m *vertexEmbeddingModel) MaxEmbeddingsPerCall() int {
	if m.embedContent() {
		return 1
	}
	return maxVertexEmbeddingsPerCall
}

// SupportsParallelCalls returns true.
func (m *vertexEmbeddingModel) SupportsParallelCalls() bool { return true }

// Embed embeds opts.Values in one call. Usage is the sum of the values'
// token counts.
func (m *vertexEmbeddingModel) Embed(ctx context.Context, opts *provider.EmbedCallOptions) (*provider.EmbedCallResult, error) {
	if max := m.MaxEmbeddingsPerCall(); len(opts.Values) > max {
		return nil, &provider.TooManyEmbeddingValuesError{Provider: m.Provider(), ModelID: m.modelID, Max: max, Count: len(opts.Values)}
	}
	if len(opts.Values) == 0 {
		return &provider.EmbedCallResult{Embeddings: [][]float64{}}, nil
	}
	var o EmbeddingOptions
	if _, err := decodeOptions(opts.ProviderOptions, []string{"googleVertex", "vertex", "google"}, &o); err != nil {
		return nil, err
	}
	dims := o.OutputDimensionality
	if dims == 0 {
		dims = opts.Dimensions
	}
	headers, root, err := m.p.requestHeaders(http.Header(opts.Headers))
	if err != nil {
		return nil, err
	}
	if m.embedContent() {
		return m.embedOne(ctx, opts.Values[0], o, dims, headers, root)
	}
	type instance struct {
		Content  string `json:"content"`
		TaskType string `json:"task_type,omitempty"`
		Title    string `json:"title,omitempty"`
	}
	instances := make([]instance, len(opts.Values))
	for i, v := range opts.Values {
		instances[i] = instance{Content: v, TaskType: o.TaskType, Title: o.Title}
	}
	params := map[string]any{}
	if dims > 0 {
		params["outputDimensionality"] = dims
	}
	if o.AutoTruncate != nil {
		params["autoTruncate"] = *o.AutoTruncate
	}
	url := root + "/models/" + m.modelID + ":predict"
	resp, err := httpx.Post(ctx, httpx.Request{Client: m.p.cfg.client, URL: url, Headers: headers,
		Body: map[string]any{"instances": instances, "parameters": params}, ErrorMessage: errorMessage})
	if err != nil {
		return nil, addRetryHint(err)
	}
	var wire struct {
		Error       *wireError `json:"error"`
		Predictions []struct {
			Embeddings struct {
				Values     httpx.Vector `json:"values"`
				Statistics struct {
					TokenCount *int `json:"token_count"`
				} `json:"statistics"`
			} `json:"embeddings"`
		} `json:"predictions"`
	}
	raw, err := resp.ReadJSON(ctx, &wire)
	if err != nil {
		return nil, err
	}
	if wire.Error != nil {
		return nil, apiError(*wire.Error, url, resp.RequestBody, resp.HTTP.Header, raw)
	}
	if len(wire.Predictions) != len(opts.Values) {
		return nil, &provider.InvalidResponseDataError{Data: raw, Message: fmt.Sprintf("expected %d embeddings, received %d", len(opts.Values), len(wire.Predictions))}
	}
	res := &provider.EmbedCallResult{Response: &provider.ResponseInfo{Headers: provider.Header(resp.HTTP.Header), Body: raw}}
	tokens, counted := 0, true
	for _, p := range wire.Predictions {
		res.Embeddings = append(res.Embeddings, p.Embeddings.Values)
		if p.Embeddings.Statistics.TokenCount == nil {
			counted = false
		} else {
			tokens += *p.Embeddings.Statistics.TokenCount
		}
	}
	if counted {
		res.Usage.Tokens = &tokens
	}
	if err := checkVectors(resp, raw, res.Embeddings); err != nil {
		return nil, err
	}
	return res, nil
}

// embedOne embeds one value with embedContent.
func (m *vertexEmbeddingModel) embedOne(ctx context.Context, value string, o EmbeddingOptions, dims int, headers http.Header, root string) (*provider.EmbedCallResult, error) {
	config := map[string]any{}
	if dims > 0 {
		config["outputDimensionality"] = dims
	}
	if o.TaskType != "" {
		config["taskType"] = o.TaskType
	}
	if o.Title != "" {
		config["title"] = o.Title
	}
	if o.AutoTruncate != nil {
		config["autoTruncate"] = *o.AutoTruncate
	}
	url := root + "/models/" + m.modelID + ":embedContent"
	body := map[string]any{"content": embedContent{Parts: []part{{Text: text(value)}}}, "embedContentConfig": config}
	resp, err := httpx.Post(ctx, httpx.Request{Client: m.p.cfg.client, URL: url, Headers: headers, Body: body, ErrorMessage: errorMessage})
	if err != nil {
		return nil, addRetryHint(err)
	}
	var wire struct {
		Error         *wireError       `json:"error"`
		Embedding     *embeddingValues `json:"embedding"`
		UsageMetadata *struct {
			PromptTokenCount *int `json:"promptTokenCount"`
		} `json:"usageMetadata"`
	}
	raw, err := resp.ReadJSON(ctx, &wire)
	if err != nil {
		return nil, err
	}
	if wire.Error != nil {
		return nil, apiError(*wire.Error, url, resp.RequestBody, resp.HTTP.Header, raw)
	}
	if wire.Embedding == nil {
		return nil, &provider.InvalidResponseDataError{Data: raw, Message: "the response has no embedding"}
	}
	res := &provider.EmbedCallResult{Embeddings: [][]float64{wire.Embedding.Values}, Response: &provider.ResponseInfo{Headers: provider.Header(resp.HTTP.Header), Body: raw}}
	if wire.UsageMetadata != nil {
		res.Usage.Tokens = wire.UsageMetadata.PromptTokenCount
	}
	if err := checkVectors(resp, raw, res.Embeddings); err != nil {
		return nil, err
	}
	return res, nil
}

// checkVectors fails a response with an embedding that has no values.
func checkVectors(resp *httpx.Response, raw []byte, embeddings [][]float64) error {
	for _, e := range embeddings {
		if e == nil {
			const msg = "an embedding has no values"
			return resp.Fail("invalid response: "+msg, false, raw, &provider.InvalidResponseDataError{Data: raw, Message: msg})
		}
	}
	return nil
}
