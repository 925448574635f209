package conformance

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"iter"
	"math"
	"regexp"
	"sync"
	"time"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/aisdkgo/ai"
	"github.com/aisdkgo/ai/provider"
)

// ScenarioError reports a scenario that cannot be run (a bug in the
// scenario, not a behaviour of the library).
type ScenarioError struct{ Msg string }

func (e *ScenarioError) Error() string { return e.Msg }

// recorder collects what one generation did.
type recorder struct {
	mu         sync.Mutex
	calls      []any
	steps      []any
	executions []any
	searches   []any
	usageSet   []bool
}

// built is the tool set of a scenario, shared by its runs.
type built struct {
	tools     ai.Tools
	names     map[string]string // tool name -> kind
	thrown    []string
	custom    bool
	current   *recorder
	currentMu sync.Mutex
}

func (b *built) rec() *recorder {
	b.currentMu.Lock()
	defer b.currentMu.Unlock()
	return b.current
}

// RunScenario plays a scenario and returns its trace as a JSON-ready value.
func RunScenario(ctx context.Context, s *Scenario) (map[string]any, error) {
	return runScenario(ctx, s, false)
}

// RunScenarioThroughAgent plays a scenario through an [ai.Agent] configured
// with the scenario's settings; the trace must not differ.
func RunScenarioThroughAgent(ctx context.Context, s *Scenario) (map[string]any, error) {
	return runScenario(ctx, s, true)
}

func runScenario(ctx context.Context, s *Scenario, viaAgent bool) (map[string]any, error) {
	b, setupErr := buildTools(s)
	var scenErr *ScenarioError
	if errors.As(setupErr, &scenErr) {
		return nil, setupErr
	}
	if setupErr != nil {
		return map[string]any{"name": s.Name, "error": map[string]any{"name": errorName(setupErr), "phase": "setup"}}, nil
	}
	runs := s.Runs
	multi := runs != nil
	if !multi {
		runs = []Run{s.Base}
	}
	var traces []any
	for _, r := range runs {
		t, err := executeRun(ctx, s.merged(r), b, viaAgent)
		if err != nil {
			return nil, err
		}
		traces = append(traces, t)
	}
	if multi {
		return map[string]any{"name": s.Name, "runs": traces}, nil
	}
	t := traces[0].(map[string]any)
	t["name"] = s.Name
	return t, nil
}

func buildTools(s *Scenario) (*built, error) {
	b := &built{names: map[string]string{}, tools: ai.Tools{}}
	for i := range s.Tools {
		t := &s.Tools[i]
		kind := t.Kind
		if kind == "" {
			kind = "function"
		}
		b.names[t.Name] = kind
		if t.Execute != nil && t.Execute.Throws != nil {
			b.thrown = append(b.thrown, *t.Execute.Throws)
		}
		if t.SearchThrows != nil {
			b.thrown = append(b.thrown, *t.SearchThrows)
		}
		var tool ai.Tool
		var err error
		if kind == "toolSearch" {
			tool, err = b.searchTool(t)
		} else {
			tool, err = b.functionTool(t, kind == "dynamic")
		}
		if err != nil {
			return nil, err
		}
		b.tools = append(b.tools, ai.NamedTool{Name: t.Name, Tool: tool})
	}
	return b, nil
}

