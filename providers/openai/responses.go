package openai

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"regexp"
	"slices"
	"strings"

	"github.com/aisdkgo/ai/internal/httpx"
	"github.com/aisdkgo/ai/internal/openaichat"
	"github.com/aisdkgo/ai/provider"
)

// responsesModel is a model reached through the Responses API. It holds only
// configuration, so it is safe for concurrent use.
type responsesModel struct {
	provider string
	modelID  string
	url      string
	headers  func() (http.Header, error)
	client   *http.Client
	newID    func() string
}

// ResponsesConfig configures a Responses API model served elsewhere than
// by OpenAI under the same protocol, for example by Azure OpenAI. Other
// provider packages build their Responses models with it.
type ResponsesConfig struct {
	// Provider is what the model's Provider method returns, for example
	// "azure.responses".
	Provider string
	// ModelID is sent as "model" (for Azure, the deployment name).
	ModelID string
	// URL is the complete endpoint, query included.
	URL string
	// Headers returns the headers of one request (authentication and the
	// like); an error stops the call before anything is sent. The call's
	// own headers are applied after them.
	Headers func() (http.Header, error)
	// Client sends requests; nil means http.DefaultClient.
	Client *http.Client
}

// NewResponsesModel returns a Responses API model configured by cfg. It
// reads ProviderOptions["openai"] and reports ProviderMetadata["openai"]
// like the models of [Provider.Responses].
func NewResponsesModel(cfg ResponsesConfig) provider.LanguageModel {
	return &responsesModel{provider: cfg.Provider, modelID: cfg.ModelID, url: cfg.URL,
		headers: cfg.Headers, client: cfg.Client, newID: openaichat.NewID}
}

// Provider returns the provider name ("openai.responses" for the models
// of [Provider]).
func (m *responsesModel) Provider() string { return m.provider }

// ModelID returns the model id.
func (m *responsesModel) ModelID() string { return m.modelID }

// SupportedURLs reports that images and PDFs may be passed by http(s) URL.
func (m *responsesModel) SupportedURLs(context.Context) (map[string][]*regexp.Regexp, error) {
	return map[string][]*regexp.Regexp{"image/*": {httpURL}, "application/pdf": {httpURL}}, nil
}

// responsesCall is a prepared request and what parsing its answer needs.
type responsesCall struct {
	body     map[string]any
	warnings []provider.Warning
	store    bool
	names    *toolNames
	// toolSearch is the application's name of the tool search tool.
	toolSearch string
	logprobs   bool
	// jsonFormat is set when the call asks for a JSON response format.
	jsonFormat bool
	// approvals maps MCP approval request ids to the tool call ids that
	// stood for them in earlier responses.
	approvals map[string]string
}

const topLogprobsMax = 20

