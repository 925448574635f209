package anthropic

import (
	"fmt"

	"github.com/aisdkgo/ai/provider"
)

// maxCacheBreakpoints is the number of cache_control markers the API accepts
// in one request.
const maxCacheBreakpoints = 4

// cacheBreakpoints hands out cache_control values from provider options and
// enforces the per-request limit. One instance is shared by the prompt and
// the tool list of a request, in that order.
type cacheBreakpoints struct {
	count    int
	warnings []provider.Warning
}

// cacheControlOf returns the raw cache control value in opts, reading
// "cacheControl" or its alias "cache_control".
func cacheControlOf(opts provider.ProviderOptions) any {
	m := anthropicOptions(opts)
	if m == nil {
		return nil
	}
	if v, ok := m["cacheControl"]; ok && v != nil {
		return v
	}
	if v, ok := m["cache_control"]; ok && v != nil {
		return v
	}
	return nil
}

// take returns the cache control of opts for a block of kind what, or nil
// when there is none, the block cannot be cached, or the limit is reached.
// The value is passed on as given; the API validates it.
func (c *cacheBreakpoints) take(opts provider.ProviderOptions, what string, cacheable bool) any {
	v := cacheControlOf(opts)
	if v == nil {
		return nil
	}
	if !cacheable {
		c.warnings = append(c.warnings, provider.Warning{
			Type:    "unsupported",
			Feature: "cache_control on non-cacheable context",
			Details: fmt.Sprintf("%s cannot carry cache_control; the setting is ignored.", what),
		})
		return nil
	}
	c.count++
	if c.count > maxCacheBreakpoints {
		c.warnings = append(c.warnings, provider.Warning{
			Type:    "unsupported",
			Feature: "cacheControl breakpoint limit",
			Details: fmt.Sprintf("at most %d cache breakpoints are allowed (this is number %d); this one is ignored.", maxCacheBreakpoints, c.count),
		})
		return nil
	}
	return v
}