func (b *built) searchTool(t *ToolSpec) (ai.Tool, error) {
	var opts ai.ToolSearchOptions
	if len(t.MaxResults) > 0 {
		var f float64
		if err := json.Unmarshal(t.MaxResults, &f); err != nil {
			return nil, &ScenarioError{fmt.Sprintf("maxResults of %s is not a number", t.Name)}
		}
		if f != math.Trunc(f) || math.Abs(f) > 1<<62 {
			// The Go option is an int: a fractional or huge value cannot be
			// expressed, which is the library rejecting it.
			return nil, &ai.InvalidArgumentError{Parameter: "MaxResults", Message: "must be a positive integer"}
		}
		n := int(f)
		opts.MaxResults = &n
	}
	name := t.Name
	record := func(query string, cands []ai.SearchCandidate) {
		list := make([]any, len(cands))
		for i, c := range cands {
			e := map[string]any{"name": c.Name}
			if c.Description != "" {
				e["description"] = c.Description
			}
			list[i] = e
		}
		r := b.rec()
		r.mu.Lock()
		r.searches = append(r.searches, map[string]any{"tool": name, "query": query, "tools": list})
		r.mu.Unlock()
	}
	switch {
	case t.SearchThrows != nil:
		msg := *t.SearchThrows
		b.custom = true
		opts.Search = func(_ context.Context, q string, c []ai.SearchCandidate) ([]string, error) {
			record(q, c)
			return nil, errors.New(msg)
		}
	case t.SearchResults != nil:
		res := t.SearchResults
		b.custom = true
		opts.Search = func(_ context.Context, q string, c []ai.SearchCandidate) ([]string, error) {
			record(q, c)
			return append([]string(nil), res...), nil
		}
	case t.SearchByQuery != nil:
		byQuery := t.SearchByQuery
		b.custom = true
		opts.Search = func(ctx context.Context, q string, c []ai.SearchCandidate) ([]string, error) {
			record(q, c)
			select {
			case <-time.After(time.Millisecond):
			case <-ctx.Done():
				return nil, ctx.Err()
			}
			return append([]string{}, byQuery[q]...), nil
		}
	}
	tool, err := ai.NewToolSearch(opts)
	if err != nil {
		return nil, err
	}
	if t.DeferLoading != nil {
		return ai.WithDeferLoading(tool, *t.DeferLoading), nil
	}
	return tool, nil
}

var templateKey = regexp.MustCompile(`\{\{([A-Za-z0-9_]+)\}\}`)

// renderTemplate fills {{key}} from a context object.
func renderTemplate(tmpl string, context any) string {
	m, _ := context.(map[string]any)
	return templateKey.ReplaceAllStringFunc(tmpl, func(k string) string {
		v, ok := m[k[2:len(k)-2]]
		if !ok || v == nil {
			return ""
		}
		if s, ok := v.(string); ok {
			return s
		}
		b, _ := json.Marshal(v)
		return string(b)
	})
}

// decodeValue decodes JSON keeping numbers exact.
func decodeValue(raw json.RawMessage) any {
	if len(raw) == 0 {
		return nil
	}
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		return nil
	}
	return v
}