func (m *responsesModel) prepare(opts *provider.CallOptions) (*responsesCall, error) {
	var warnings []provider.Warning
	unsupported := func(feature string) {
		warnings = append(warnings, provider.Warning{Type: "unsupported", Feature: feature})
	}
	if opts.TopK != nil {
		unsupported("topK")
	}
	if opts.Seed != nil {
		unsupported("seed")
	}
	if opts.PresencePenalty != nil {
		unsupported("presencePenalty")
	}
	if opts.FrequencyPenalty != nil {
		unsupported("frequencyPenalty")
	}
	if len(opts.StopSequences) > 0 {
		unsupported("stopSequences")
	}
	var o responsesOptions
	if _, err := openaichat.DecodeOptions(opts.ProviderOptions, providerKey, &o); err != nil {
		return nil, err
	}
	caps := openaichat.ModelCapabilities(m.modelID)
	reasoningModel := caps.ReasoningModel
	if o.ForceReasoning != nil {
		reasoningModel = *o.ForceReasoning
	}
	effort := ""
	if o.ReasoningEffort != nil {
		effort = *o.ReasoningEffort
	} else if opts.Reasoning != provider.ReasoningProviderDefault {
		effort = string(opts.Reasoning)
	}
	if effort != "" && caps.ReasoningEfforts != nil && !slices.Contains(caps.ReasoningEfforts, effort) {
		warnings = append(warnings, provider.Warning{Type: "unsupported", Feature: "reasoningEffort",
			Details: m.modelID + " only supports the following reasoning efforts: " + strings.Join(caps.ReasoningEfforts, ", ")})
		effort = ""
	}
	if o.Conversation != nil && o.PreviousResponseID != nil {
		warnings = append(warnings, provider.Warning{Type: "unsupported", Feature: "conversation",
			Details: "conversation and previousResponseId cannot be used together"})
	}

	names := newToolNames(opts.Tools)
	tools, toolChoice, toolWarnings, err := prepareTools(opts.Tools, opts.ToolChoice, o.AllowedTools, names)
	if err != nil {
		return nil, err
	}
	systemMode := "system"
	if reasoningModel {
		systemMode = "developer"
	}
	if o.SystemMessageMode != nil {
		systemMode = *o.SystemMessageMode
	}
	call := &responsesCall{store: o.store(), names: names, toolSearch: names.byID["openai.tool_search"], approvals: approvalMap(opts.Prompt)}
	call.jsonFormat = opts.ResponseFormat != nil && opts.ResponseFormat.Type == "json"
	input, inputWarnings, err := convertInput(opts.Prompt, inputContext{
		systemMode:      systemMode,
		store:           call.store,
		reasoningModel:  reasoningModel,
		conversation:    o.Conversation != nil,
		previous:        o.PreviousResponseID != nil,
		passThroughFile: o.PassThroughUnsupportedFiles,
		names:           names,
		outputSchema:    outputSchemaTools(opts.Tools),
		toolSearch:      call.toolSearch,
	})
	if err != nil {
		return nil, err
	}
	warnings = append(warnings, inputWarnings...)

	include := slices.Clone(o.Include)
	addInclude := func(v string) {
		if !slices.Contains(include, v) {
			include = append(include, v)
		}
	}
	var topLogprobs *float64
	switch lp := strings.TrimSpace(string(o.Logprobs)); lp {
	case "", "null", "false":
	case "true":
		topLogprobs = new(float64(topLogprobsMax))
	default:
		var n float64
		if err := json.Unmarshal(o.Logprobs, &n); err != nil {
			return nil, errors.New("invalid openai provider options: logprobs must be a boolean or a number")
		}
		topLogprobs = &n
	}
	if topLogprobs != nil {
		call.logprobs = true
		addInclude("message.output_text.logprobs")
	}
	if _, ok := names.byID["openai.web_search"]; ok {
		addInclude("web_search_call.action.sources")
	} else if _, ok := names.byID["openai.web_search_preview"]; ok {
		addInclude("web_search_call.action.sources")
	}
	if _, ok := names.byID["openai.code_interpreter"]; ok {
		addInclude("code_interpreter_call.outputs")
	}
	if o.Store != nil && !*o.Store && reasoningModel {
		addInclude("reasoning.encrypted_content")
	}

	body := map[string]any{"model": m.modelID, "input": input}
	put := func(key string, v any) {
		if !openaichat.IsNil(v) {
			body[key] = v
		}
	}
	put("temperature", opts.Temperature)
	put("top_p", opts.TopP)
	put("max_output_tokens", opts.MaxOutputTokens)
	text := map[string]any{}
	if rf := opts.ResponseFormat; rf != nil && rf.Type == "json" {
		if len(rf.Schema) > 0 {
			strict := true
			if o.StrictJSONSchema != nil {
				strict = *o.StrictJSONSchema
			}
			name := rf.Name
			if name == "" {
				name = "response"
			}
			schema, schemaWarnings, err := openaichat.ResponseSchema(rf.Schema)
			if err != nil {
				return nil, err
			}
			warnings = append(warnings, schemaWarnings...)
			if strict {
				var strictWarnings []provider.Warning
				schema, strictWarnings = openaichat.StrictSchema(schema)
				warnings = append(warnings, strictWarnings...)
			}
			format := map[string]any{"type": "json_schema", "strict": strict, "name": name, "schema": schema}
			if rf.Description != "" {
				format["description"] = rf.Description
			}
			text["format"] = format
		} else {
			text["format"] = map[string]any{"type": "json_object"}
		}
	}
	if o.TextVerbosity != nil {
		text["verbosity"] = *o.TextVerbosity
	}
	if len(text) > 0 {
		body["text"] = text
	}
	put("conversation", o.Conversation)
	put("max_tool_calls", o.MaxToolCalls)
	put("metadata", o.Metadata)
	put("parallel_tool_calls", o.ParallelToolCalls)
	put("previous_response_id", o.PreviousResponseID)
	put("store", o.Store)
	put("user", o.User)
	put("instructions", o.Instructions)
	put("service_tier", o.ServiceTier)
	if len(include) > 0 {
		body["include"] = include
	}
	put("prompt_cache_key", o.PromptCacheKey)
	if c := o.PromptCacheOptions; c != nil {
		pco := map[string]any{}
		for k, v := range map[string]any{"mode": c.Mode, "ttl": c.TTL, "prewarm": c.Prewarm, "comparison_response_id": c.ComparisonResponseID} {
			if !openaichat.IsNil(v) {
				pco[k] = v
			}
		}
		body["prompt_cache_options"] = pco
	}
	put("prompt_cache_retention", o.PromptCacheRetention)
	put("safety_identifier", o.SafetyIdentifier)
	put("top_logprobs", topLogprobs)
	put("truncation", o.Truncation)
	if len(o.ContextManagement) > 0 {
		var cm []any
		for _, e := range o.ContextManagement {
			entry := map[string]any{"type": e.Type}
			if e.CompactThreshold != nil {
				entry["compact_threshold"] = *e.CompactThreshold
			}
			cm = append(cm, entry)
		}
		body["context_management"] = cm
	}
	reasoning := map[string]any{}
	for k, v := range map[string]*string{"summary": o.ReasoningSummary, "mode": o.ReasoningMode, "context": o.ReasoningContext} {
		if v != nil {
			reasoning[k] = *v
		}
	}
	if effort != "" {
		reasoning["effort"] = effort
	}
	if reasoningModel {
		if len(reasoning) > 0 {
			body["reasoning"] = reasoning
		}
	} else {
		for _, f := range []struct {
			set     bool
			feature string
		}{
			{effort != "", "reasoningEffort"},
			{o.ReasoningSummary != nil, "reasoningSummary"},
			{o.ReasoningMode != nil, "reasoningMode"},
			{o.ReasoningContext != nil, "reasoningContext"},
		} {
			if f.set {
				warnings = append(warnings, provider.Warning{Type: "unsupported", Feature: f.feature,
					Details: f.feature + " is not supported for non-reasoning models"})
			}
		}
	}

	caps.ReasoningModel = reasoningModel
	d := &openaichat.Dropper{Body: body}
	d.CacheRetention(caps)
	if reasoningModel {
		d.Sampling(caps, effort)
		if caps.ReasoningEfforts != nil && topLogprobs != nil {
			delete(body, "top_logprobs")
			include = slices.DeleteFunc(include, func(s string) bool { return s == "message.output_text.logprobs" })
			if len(include) == 0 {
				delete(body, "include")
			} else {
				body["include"] = include
			}
			d.Warnings = append(d.Warnings, provider.Warning{Type: "unsupported", Feature: "logprobs", Details: "logprobs is not supported for reasoning models"})
		}
	}
	d.ServiceTier(caps, o.ServiceTier)
	warnings = append(warnings, d.Warnings...)
	if tools != nil {
		body["tools"] = tools
		body["tool_choice"] = toolChoice
	}
	call.body = body
	call.warnings = append(warnings, toolWarnings...)
	return call, nil
}

