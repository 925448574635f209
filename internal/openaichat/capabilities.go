package openaichat

import (
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// Capabilities describe what an OpenAI model accepts, derived from its id.
type Capabilities struct {
	// ReasoningModel is true for the o-series and for GPT-5 and later
	// (except the gpt-5-chat variants). Reasoning models take a "developer"
	// system role and reject most sampling settings.
	ReasoningModel bool
	// NonReasoningParameters is true for GPT-5.1 up to (not including) GPT-6:
	// with reasoning effort "none" they accept temperature, top_p and
	// logprobs again.
	NonReasoningParameters bool
	// FlexProcessing and PriorityProcessing say whether the "flex" and
	// "priority" service tiers exist for the model.
	FlexProcessing     bool
	PriorityProcessing bool
	// ReasoningEfforts lists the only accepted reasoning efforts, or nil when
	// any effort may be sent.
	ReasoningEfforts []string
	// GPT6 is true for GPT-6 and later, which drop prompt cache retention.
	GPT6 bool
}

var (
	oSeriesPattern = regexp.MustCompile(`^o(\d+)(?:-|$)`)
	gptPattern     = regexp.MustCompile(`^gpt-(\d+)(?:\.(\d+))?(?:-(.+))?$`)
)

// ModelCapabilities derives the capabilities of the OpenAI model modelID.
// Unknown ids (for example models behind a proxy) are treated as
// non-reasoning models.
func ModelCapabilities(modelID string) Capabilities {
	oSeries := -1
	if m := oSeriesPattern.FindStringSubmatch(modelID); m != nil {
		oSeries, _ = strconv.Atoi(m[1])
	}
	major, minor, variant := -1, -1, ""
	if m := gptPattern.FindStringSubmatch(modelID); m != nil {
		major, _ = strconv.Atoi(m[1])
		if m[2] != "" {
			minor, _ = strconv.Atoi(m[2])
		}
		variant = m[3]
	}
	isGPT := major >= 0
	chatVariant := isGPT && minor < 0 && strings.HasPrefix(variant, "chat")
	nanoVariant := strings.HasPrefix(variant, "nano")
	gpt6 := isGPT && major >= 6

	c := Capabilities{
		ReasoningModel:     oSeries >= 0 || (isGPT && major >= 5 && !chatVariant),
		FlexProcessing:     oSeries >= 3 || (isGPT && major >= 5 && !chatVariant),
		PriorityProcessing: strings.HasPrefix(modelID, "gpt-4") || (isGPT && major >= 5 && !nanoVariant && !chatVariant) || oSeries >= 3,
		GPT6:               gpt6,
	}
	if isGPT && !gpt6 && (major > 5 || (major == 5 && max(minor, 0) >= 1)) {
		c.NonReasoningParameters = true
	}
	if gpt6 {
		c.ReasoningEfforts = []string{"low", "medium", "high", "xhigh", "max"}
		if slices.Contains([]string{"gpt-6-sol", "gpt-6-luna", "gpt-6.1-terra"}, modelID) {
			c.ReasoningEfforts = append([]string{"none"}, c.ReasoningEfforts...)
		}
	}
	return c
}