func (b *built) functionTool(t *ToolSpec, dynamic bool) (ai.Tool, error) {
	schemaJSON := t.InputSchema
	if len(schemaJSON) == 0 {
		schemaJSON = json.RawMessage(`{"type":"object","properties":{}}`)
	}
	var sch jsonschema.Schema
	if err := json.Unmarshal(schemaJSON, &sch); err != nil {
		return nil, &ScenarioError{fmt.Sprintf("inputSchema of %s: %v", t.Name, err)}
	}
	def := ai.ToolDef[json.RawMessage, any]{InputSchema: &sch}
	if t.DescriptionTemplate != nil {
		tmpl := *t.DescriptionTemplate
		def.DescriptionFunc = func(o ai.DescriptionOptions) string { return renderTemplate(tmpl, o.Context) }
	} else if t.Description != nil {
		def.Description = *t.Description
	}
	if t.DeferLoading != nil {
		def.DeferLoading = *t.DeferLoading
	}
	def.Strict = t.Strict
	for _, ex := range t.InputExamples {
		var e struct {
			Input json.RawMessage `json:"input"`
		}
		if err := json.Unmarshal(ex, &e); err != nil {
			return nil, &ScenarioError{fmt.Sprintf("inputExamples of %s: %v", t.Name, err)}
		}
		def.InputExamples = append(def.InputExamples, e.Input)
	}
	if len(t.ProviderOptions) > 0 {
		if err := json.Unmarshal(t.ProviderOptions, &def.ProviderOptions); err != nil {
			return nil, &ScenarioError{fmt.Sprintf("providerOptions of %s: %v", t.Name, err)}
		}
	}
	// A scenario's context schema carries no validator: contexts are never
	// rejected, so the tool gets no ContextSchema.
	if t.NeedsApproval != nil {
		need := *t.NeedsApproval
		def.NeedsApproval = func(context.Context, json.RawMessage, ai.ApprovalOptions) (bool, error) { return need, nil }
	}
	if len(t.ToModelOutput) > 0 {
		out, err := provider.UnmarshalToolResultOutput(t.ToModelOutput)
		if err != nil {
			return nil, &ScenarioError{fmt.Sprintf("toModelOutput of %s: %v", t.Name, err)}
		}
		def.ToModelOutput = func(context.Context, ai.ModelOutputOptions[json.RawMessage, any]) (ai.ToolResultOutput, error) {
			return out, nil
		}
	}
	if ex := t.Execute; ex != nil {
		switch {
		case ex.Throws != nil:
			msg := *ex.Throws
			def.Execute = func(context.Context, json.RawMessage, ai.ToolExecutionOptions) (any, error) {
				return nil, errors.New(msg)
			}
		case ex.EchoInput:
			def.Execute = func(_ context.Context, in json.RawMessage, _ ai.ToolExecutionOptions) (any, error) {
				return decodeValue(in), nil
			}
		case ex.hasPrelim:
			prelim, final := ex.Preliminary, ex.Returns
			def.ExecuteStream = func(context.Context, json.RawMessage, ai.ToolExecutionOptions) iter.Seq2[any, error] {
				return func(yield func(any, error) bool) {
					for _, p := range prelim {
						if !yield(decodeValue(p), nil) {
							return
						}
					}
					yield(decodeValue(final), nil)
				}
			}
		case ex.hasReturns:
			v := ex.Returns
			def.Execute = func(context.Context, json.RawMessage, ai.ToolExecutionOptions) (any, error) {
				return decodeValue(v), nil
			}
		default:
			return nil, &ScenarioError{fmt.Sprintf("unknown execute spec of %s", t.Name)}
		}
	}
	if dynamic {
		return ai.NewDynamicTool(def)
	}
	return newFunctionTool(def)
}

// newFunctionTool makes a function (not dynamic) tool with a JSON Schema
// given at run time.
func newFunctionTool(def ai.ToolDef[json.RawMessage, any]) (tool ai.Tool, err error) {
	defer func() {
		if v := recover(); v != nil {
			err = &ScenarioError{fmt.Sprint(v)}
		}
	}()
	return ai.NewTool(def), nil
}

// scriptedModel answers with a run's scripted responses and records the
// calls.
type scriptedModel struct {
	responses []ResponseSpec
	rec       *recorder
	mu        sync.Mutex
	next      int
	exhausted bool
}

func (m *scriptedModel) Provider() string { return "mock-provider" }
func (m *scriptedModel) ModelID() string  { return "mock-model-id" }

func (m *scriptedModel) take(opts *provider.CallOptions) (ResponseSpec, error) {
	call := map[string]any{"toolChoice": toValue(opts.ToolChoice), "prompt": toValue(opts.Prompt)}
	if opts.Tools != nil {
		call["tools"] = toValue(opts.Tools)
	}
	if opts.ResponseFormat != nil {
		call["responseFormat"] = toValue(opts.ResponseFormat)
	}
	m.rec.mu.Lock()
	m.rec.calls = append(m.rec.calls, call)
	m.rec.mu.Unlock()
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.next >= len(m.responses) {
		m.exhausted = true
		return ResponseSpec{}, &ScenarioError{fmt.Sprintf("model called %d times but only %d responses are scripted", m.next+1, len(m.responses))}
	}
	r := m.responses[m.next]
	m.next++
	return r, nil
}

