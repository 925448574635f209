package google

import (
	"regexp"
	"strings"
)

// capabilities are what the request code needs to know about a model,
// derived from its id. Unknown Gemini ids get the newest behaviour.
type capabilities struct {
	// gemini is true for Gemini models ("gemini-" in the id).
	gemini bool
	// gemini2Tools: provider tools (search, code execution, URL context).
	gemini2Tools bool
	// fileSearch: the file search tool.
	fileSearch bool
	// gemini3: function and provider tools together, multimodal function
	// responses, thought signatures on function calls, JSON output with
	// function tools.
	gemini3 bool
	// gemini25: penalties are rejected by the Gemini API.
	gemini25 bool
	// gemma models take the system prompt as user text.
	gemma bool
	// levels is true when reasoning is set with thinkingLevel, false for
	// thinkingBudget.
	levels bool
	// efforts are the thinking levels the model accepts.
	efforts []string
	// minBudget and maxBudget bound the thinking budget.
	minBudget, maxBudget int
}

// reasoningMaxOutputTokens is the output size thinking budgets are
// computed from.
const reasoningMaxOutputTokens = 65536

var (
	geminiPattern      = regexp.MustCompile(`(?i)(^|[/.])gemini-`)
	gemini1Pattern     = regexp.MustCompile(`(?i)(^|[/.])gemini-1(?:[.-]|$)`)
	gemini2Pattern     = regexp.MustCompile(`(?i)(^|[/.])gemini-2(?:[.-]|$)`)
	gemini25Pattern    = regexp.MustCompile(`(?i)(^|[/.])gemini-2\.5(?:[.-]|$)`)
	geminiProPattern   = regexp.MustCompile(`(?i)(^|[/.])gemini-pro(?:-vision)?$`)
	roboticsPattern    = regexp.MustCompile(`(?i)(^|[/.])gemini-robotics-er-1\.5(?:[.-]|$)`)
	hydrogenPattern    = regexp.MustCompile(`(?i)(^|[/.])gemini-4-hydrogen(?:-|$)`)
	modelNamePattern   = regexp.MustCompile(`(?i)(?:^|[/.])(gemini-[^/]*)$`)
	proVersionPattern  = regexp.MustCompile(`^gemini-(\d+)(?:\.\d+)?-pro(?:$|-)`)
	flashVersionPrefix = regexp.MustCompile(`^gemini-(\d+)\.(\d+)-flash(.*)$`)
	jsonToolPattern    = regexp.MustCompile(`(?i)(^|/)gemini-`)
)

func capabilitiesOf(modelID string) capabilities {
	id := strings.ToLower(modelID)
	gemini := geminiPattern.MatchString(modelID)
	preGemini2 := gemini1Pattern.MatchString(modelID) || geminiProPattern.MatchString(modelID) || roboticsPattern.MatchString(modelID)
	older := preGemini2 || gemini2Pattern.MatchString(modelID)
	c := capabilities{
		gemini:       gemini,
		gemini2Tools: (gemini && !preGemini2) || strings.Contains(id, "nano-banana"),
		gemini3:      gemini && !older,
		gemini25:     gemini25Pattern.MatchString(modelID),
		gemma:        strings.HasPrefix(id, "gemma-"),
		minBudget:    0,
		maxBudget:    24576,
	}
	c.fileSearch = c.gemini25 || c.gemini3
	c.levels = c.gemini3 && !strings.Contains(modelID, "gemini-3-pro-image")
	if strings.Contains(id, "2.5-pro") {
		c.minBudget = 128
	}
	if strings.Contains(id, "2.5-pro") || strings.Contains(id, "gemini-3-pro-image") {
		c.maxBudget = 32768
	}
	if c.levels {
		hydrogen := hydrogenPattern.MatchString(modelID)
		if !hydrogen && minimalLevel(modelID) {
			c.efforts = append(c.efforts, "minimal")
		}
		c.efforts = append(c.efforts, "low", "medium", "high")
		if hydrogen {
			c.efforts = append(c.efforts, "xhigh")
		}
	}
	return c
}

// minimalLevel reports whether a Gemini 3 model accepts the "minimal"
// thinking level: Flash models before 3.7 (not Lite ones) and models whose
// version is not recognised do; Pro models from 3 on and the latest aliases
// do not.
func minimalLevel(modelID string) bool {
	m := modelNamePattern.FindStringSubmatch(modelID)
	name := ""
	if m != nil {
		name = strings.ToLower(m[1])
	}
	if name == "gemini-flash-latest" {
		return false
	}
	if v := proVersionPattern.FindStringSubmatch(name); v != nil && atoi(v[1]) >= 3 {
		return false
	}
	v := flashVersionPrefix.FindStringSubmatch(name)
	if v == nil || !flashSuffixOK(v[3]) {
		return true
	}
	major, minor := atoi(v[1]), atoi(v[2])
	return !(major > 3 || major == 3 && minor >= 7)
}

// flashSuffixOK reports whether what follows "gemini-X.Y-flash" names a
// Flash model that is not a Lite one: nothing, or "-" not followed by
// "lite" as a whole word.
func flashSuffixOK(rest string) bool {
	if rest == "" {
		return true
	}
	if rest[0] != '-' {
		return false
	}
	rest = rest[1:]
	return !(rest == "lite" || strings.HasPrefix(rest, "lite-"))
}

func atoi(s string) int {
	n := 0
	for _, c := range s {
		n = n*10 + int(c-'0')
		if n > 1<<20 {
			return n
		}
	}
	return n
}