// approvalMap collects the MCP approval request ids recorded on earlier tool
// calls of the prompt.
func approvalMap(prompt []provider.Message) map[string]string {
	out := map[string]string{}
	for _, msg := range prompt {
		am, ok := openaichat.Message(msg).(provider.AssistantMessage)
		if !ok {
			continue
		}
		for _, p := range am.Content {
			if tc, ok := p.(provider.ToolCallPart); ok {
				if id := openaichat.StringOption(tc.ProviderOptions, providerKey, "approvalRequestId"); id != "" {
					out[id] = tc.ToolCallID
				}
			}
		}
	}
	return out
}

// Generate runs one non-streaming Responses API call.
func (m *responsesModel) Generate(ctx context.Context, opts *provider.CallOptions) (*provider.GenerateResult, error) {
	if opts == nil {
		opts = &provider.CallOptions{}
	}
	call, err := m.prepare(opts)
	if err != nil {
		return nil, err
	}
	headers, err := m.headers()
	if err != nil {
		return nil, err
	}
	resp, err := httpx.Post(ctx, httpx.Request{
		Client:       m.client,
		URL:          m.url,
		Headers:      openaichat.MergeHeaders(headers, http.Header(opts.Headers)),
		Body:         call.body,
		ErrorMessage: openaichat.ErrorMessage,
	})
	if err != nil {
		return nil, err
	}
	var r response
	raw, err := resp.ReadJSON(ctx, &r)
	if err != nil {
		return nil, err
	}
	if r.Error != nil {
		return nil, resp.Fail(r.Error.Message, false, raw, nil)
	}
	if r.Output == nil {
		reason := "unknown"
		if r.IncompleteDetails != nil && r.IncompleteDetails.Reason != nil {
			reason = *r.IncompleteDetails.Reason
		}
		return nil, resp.Fail("the response has no output (incomplete_details.reason: "+reason+")", false, raw, nil)
	}
	result := m.parseResponse(&r, call)
	result.Warnings = call.warnings
	result.Request = &provider.RequestInfo{URL: m.url, Body: resp.RequestBody}
	result.Response.Headers = provider.Header(resp.HTTP.Header)
	result.Response.Body = raw
	return result, nil
}

// Stream runs one streaming Responses API call.
func (m *responsesModel) Stream(ctx context.Context, opts *provider.CallOptions) (*provider.StreamResult, error) {
	if opts == nil {
		opts = &provider.CallOptions{}
	}
	call, err := m.prepare(opts)
	if err != nil {
		return nil, err
	}
	call.body["stream"] = true
	headers, err := m.headers()
	if err != nil {
		return nil, err
	}
	resp, err := httpx.Post(ctx, httpx.Request{
		Client:       m.client,
		URL:          m.url,
		Headers:      openaichat.MergeHeaders(headers, http.Header(opts.Headers)),
		Body:         call.body,
		ErrorMessage: openaichat.ErrorMessage,
	})
	if err != nil {
		return nil, err
	}
	return m.streamResponse(ctx, resp, call, opts.IncludeRawChunks)
}
