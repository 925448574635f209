package anthropic

import (
	"encoding/json"

	"github.com/aisdkgo/ai/provider"
)

// wireUsage is the usage object of a response, of message_start and of
// message_delta (where every field is optional).
type wireUsage struct {
	InputTokens              *int `json:"input_tokens"`
	OutputTokens             *int `json:"output_tokens"`
	CacheCreationInputTokens *int `json:"cache_creation_input_tokens"`
	CacheReadInputTokens     *int `json:"cache_read_input_tokens"`
	OutputTokensDetails      *struct {
		ThinkingTokens *int `json:"thinking_tokens"`
	} `json:"output_tokens_details"`
	Iterations []wireIteration `json:"iterations"`
}

// wireIteration is one sampling iteration of a turn (compaction, advisor,
// server-side fallback).
type wireIteration struct {
	Type                     string  `json:"type"`
	Model                    *string `json:"model"`
	InputTokens              int     `json:"input_tokens"`
	OutputTokens             int     `json:"output_tokens"`
	CacheCreationInputTokens *int    `json:"cache_creation_input_tokens"`
	CacheReadInputTokens     *int    `json:"cache_read_input_tokens"`
}

// usageTotals accumulates the counts of a response.
type usageTotals struct {
	input, output            int
	cacheCreation, cacheRead int
	thinking                 *int
	iterations               []wireIteration
	hasIterations            bool
	// cacheCreationReported is the last cache_creation_input_tokens value
	// the response reported, for the provider metadata.
	cacheCreationReported *int
	// reported is false until some usage arrived.
	reported bool
}

// merge applies the fields u reports.
func (t *usageTotals) merge(u wireUsage) {
	t.reported = t.reported || u.InputTokens != nil || u.OutputTokens != nil ||
		u.CacheCreationInputTokens != nil || u.CacheReadInputTokens != nil
	if u.InputTokens != nil {
		t.input = *u.InputTokens
	}
	if u.OutputTokens != nil {
		t.output = *u.OutputTokens
	}
	if u.CacheCreationInputTokens != nil {
		t.cacheCreation = *u.CacheCreationInputTokens
		t.cacheCreationReported = intPtr(*u.CacheCreationInputTokens)
	}
	if u.CacheReadInputTokens != nil {
		t.cacheRead = *u.CacheReadInputTokens
	}
	if u.OutputTokensDetails != nil && u.OutputTokensDetails.ThinkingTokens != nil {
		v := *u.OutputTokensDetails.ThinkingTokens
		t.thinking = &v
	}
	if u.Iterations != nil {
		t.iterations, t.hasIterations = u.Iterations, true
	}
}

// usage converts the totals; all counts are nil when none were reported.
// Anthropic's input_tokens counts only the input
// that was neither read from nor written to the cache, so the total input
// adds both cache counts. When the turn had several executor iterations
// (compaction), their counts are summed instead of the top-level ones;
// advisor iterations bill separately and are left out, and a turn served by a
// fallback model already reports the served answer at the top level.
func (t *usageTotals) usage(raw json.RawMessage) provider.Usage {
	if !t.reported {
		return provider.Usage{Raw: raw}
	}
	input, output := t.input, t.output
	fallback := false
	for _, it := range t.iterations {
		if it.Type == "fallback_message" {
			fallback = true
		}
	}
	if len(t.iterations) > 0 && !fallback {
		sumIn, sumOut, n := 0, 0, 0
		for _, it := range t.iterations {
			if it.Type == "compaction" || it.Type == "message" {
				sumIn += it.InputTokens
				sumOut += it.OutputTokens
				n++
			}
		}
		if n > 0 {
			input, output = sumIn, sumOut
		}
	}
	total := input + t.cacheCreation + t.cacheRead
	u := provider.Usage{
		InputTokens: provider.InputTokens{
			Total:      intPtr(total),
			NoCache:    intPtr(input),
			CacheRead:  intPtr(t.cacheRead),
			CacheWrite: intPtr(t.cacheCreation),
		},
		OutputTokens: provider.OutputTokens{Total: intPtr(output)},
		Raw:          raw,
	}
	if t.thinking != nil {
		u.OutputTokens.Reasoning = intPtr(*t.thinking)
		u.OutputTokens.Text = intPtr(output - *t.thinking)
	}
	return u
}

func intPtr(v int) *int { return &v }

// finishReason maps a stop_reason. jsonTool is true when the JSON response
// tool answered, in which case a tool_use stop is a normal stop.
func finishReason(raw string, jsonTool bool) provider.FinishReason {
	r := provider.FinishReason{Raw: raw}
	switch raw {
	case "end_turn", "stop_sequence", "pause_turn":
		r.Unified = provider.FinishStop
	case "tool_use":
		r.Unified = provider.FinishToolCalls
		if jsonTool {
			r.Unified = provider.FinishStop
		}
	case "max_tokens", "model_context_window_exceeded":
		r.Unified = provider.FinishLength
	case "refusal":
		r.Unified = provider.FinishContentFilter
	default:
		r.Unified = provider.FinishOther
	}
	return r
}

