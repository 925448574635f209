package openaichat

import (
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/aisdkgo/ai/provider"
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

// RejectsSampling reports whether the model rejects temperature, top_p and
// logprobs with the given reasoning effort: reasoning models do, except the
// GPT-5.1 family with effort "none".
func (c Capabilities) RejectsSampling(effort string) bool {
	return c.ReasoningModel && (effort != "none" || !c.NonReasoningParameters)
}

// Dropper removes fields a model rejects from a request body and keeps a
// warning for each field it removed.
type Dropper struct {
	Body     map[string]any
	Warnings []provider.Warning
}

// Drop removes key and records w when key was set.
func (d *Dropper) Drop(key string, w provider.Warning) {
	if _, ok := d.Body[key]; ok {
		delete(d.Body, key)
		d.Warnings = append(d.Warnings, w)
	}
}

// CacheRetention removes prompt_cache_retention, which GPT-6 and later
// models replace with prompt_cache_options.
func (d *Dropper) CacheRetention(c Capabilities) {
	if c.GPT6 {
		d.Drop("prompt_cache_retention", provider.Warning{Type: "unsupported", Feature: "promptCacheRetention",
			Details: "GPT-6 and later models do not support promptCacheRetention; use promptCacheOptions"})
	}
}

// Sampling removes temperature and top_p when the model rejects them.
func (d *Dropper) Sampling(c Capabilities, effort string) {
	if c.RejectsSampling(effort) {
		d.Drop("temperature", provider.Warning{Type: "unsupported", Feature: "temperature", Details: "temperature is not supported for reasoning models"})
		d.Drop("top_p", provider.Warning{Type: "unsupported", Feature: "topP", Details: "topP is not supported for reasoning models"})
	}
}

// ServiceTier removes a service tier the model does not offer.
func (d *Dropper) ServiceTier(c Capabilities, tier *string) {
	if tier == nil {
		return
	}
	switch *tier {
	case "flex":
		if !c.FlexProcessing {
			d.Drop("service_tier", provider.Warning{Type: "unsupported", Feature: "serviceTier",
				Details: "flex processing is only available for o3, o4-mini and gpt-5 models"})
		}
	case "priority", "fast":
		if !c.PriorityProcessing {
			d.Drop("service_tier", provider.Warning{Type: "unsupported", Feature: "serviceTier",
				Details: "priority processing is only available for supported models (gpt-4, gpt-5, gpt-5-mini, o3, o4-mini) and needs Enterprise access"})
		}
	}
}