func (m *scriptedModel) Generate(ctx context.Context, opts *provider.CallOptions) (*provider.GenerateResult, error) {
	r, err := m.take(opts)
	if err != nil {
		return nil, err
	}
	if r.hasChunks {
		return nil, &ScenarioError{"a generate-mode response must use \"content\""}
	}
	res := &provider.GenerateResult{}
	for _, c := range r.Content {
		p, err := parseContent(c)
		if err != nil {
			return nil, &ScenarioError{err.Error()}
		}
		res.Content = append(res.Content, p)
	}
	if res.FinishReason, err = finishReason(r.FinishReason); err != nil {
		return nil, &ScenarioError{err.Error()}
	}
	if res.Usage, err = usage(r.Usage); err != nil {
		return nil, &ScenarioError{err.Error()}
	}
	return res, nil
}

func (m *scriptedModel) Stream(ctx context.Context, opts *provider.CallOptions) (*provider.StreamResult, error) {
	r, err := m.take(opts)
	if err != nil {
		return nil, err
	}
	var parts []provider.StreamPart
	if r.hasChunks {
		for _, c := range r.Chunks {
			p, err := parseChunk(c)
			if err != nil {
				return nil, &ScenarioError{err.Error()}
			}
			parts = append(parts, p)
		}
	} else {
		for i, c := range r.Content {
			p, err := parseContent(c)
			if err != nil {
				return nil, &ScenarioError{err.Error()}
			}
			switch p := p.(type) {
			case provider.Text:
				id := fmt.Sprintf("text-%d", i)
				parts = append(parts, provider.TextStart{ID: id, ProviderMetadata: p.ProviderMetadata},
					provider.TextDelta{ID: id, Delta: p.Text}, provider.TextEnd{ID: id})
			case provider.Reasoning:
				id := fmt.Sprintf("reasoning-%d", i)
				parts = append(parts, provider.ReasoningStart{ID: id, ProviderMetadata: p.ProviderMetadata},
					provider.ReasoningDelta{ID: id, Delta: p.Text}, provider.ReasoningEnd{ID: id})
			default:
				sp, ok := p.(provider.StreamPart)
				if !ok {
					return nil, &ScenarioError{fmt.Sprintf("content %T cannot be streamed", p)}
				}
				parts = append(parts, sp)
			}
		}
		fr, err := finishReason(r.FinishReason)
		if err != nil {
			return nil, &ScenarioError{err.Error()}
		}
		u, err := usage(r.Usage)
		if err != nil {
			return nil, &ScenarioError{err.Error()}
		}
		parts = append(parts, provider.Finish{FinishReason: fr, Usage: u})
	}
	return &provider.StreamResult{Stream: func(yield func(provider.StreamPart, error) bool) {
		for _, p := range parts {
			if !yield(p, nil) {
				return
			}
		}
	}}, nil
}

func toValue(v any) any {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprintf("<unencodable: %v>", err)
	}
	return decodeValue(b)
}