// continuationStop reports stop reasons after which the model goes on (a
// tool hand-off or a paused turn), so text so far is not the final answer.
func continuationStop(raw string) bool {
	return raw == "pause_turn" || raw == "tool_use"
}

// callMetadata holds what goes into the "anthropic" provider metadata of a
// call.
type callMetadata struct {
	rawUsage          any
	totals            *usageTotals
	stopSequence      *string
	stopDetails       json.RawMessage
	container         json.RawMessage
	contextManagement json.RawMessage
}

func (c callMetadata) metadata() provider.ProviderMetadata {
	m := map[string]any{
		"usage":                    c.rawUsage,
		"cacheCreationInputTokens": nil,
		"stopSequence":             nil,
		"iterations":               nil,
		"container":                nil,
		"contextManagement":        nil,
	}
	if c.totals != nil && c.totals.cacheCreationReported != nil {
		m["cacheCreationInputTokens"] = *c.totals.cacheCreationReported
	}
	if c.stopSequence != nil {
		m["stopSequence"] = *c.stopSequence
	}
	if d := stopDetailsMetadata(c.stopDetails); d != nil {
		m["stopDetails"] = d
	}
	if c.totals != nil && c.totals.hasIterations {
		list := make([]map[string]any, 0, len(c.totals.iterations))
		for _, it := range c.totals.iterations {
			e := map[string]any{"type": it.Type, "inputTokens": it.InputTokens, "outputTokens": it.OutputTokens}
			if it.Model != nil {
				e["model"] = *it.Model
			}
			if it.CacheCreationInputTokens != nil && *it.CacheCreationInputTokens != 0 {
				e["cacheCreationInputTokens"] = *it.CacheCreationInputTokens
			}
			if it.CacheReadInputTokens != nil && *it.CacheReadInputTokens != 0 {
				e["cacheReadInputTokens"] = *it.CacheReadInputTokens
			}
			list = append(list, e)
		}
		m["iterations"] = list
	}
	if cm := containerMetadata(c.container); cm != nil {
		m["container"] = cm
	}
	if cm := contextManagementMetadata(c.contextManagement); cm != nil {
		m["contextManagement"] = cm
	}
	return provider.ProviderMetadata{providerName: m}
}

func stopDetailsMetadata(raw json.RawMessage) map[string]any {
	var d struct {
		Type             string  `json:"type"`
		Category         *string `json:"category"`
		Explanation      *string `json:"explanation"`
		RecommendedModel *string `json:"recommended_model"`
	}
	if len(raw) == 0 || json.Unmarshal(raw, &d) != nil || d.Type == "" {
		return nil
	}
	m := map[string]any{"type": d.Type}
	if d.Category != nil {
		m["category"] = *d.Category
	}
	if d.Explanation != nil {
		m["explanation"] = *d.Explanation
	}
	if d.RecommendedModel != nil {
		m["recommendedModel"] = *d.RecommendedModel
	}
	return m
}

func containerMetadata(raw json.RawMessage) map[string]any {
	var c struct {
		ID        string `json:"id"`
		ExpiresAt string `json:"expires_at"`
		Skills    []struct {
			Type    string `json:"type"`
			SkillID string `json:"skill_id"`
			Version string `json:"version"`
		} `json:"skills"`
	}
	if len(raw) == 0 || json.Unmarshal(raw, &c) != nil || c.ID == "" {
		return nil
	}
	m := map[string]any{"expiresAt": c.ExpiresAt, "id": c.ID, "skills": nil}
	if c.Skills != nil {
		skills := make([]map[string]any, 0, len(c.Skills))
		for _, s := range c.Skills {
			skills = append(skills, map[string]any{"type": s.Type, "skillId": s.SkillID, "version": s.Version})
		}
		m["skills"] = skills
	}
	return m
}

func contextManagementMetadata(raw json.RawMessage) map[string]any {
	var cm struct {
		AppliedEdits []struct {
			Type                 string `json:"type"`
			ClearedToolUses      *int   `json:"cleared_tool_uses"`
			ClearedThinkingTurns *int   `json:"cleared_thinking_turns"`
			ClearedInputTokens   *int   `json:"cleared_input_tokens"`
		} `json:"applied_edits"`
	}
	if len(raw) == 0 || json.Unmarshal(raw, &cm) != nil || cm.AppliedEdits == nil {
		return nil
	}
	edits := []map[string]any{}
	for _, e := range cm.AppliedEdits {
		switch e.Type {
		case "clear_tool_uses_20250919":
			edits = append(edits, map[string]any{"type": e.Type, "clearedToolUses": optInt(e.ClearedToolUses), "clearedInputTokens": optInt(e.ClearedInputTokens)})
		case "clear_thinking_20251015":
			edits = append(edits, map[string]any{"type": e.Type, "clearedThinkingTurns": optInt(e.ClearedThinkingTurns), "clearedInputTokens": optInt(e.ClearedInputTokens)})
		case "compact_20260112":
			edits = append(edits, map[string]any{"type": e.Type})
		}
	}
	return map[string]any{"appliedEdits": edits}
}
