// Package conformance plays scenario files through the library and writes
// traces of what happened (what the model received on each call, the steps,
// the tool executions, the searches and the stream), so that the library's
// behaviour can be compared with recorded reference traces.
package conformance

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strconv"
)

// Scenario is one scripted conversation.
type Scenario struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	Tools       []ToolSpec      `json:"tools"`
	Runs        []Run           `json:"runs"`
	Calls       []Run           `json:"calls"`
	Base        Run             `json:"-"`
	raw         json.RawMessage // for approval id collection
}

// Run is the part of a scenario that may differ between generations.
type Run struct {
	Mode         *string           `json:"mode"`
	System       *string           `json:"system"`
	Prompt       *string           `json:"prompt"`
	Messages     json.RawMessage   `json:"messages"`
	ActiveTools  []string          `json:"activeTools"`
	ToolChoice   json.RawMessage   `json:"toolChoice"`
	ToolsContext json.RawMessage   `json:"toolsContext"`
	ToolOrder    []string          `json:"toolOrder"`
	StopWhen     json.RawMessage   `json:"stopWhen"`
	PrepareSteps []json.RawMessage `json:"prepareSteps"`
	Responses    []ResponseSpec    `json:"responses"`
	Output       *OutputSpec       `json:"output"`

	hasActiveTools bool
	hasToolOrder   bool
	hasPrepare     bool
	hasResponses   bool
}

// OutputSpec is a generation's output: "text", "object" (with schema),
// "array" (with element, minItems, maxItems), "choice" (with options) or
// "json"; name and description go to the response format.
type OutputSpec struct {
	Type        string          `json:"type"`
	Schema      json.RawMessage `json:"schema"`
	Element     json.RawMessage `json:"element"`
	Options     []string        `json:"options"`
	Name        string          `json:"name"`
	Description string          `json:"description"`
	MinItems    *int            `json:"minItems"`
	MaxItems    *int            `json:"maxItems"`
}

// ToolSpec is one tool registration.
type ToolSpec struct {
	Name                string              `json:"name"`
	Kind                string              `json:"kind"`
	Description         *string             `json:"description"`
	DescriptionTemplate *string             `json:"descriptionTemplate"`
	DeferLoading        *bool               `json:"deferLoading"`
	InputSchema         json.RawMessage     `json:"inputSchema"`
	Strict              *bool               `json:"strict"`
	InputExamples       []json.RawMessage   `json:"inputExamples"`
	ProviderOptions     json.RawMessage     `json:"providerOptions"`
	ContextSchema       json.RawMessage     `json:"contextSchema"`
	Execute             *ExecuteSpec        `json:"execute"`
	ToModelOutput       json.RawMessage     `json:"toModelOutput"`
	NeedsApproval       *bool               `json:"needsApproval"`
	MaxResults          json.RawMessage     `json:"maxResults"`
	SearchResults       []string            `json:"searchResults"`
	SearchByQuery       map[string][]string `json:"searchByQuery"`
	SearchThrows        *string             `json:"searchThrows"`
}

// ExecuteSpec says what a tool's execute does.
type ExecuteSpec struct {
	Returns     json.RawMessage   `json:"returns"`
	Throws      *string           `json:"throws"`
	EchoInput   bool              `json:"echoInput"`
	Preliminary []json.RawMessage `json:"preliminary"`
	hasReturns  bool
	hasPrelim   bool
}

// ResponseSpec is one scripted model response.
type ResponseSpec struct {
	Content      []json.RawMessage `json:"content"`
	FinishReason json.RawMessage   `json:"finishReason"`
	Usage        json.RawMessage   `json:"usage"`
	Chunks       []json.RawMessage `json:"chunks"`
	hasChunks    bool
}

var (
	scenarioKeys = keySet("name", "description", "mode", "system", "prompt", "messages", "activeTools",
		"toolChoice", "toolsContext", "toolOrder", "stopWhen", "prepareSteps", "responses", "tools", "runs", "calls", "output")
	runKeys = keySet("mode", "system", "prompt", "messages", "activeTools", "toolChoice", "toolsContext",
		"toolOrder", "stopWhen", "prepareSteps", "responses", "output")
	toolKeys = keySet("name", "kind", "description", "descriptionTemplate", "deferLoading", "inputSchema",
		"strict", "inputExamples", "providerOptions", "contextSchema", "execute", "toModelOutput",
		"needsApproval", "maxResults", "searchResults", "searchByQuery", "searchThrows")
	executeKeys  = keySet("returns", "throws", "echoInput", "preliminary")
	responseKeys = keySet("content", "finishReason", "usage", "chunks")
	prepareKeys  = keySet("activeTools", "toolChoice", "toolsContext")
	outputKeys   = keySet("type", "schema", "element", "options", "name", "description", "minItems", "maxItems")
)

func keySet(keys ...string) map[string]bool {
	m := map[string]bool{}
	for _, k := range keys {
		m[k] = true
	}
	return m
}

// checkKeys decodes data as an object and rejects keys outside allowed.
func checkKeys(data []byte, allowed map[string]bool, where string) (map[string]json.RawMessage, error) {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(data, &m); err != nil || m == nil {
		return nil, fmt.Errorf("%s must be an object", where)
	}
	for k := range m {
		if !allowed[k] {
			return nil, fmt.Errorf("unknown key %q in %s", k, where)
		}
	}
	return m, nil
}

var arrayIndex = regexp.MustCompile(`^(0|[1-9][0-9]*)$`)