// options builds the generation options of a run.
func (b *built) options(r Run, model *scriptedModel, rec *recorder) (ai.GenerateTextOptions, error) {
	zero := 0
	o := ai.GenerateTextOptions{
		Model:      model,
		Tools:      b.tools,
		MaxRetries: &zero,
		GenerateID: newIDGen(),
		OnToolExecutionStart: func(e ai.ToolExecutionStartEvent) {
			rec.mu.Lock()
			rec.executions = append(rec.executions, map[string]any{"tool": e.ToolCall.ToolName, "input": decodeValue(e.ToolCall.Input)})
			rec.mu.Unlock()
		},
		OnStepEnd: func(s *ai.StepResult) {
			rec.mu.Lock()
			defer rec.mu.Unlock()
			entry := map[string]any{"content": b.contentValue(s.Content), "finishReason": string(s.FinishReason)}
			if n := len(rec.steps); n < len(rec.usageSet) && rec.usageSet[n] {
				entry["usage"] = toValue(s.Usage)
			}
			rec.steps = append(rec.steps, entry)
		},
	}
	if len(b.tools) == 0 {
		o.Tools = nil
	}
	if r.System != nil {
		o.Instructions = *r.System
	}
	if r.Prompt != nil {
		o.Prompt = *r.Prompt
		if o.Prompt == "" {
			o.Messages = []ai.Message{ai.UserText("")}
		}
	}
	if r.Messages != nil {
		msgs, err := provider.UnmarshalMessages(r.Messages)
		if err != nil {
			return o, &ScenarioError{"messages: " + err.Error()}
		}
		if o.Prompt == "" && o.Messages == nil {
			o.Messages = msgs
			if o.Messages == nil {
				o.Messages = []ai.Message{}
			}
		}
	}
	if r.hasActiveTools {
		o.ActiveTools = append([]string{}, r.ActiveTools...)
	}
	if r.ToolChoice != nil {
		tc, err := toolChoice(r.ToolChoice)
		if err != nil {
			return o, err
		}
		o.ToolChoice = tc
	}
	if r.ToolsContext != nil {
		ctxs, err := toolsContext(r.ToolsContext)
		if err != nil {
			return o, err
		}
		o.ToolsContext = ctxs
	}
	if r.hasToolOrder {
		o.ToolOrder = append([]string{}, r.ToolOrder...)
	}
	if r.Output != nil {
		out, err := outputOf(r.Output)
		if err != nil {
			return o, err
		}
		o.Output = out
	}
	if r.StopWhen != nil {
		sw, err := stopWhen(r.StopWhen)
		if err != nil {
			return o, err
		}
		o.StopWhen = sw
	}
	if r.hasPrepare {
		steps := r.PrepareSteps
		var parsed []*ai.PrepareStepResult
		for _, raw := range steps {
			if len(raw) == 0 || string(raw) == "null" {
				parsed = append(parsed, nil)
				continue
			}
			var p struct {
				ActiveTools  []string        `json:"activeTools"`
				ToolChoice   json.RawMessage `json:"toolChoice"`
				ToolsContext json.RawMessage `json:"toolsContext"`
			}
			if err := json.Unmarshal(raw, &p); err != nil {
				return o, &ScenarioError{"prepareSteps: " + err.Error()}
			}
			res := &ai.PrepareStepResult{}
			var keys map[string]json.RawMessage
			_ = json.Unmarshal(raw, &keys)
			if _, ok := keys["activeTools"]; ok {
				res.ActiveTools = append([]string{}, p.ActiveTools...)
			}
			if p.ToolChoice != nil {
				tc, err := toolChoice(p.ToolChoice)
				if err != nil {
					return o, err
				}
				res.ToolChoice = &tc
			}
			if p.ToolsContext != nil {
				ctxs, err := toolsContext(p.ToolsContext)
				if err != nil {
					return o, err
				}
				res.ToolsContext = ctxs
			}
			parsed = append(parsed, res)
		}
		o.PrepareStep = func(_ context.Context, p ai.PrepareStepOptions) (*ai.PrepareStepResult, error) {
			if p.StepNumber < len(parsed) {
				return parsed[p.StepNumber], nil
			}
			return nil, nil
		}
	}
	return o, nil
}

// newIDGen returns a predictable id generator.
func newIDGen() func() string {
	var mu sync.Mutex
	n := 0
	return func() string {
		mu.Lock()
		defer mu.Unlock()
		n++
		return fmt.Sprintf("id%d", n)
	}
}

func toolChoice(raw json.RawMessage) (ai.ToolChoice, error) {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return ai.ToolChoice{Type: provider.ToolChoiceType(s)}, nil
	}
	var tc ai.ToolChoice
	if err := json.Unmarshal(raw, &tc); err != nil {
		return tc, &ScenarioError{"toolChoice: " + err.Error()}
	}
	return tc, nil
}

func toolsContext(raw json.RawMessage) (map[string]any, error) {
	v, ok := decodeValue(raw).(map[string]any)
	if !ok {
		return nil, &ScenarioError{"toolsContext must be an object"}
	}
	return v, nil
}

