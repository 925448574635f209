package openaichat

import (
	"encoding/json"

	"github.com/aisdkgo/ai/provider"
)

// wireUsage is the usage object of a chat completion.
type wireUsage struct {
	PromptTokens        *int `json:"prompt_tokens"`
	CompletionTokens    *int `json:"completion_tokens"`
	PromptTokensDetails *struct {
		CachedTokens     *int `json:"cached_tokens"`
		CacheWriteTokens *int `json:"cache_write_tokens"`
	} `json:"prompt_tokens_details"`
	CompletionTokensDetails *struct {
		ReasoningTokens          *int `json:"reasoning_tokens"`
		AcceptedPredictionTokens *int `json:"accepted_prediction_tokens"`
		RejectedPredictionTokens *int `json:"rejected_prediction_tokens"`
	} `json:"completion_tokens_details"`
}

// convertUsage maps a chat usage object to provider usage. Prompt tokens
// include cached ones; completion tokens include reasoning ones. raw nil
// means the server reported no usage: every count stays unset.
func convertUsage(raw json.RawMessage) provider.Usage {
	if len(raw) == 0 || string(raw) == "null" {
		return provider.Usage{}
	}
	var u wireUsage
	if json.Unmarshal(raw, &u) != nil {
		return provider.Usage{Raw: raw}
	}
	prompt := intOf(u.PromptTokens)
	completion := intOf(u.CompletionTokens)
	cacheRead := 0
	var cacheWrite *int
	if d := u.PromptTokensDetails; d != nil {
		cacheRead = intOf(d.CachedTokens)
		cacheWrite = d.CacheWriteTokens
	}
	reasoning := 0
	if d := u.CompletionTokensDetails; d != nil {
		reasoning = intOf(d.ReasoningTokens)
	}
	return provider.Usage{
		InputTokens: provider.InputTokens{
			Total:      ptr(prompt),
			NoCache:    ptr(prompt - cacheRead - intOf(cacheWrite)),
			CacheRead:  ptr(cacheRead),
			CacheWrite: cacheWrite,
		},
		OutputTokens: provider.OutputTokens{
			Total:     ptr(completion),
			Text:      ptr(max(0, completion-reasoning)),
			Reasoning: ptr(reasoning),
		},
		Raw: raw,
	}
}

// predictionMetadata adds accepted and rejected prediction token counts to
// meta.
func predictionMetadata(raw json.RawMessage, meta map[string]any) {
	if len(raw) == 0 {
		return
	}
	var u wireUsage
	if json.Unmarshal(raw, &u) != nil || u.CompletionTokensDetails == nil {
		return
	}
	if v := u.CompletionTokensDetails.AcceptedPredictionTokens; v != nil {
		meta["acceptedPredictionTokens"] = *v
	}
	if v := u.CompletionTokensDetails.RejectedPredictionTokens; v != nil {
		meta["rejectedPredictionTokens"] = *v
	}
}

func ptr[T any](v T) *T { return &v }

func intOf(p *int) int {
	if p == nil {
		return 0
	}
	return *p
}
