// Package claude holds what the providers that reach Anthropic's Claude
// models (the Anthropic API, Amazon Bedrock) know about each model family.
package claude

import (
	"regexp"
	"strings"
)

// Capabilities describes what a model accepts; it drives defaults and the
// adjustments made to a request before it is sent.
type Capabilities struct {
	// MaxOutputTokens is the model's output limit and the default max_tokens.
	MaxOutputTokens int
	// StructuredOutput: output_config.format and strict tools are accepted.
	StructuredOutput bool
	// RejectsSampling: temperature, top_k and top_p are rejected.
	RejectsSampling bool
	// RejectsDisabledAboveHigh: thinking "disabled" is rejected at efforts
	// above "high".
	RejectsDisabledAboveHigh bool
	// RejectsDisabled: thinking is always on; "disabled" is rejected.
	RejectsDisabled bool
	// RejectsBudget: thinking "enabled" with a budget is rejected.
	RejectsBudget bool
	// RejectsForcedToolUse: tool_choice "any" and named tools are rejected.
	RejectsForcedToolUse bool
	// BetweenTools: thinking "between_tools" is accepted.
	BetweenTools bool
	// Adaptive: thinking "adaptive" is accepted.
	Adaptive bool
	// XhighEffort: effort "xhigh" is accepted.
	XhighEffort bool
	// Known is false for model ids this table does not recognise.
	Known bool
}

var legacyClaude = regexp.MustCompile(`claude-(?:instant(?:-|$)|v?2(?:$|[-.:])|3(?:$|[-.]))`)

// ModelCapabilities looks a model id up by family. The order of the checks
// matters: more specific families come first.
func ModelCapabilities(id string) Capabilities {
	// Models that always think adaptively.
	newest := Capabilities{
		MaxOutputTokens: 128000, StructuredOutput: true, RejectsSampling: true,
		Adaptive: true, XhighEffort: true, Known: true,
	}
	switch {
	case strings.Contains(id, "claude-sonnet-5-5"):
		c := newest
		c.RejectsDisabledAboveHigh, c.RejectsDisabled, c.RejectsBudget = true, true, true
		c.RejectsForcedToolUse, c.BetweenTools = true, true
		return c
	case strings.Contains(id, "claude-opus-5-5"):
		c := newest
		c.RejectsDisabledAboveHigh, c.RejectsDisabled, c.RejectsBudget = true, true, true
		c.RejectsForcedToolUse = true
		return c
	case strings.Contains(id, "claude-haiku-5-5"):
		c := newest
		c.RejectsDisabledAboveHigh, c.RejectsBudget = true, true
		return c
	case strings.Contains(id, "claude-opus-5"):
		c := newest
		c.RejectsDisabledAboveHigh = true
		return c
	case strings.Contains(id, "claude-fable-5-1"):
		c := newest
		c.RejectsDisabled, c.RejectsBudget, c.RejectsForcedToolUse = true, true, true
		return c
	case strings.Contains(id, "claude-fable-5"):
		c := newest
		c.RejectsDisabled, c.RejectsBudget = true, true
		return c
	case strings.Contains(id, "claude-opus-4-8"), strings.Contains(id, "claude-opus-4-7"),
		strings.Contains(id, "claude-sonnet-5"):
		return newest
	case strings.Contains(id, "claude-sonnet-4-6"), strings.Contains(id, "claude-opus-4-6"):
		return Capabilities{MaxOutputTokens: 128000, StructuredOutput: true, Adaptive: true, Known: true}
	case strings.Contains(id, "claude-sonnet-4-5"), strings.Contains(id, "claude-opus-4-5"),
		strings.Contains(id, "claude-haiku-4-5"):
		return Capabilities{MaxOutputTokens: 64000, StructuredOutput: true, Known: true}
	case strings.Contains(id, "claude-opus-4-1"):
		return Capabilities{MaxOutputTokens: 32000, StructuredOutput: true, Known: true}
	case strings.Contains(id, "claude-sonnet-4-"):
		return Capabilities{MaxOutputTokens: 64000, Known: true}
	case strings.Contains(id, "claude-opus-4-"):
		return Capabilities{MaxOutputTokens: 32000, Known: true}
	case strings.Contains(id, "claude-3-haiku"):
		return Capabilities{MaxOutputTokens: 4096, Known: true}
	case legacyClaude.MatchString(id):
		return Capabilities{MaxOutputTokens: 4096}
	case strings.Contains(id, "claude-"):
		// A Claude model newer than this table: assume the newest behaviour
		// but keep it unknown, so the caller hears about the default limit.
		c := newest
		c.RejectsDisabledAboveHigh = true
		c.Known = false
		return c
	default:
		// Other models behind an Anthropic-compatible API.
		return Capabilities{MaxOutputTokens: 4096}
	}
}