func stopWhen(raw json.RawMessage) (ai.StopCondition, error) {
	var list []json.RawMessage
	if raw[0] != '[' {
		list = []json.RawMessage{raw}
	} else if err := json.Unmarshal(raw, &list); err != nil {
		return nil, &ScenarioError{"stopWhen: " + err.Error()}
	}
	var conds []ai.StopCondition
	for _, c := range list {
		var sc struct {
			StepCount   *int            `json:"stepCount"`
			HasToolCall json.RawMessage `json:"hasToolCall"`
		}
		if err := json.Unmarshal(c, &sc); err != nil {
			return nil, &ScenarioError{"stopWhen: " + err.Error()}
		}
		switch {
		case sc.StepCount != nil:
			conds = append(conds, ai.StepCountIs(*sc.StepCount))
		case sc.HasToolCall != nil:
			var names []string
			var one string
			if json.Unmarshal(sc.HasToolCall, &one) == nil {
				names = []string{one}
			} else if err := json.Unmarshal(sc.HasToolCall, &names); err != nil {
				return nil, &ScenarioError{"stopWhen.hasToolCall: " + err.Error()}
			}
			conds = append(conds, ai.HasToolCall(names...))
		default:
			return nil, &ScenarioError{"unknown stopWhen " + string(c)}
		}
	}
	return ai.StopWhenAny(conds...), nil
}

// executeRun runs one generation and returns its trace.
func executeRun(ctx context.Context, r Run, b *built, viaAgent bool) (map[string]any, error) {
	rec := &recorder{}
	for _, resp := range r.Responses {
		set := len(resp.Usage) > 0 && string(resp.Usage) != "null"
		for _, c := range resp.Chunks {
			var p struct {
				Type  string          `json:"type"`
				Usage json.RawMessage `json:"usage"`
			}
			if json.Unmarshal(c, &p) == nil && p.Type == "finish" && len(p.Usage) > 0 {
				set = true
			}
		}
		rec.usageSet = append(rec.usageSet, set)
	}
	b.currentMu.Lock()
	b.current = rec
	b.currentMu.Unlock()
	model := &scriptedModel{responses: r.Responses, rec: rec}
	opts, err := b.options(r, model, rec)
	if err != nil {
		return nil, err
	}
	trace := map[string]any{}
	mode := "generate"
	if r.Mode != nil {
		mode = *r.Mode
	}
	if viaAgent && opts.StopWhen == nil {
		// An agent's default is several steps; the scenarios assume one.
		opts.StopWhen = ai.StepCountIs(1)
	}
	switch mode {
	case "generate":
		var res *ai.GenerateTextResult
		var err error
		if viaAgent {
			res, err = agentFor(opts).Generate(ctx, agentCall(opts))
		} else {
			res, err = ai.GenerateText(ctx, opts)
		}
		if err != nil {
			if se := scenarioErr(err); se != nil {
				return nil, se
			}
			trace["error"] = errorEntry(err)
		} else {
			trace["text"] = res.Text
			if r.Output != nil {
				recordOutput(trace, res, r.Output)
			}
		}
	case "stream":
		if err := b.stream(ctx, opts, r.Output, rec, trace, viaAgent); err != nil {
			return nil, err
		}
	default:
		return nil, &ScenarioError{"unknown mode " + mode}
	}
	if model.exhausted {
		return nil, &ScenarioError{fmt.Sprintf("the model was called more often than the %d scripted responses allow", len(r.Responses))}
	}
	trace["calls"] = nonNilList(rec.calls)
	trace["steps"] = nonNilList(rec.steps)
	trace["executions"] = nonNilList(rec.executions)
	if b.custom {
		trace["searches"] = nonNilList(rec.searches)
	}
	return trace, nil
}

func nonNilList(l []any) []any {
	if l == nil {
		return []any{}
	}
	return l
}

func scenarioErr(err error) error {
	var se *ScenarioError
	if errors.As(err, &se) {
		return se
	}
	return nil
}

// agentFor makes an agent holding everything but the prompt of opts.
func agentFor(opts ai.GenerateTextOptions) *ai.Agent {
	settings := opts
	settings.Prompt, settings.Messages = "", nil
	return ai.NewAgent(ai.AgentOptions{Settings: settings})
}

func agentCall(opts ai.GenerateTextOptions) ai.AgentCall {
	return ai.AgentCall{Prompt: opts.Prompt, Messages: opts.Messages}
}
