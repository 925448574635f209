package anthropic

import (
	"regexp"
	"strings"
)

// capabilities describes what a model accepts; it drives defaults and the
// adjustments made to a request before it is sent.
type capabilities struct {
	// maxOutputTokens is the model's output limit and the default max_tokens.
	maxOutputTokens int
	// structuredOutput: output_config.format and strict tools are accepted.
	structuredOutput bool
	// rejectsSampling: temperature, top_k and top_p are rejected.
	rejectsSampling bool
	// rejectsDisabledAboveHigh: thinking "disabled" is rejected at efforts
	// above "high".
	rejectsDisabledAboveHigh bool
	// rejectsDisabled: thinking is always on; "disabled" is rejected.
	rejectsDisabled bool
	// rejectsBudget: thinking "enabled" with a budget is rejected.
	rejectsBudget bool
	// rejectsForcedToolUse: tool_choice "any" and named tools are rejected.
	rejectsForcedToolUse bool
	// betweenTools: thinking "between_tools" is accepted.
	betweenTools bool
	// adaptive: thinking "adaptive" is accepted.
	adaptive bool
	// xhighEffort: effort "xhigh" is accepted.
	xhighEffort bool
	// known is false for model ids this table does not recognise.
	known bool
}

var legacyClaude = regexp.MustCompile(`claude-(?:instant(?:-|$)|v?2(?:$|[-.:])|3(?:$|[-.]))`)

// modelCapabilities looks a model id up by family. The order of the checks
// matters: more specific families come first.
func modelCapabilities(id string) capabilities {
	// Models that always think adaptively.
	newest := capabilities{
		maxOutputTokens: 128000, structuredOutput: true, rejectsSampling: true,
		adaptive: true, xhighEffort: true, known: true,
	}
	switch {
	case strings.Contains(id, "claude-sonnet-5-5"):
		c := newest
		c.rejectsDisabledAboveHigh, c.rejectsDisabled, c.rejectsBudget = true, true, true
		c.rejectsForcedToolUse, c.betweenTools = true, true
		return c
	case strings.Contains(id, "claude-opus-5-5"):
		c := newest
		c.rejectsDisabledAboveHigh, c.rejectsDisabled, c.rejectsBudget = true, true, true
		c.rejectsForcedToolUse = true
		return c
	case strings.Contains(id, "claude-haiku-5-5"):
		c := newest
		c.rejectsDisabledAboveHigh, c.rejectsBudget = true, true
		return c
	case strings.Contains(id, "claude-opus-5"):
		c := newest
		c.rejectsDisabledAboveHigh = true
		return c
	case strings.Contains(id, "claude-fable-5-1"):
		c := newest
		c.rejectsDisabled, c.rejectsBudget, c.rejectsForcedToolUse = true, true, true
		return c
	case strings.Contains(id, "claude-fable-5"):
		c := newest
		c.rejectsDisabled, c.rejectsBudget = true, true
		return c
	case strings.Contains(id, "claude-opus-4-8"), strings.Contains(id, "claude-opus-4-7"),
		strings.Contains(id, "claude-sonnet-5"):
		return newest
	case strings.Contains(id, "claude-sonnet-4-6"), strings.Contains(id, "claude-opus-4-6"):
		return capabilities{maxOutputTokens: 128000, structuredOutput: true, adaptive: true, known: true}
	case strings.Contains(id, "claude-sonnet-4-5"), strings.Contains(id, "claude-opus-4-5"),
		strings.Contains(id, "claude-haiku-4-5"):
		return capabilities{maxOutputTokens: 64000, structuredOutput: true, known: true}
	case strings.Contains(id, "claude-opus-4-1"):
		return capabilities{maxOutputTokens: 32000, structuredOutput: true, known: true}
	case strings.Contains(id, "claude-sonnet-4-"):
		return capabilities{maxOutputTokens: 64000, known: true}
	case strings.Contains(id, "claude-opus-4-"):
		return capabilities{maxOutputTokens: 32000, known: true}
	case strings.Contains(id, "claude-3-haiku"):
		return capabilities{maxOutputTokens: 4096, known: true}
	case legacyClaude.MatchString(id):
		return capabilities{maxOutputTokens: 4096}
	case strings.Contains(id, "claude-"):
		// A Claude model newer than this table: assume the newest behaviour
		// but keep it unknown, so the caller hears about the default limit.
		c := newest
		c.rejectsDisabledAboveHigh = true
		c.known = false
		return c
	default:
		// Other models behind an Anthropic-compatible API.
		return capabilities{maxOutputTokens: 4096}
	}
}