// ParseScenario decodes and checks a scenario file.
func ParseScenario(data []byte) (*Scenario, error) {
	top, err := checkKeys(data, scenarioKeys, "scenario")
	if err != nil {
		return nil, err
	}
	var s Scenario
	if err := json.Unmarshal(data, &s); err != nil {
		return nil, err
	}
	s.raw = data
	if s.Name == "" {
		return nil, errors.New("scenario needs a name")
	}
	base, err := parseRun(data, scenarioKeys, "scenario")
	if err != nil {
		return nil, err
	}
	s.Base = base
	names := map[string]bool{}
	var rawTools []json.RawMessage
	if t, ok := top["tools"]; ok {
		if err := json.Unmarshal(t, &rawTools); err != nil {
			return nil, fmt.Errorf("tools: %w", err)
		}
	}
	for i, rt := range rawTools {
		tm, err := checkKeys(rt, toolKeys, fmt.Sprintf("tool %d", i))
		if err != nil {
			return nil, err
		}
		t := &s.Tools[i]
		if t.Name == "" {
			return nil, errors.New("every tool needs a non-empty string name")
		}
		if names[t.Name] {
			return nil, fmt.Errorf("duplicate tool name %s", t.Name)
		}
		if n, err := strconv.ParseUint(t.Name, 10, 64); err == nil && arrayIndex.MatchString(t.Name) && n < 1<<32-1 {
			return nil, fmt.Errorf("tool name %s is an array index; not allowed", t.Name)
		}
		if t.Name == "__proto__" {
			return nil, errors.New("tool name __proto__ is not allowed")
		}
		names[t.Name] = true
		if ex, ok := tm["execute"]; ok && string(ex) != "null" {
			em, err := checkKeys(ex, executeKeys, "execute of "+t.Name)
			if err != nil {
				return nil, err
			}
			_, t.Execute.hasReturns = em["returns"]
			_, t.Execute.hasPrelim = em["preliminary"]
		}
		switch t.Kind {
		case "", "function", "dynamic", "toolSearch":
		default:
			return nil, fmt.Errorf("unknown tool kind %s", t.Kind)
		}
	}
	runs := s.Runs
	key := "runs"
	if runs == nil {
		runs, key = s.Calls, "calls"
	}
	if runs != nil {
		var rawRuns []json.RawMessage
		_ = json.Unmarshal(top[key], &rawRuns)
		for i, rr := range rawRuns {
			r, err := parseRun(rr, runKeys, fmt.Sprintf("run %d", i))
			if err != nil {
				return nil, err
			}
			runs[i] = r
		}
		s.Runs = runs
	}
	return &s, nil
}

func parseRun(data []byte, allowed map[string]bool, where string) (Run, error) {
	m, err := checkKeys(data, allowed, where)
	if err != nil {
		return Run{}, err
	}
	var r Run
	if err := json.Unmarshal(data, &r); err != nil {
		return Run{}, fmt.Errorf("%s: %w", where, err)
	}
	_, r.hasActiveTools = m["activeTools"]
	_, r.hasToolOrder = m["toolOrder"]
	_, r.hasPrepare = m["prepareSteps"]
	_, r.hasResponses = m["responses"]
	if o, ok := m["output"]; ok {
		if _, err := checkKeys(o, outputKeys, "output of "+where); err != nil {
			return Run{}, err
		}
	}
	if rs, ok := m["responses"]; ok {
		var raws []json.RawMessage
		if err := json.Unmarshal(rs, &raws); err != nil {
			return Run{}, err
		}
		for j, rr := range raws {
			rm, err := checkKeys(rr, responseKeys, fmt.Sprintf("response %d of %s", j, where))
			if err != nil {
				return Run{}, err
			}
			_, r.Responses[j].hasChunks = rm["chunks"]
		}
	}
	for j, p := range r.PrepareSteps {
		if len(p) == 0 || bytes.Equal(p, []byte("null")) {
			continue
		}
		if _, err := checkKeys(p, prepareKeys, fmt.Sprintf("prepareSteps[%d] of %s", j, where)); err != nil {
			return Run{}, err
		}
	}
	return r, nil
}

// merged returns the run with the scenario's top-level values as defaults.
func (s *Scenario) merged(r Run) Run {
	b := s.Base
	if r.Mode == nil {
		r.Mode = b.Mode
	}
	if r.System == nil {
		r.System = b.System
	}
	if r.Prompt == nil {
		r.Prompt = b.Prompt
	}
	if r.Messages == nil {
		r.Messages = b.Messages
	}
	if !r.hasActiveTools {
		r.ActiveTools, r.hasActiveTools = b.ActiveTools, b.hasActiveTools
	}
	if r.ToolChoice == nil {
		r.ToolChoice = b.ToolChoice
	}
	if r.ToolsContext == nil {
		r.ToolsContext = b.ToolsContext
	}
	if !r.hasToolOrder {
		r.ToolOrder, r.hasToolOrder = b.ToolOrder, b.hasToolOrder
	}
	if r.StopWhen == nil {
		r.StopWhen = b.StopWhen
	}
	if !r.hasPrepare {
		r.PrepareSteps, r.hasPrepare = b.PrepareSteps, b.hasPrepare
	}
	if !r.hasResponses {
		r.Responses, r.hasResponses = b.Responses, b.hasResponses
	}
	if r.Output == nil {
		r.Output = b.Output
	}
	return r
}
