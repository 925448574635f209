package ai

import (
	"encoding/json"
	"errors"
	"slices"
	"strings"

	"github.com/aisdkgo/ai/provider"
)

// parseCall turns a provider tool call into a validated ToolCall, or an
// invalid one, repairing it when a repair function is set.
func (r *run) parseCall(s *step, pc provider.ToolCall) ToolCall {
	call, err := r.parseOnce(s, pc)
	if err == nil {
		return call
	}
	if r.opts.RepairToolCall != nil && s.tools.exec {
		var nst *NoSuchToolError
		var iti *InvalidToolInputError
		if errors.As(err, &nst) || errors.As(err, &iti) {
			fixed, rerr := r.repair(s, pc, err)
			switch {
			case rerr != nil:
				err = &ToolCallRepairError{OriginalError: err, Cause: rerr}
			case fixed != nil:
				pc.ToolName = fixed.ToolName
				pc.Input = fixed.Input
				call, err = r.parseOnce(s, pc)
				if err == nil {
					return call
				}
			}
		}
	}
	return r.invalidCall(s, pc, err)
}

func (r *run) repair(s *step, pc provider.ToolCall, cause error) (fixed *RepairedCall, err error) {
	defer func() {
		if v := recover(); v != nil {
			err = &CallbackPanicError{Callback: "RepairToolCall", Panic: v}
		}
	}()
	return r.opts.RepairToolCall(s.ctx, RepairRequest{
		ToolCallID:   pc.ToolCallID,
		ToolName:     pc.ToolName,
		Input:        pc.Input,
		Err:          cause,
		Tools:        s.tools.modelTools(),
		Messages:     s.messages,
		Instructions: r.instructions,
	})
}

// parseOnce looks the tool up among the tools the model saw and validates
// the input.
func (r *run) parseOnce(s *step, pc provider.ToolCall) (ToolCall, error) {
	text := strings.TrimSpace(pc.Input)
	if text == "" {
		text = "{}"
	}
	if s.tools.none {
		if pc.ProviderExecuted && pc.Dynamic {
			return dynamicProviderCall(pc, text), nil
		}
		return ToolCall{}, &NoSuchToolError{ToolName: pc.ToolName}
	}
	e, ok := s.tools.modelTool(pc.ToolName)
	if !ok {
		if pc.ProviderExecuted && pc.Dynamic {
			return dynamicProviderCall(pc, text), nil
		}
		return ToolCall{}, &NoSuchToolError{ToolName: pc.ToolName, AvailableTools: s.tools.modelToolNames()}
	}
	c := e.tool.core()
	raw, value, err := c.parseInput(pc.ToolName, pc.Input)
	if err != nil {
		return ToolCall{}, err
	}
	return ToolCall{
		ToolCallID:       pc.ToolCallID,
		ToolName:         pc.ToolName,
		Input:            raw,
		ProviderExecuted: pc.ProviderExecuted,
		Dynamic:          e.tool.Kind() == DynamicKind,
		Title:            c.title,
		ToolMetadata:     c.metadata,
		ProviderMetadata: pc.ProviderMetadata,
		value:            value,
	}, nil
}

// parseInput turns a call's input text into validated JSON and the value the
// tool's callbacks receive. Empty input counts as {}. It is the one place
// where tool input is checked, for direct calls, resumed approvals and calls
// made by caller tools alike.
func (c *toolCore) parseInput(name, input string) (json.RawMessage, any, error) {
	text := strings.TrimSpace(input)
	if text == "" {
		text = "{}"
	}
	raw := json.RawMessage(text)
	if err := parseJSON(raw); err != nil {
		return nil, nil, &InvalidToolInputError{ToolName: name, ToolInput: input, Cause: &JSONParseError{Text: text, Cause: err}}
	}
	if err := c.input.validate(raw); err != nil {
		return nil, nil, &InvalidToolInputError{ToolName: name, ToolInput: input, Cause: &TypeValidationError{Value: raw, Cause: err}}
	}
	value, err := c.decode(raw)
	if err != nil {
		return nil, nil, &InvalidToolInputError{ToolName: name, ToolInput: input, Cause: &TypeValidationError{Value: raw, Cause: err}}
	}
	return raw, value, nil
}

func dynamicProviderCall(pc provider.ToolCall, text string) ToolCall {
	input := json.RawMessage(text)
	if !json.Valid(input) {
		input, _ = json.Marshal(text)
	}
	return ToolCall{
		ToolCallID:       pc.ToolCallID,
		ToolName:         pc.ToolName,
		Input:            input,
		ProviderExecuted: true,
		Dynamic:          true,
		ProviderMetadata: pc.ProviderMetadata,
	}
}

// invalidCall records a call that could not be parsed. Its input is the
// parsed JSON when the text parses, else the text as a JSON string.
func (r *run) invalidCall(s *step, pc provider.ToolCall, err error) ToolCall {
	input := json.RawMessage(strings.TrimSpace(pc.Input))
	if !json.Valid(input) {
		input, _ = json.Marshal(pc.Input)
	}
	call := ToolCall{
		ToolCallID:       pc.ToolCallID,
		ToolName:         pc.ToolName,
		Input:            input,
		ProviderExecuted: pc.ProviderExecuted,
		Dynamic:          true,
		Invalid:          true,
		Error:            err,
		ProviderMetadata: pc.ProviderMetadata,
	}
	if e, ok := s.tools.modelTool(pc.ToolName); ok {
		call.Title = e.tool.core().title
		call.ToolMetadata = e.tool.core().metadata
	}
	return call
}

func invalidCallError(call ToolCall) ToolError {
	return ToolError{
		ToolCallID:       call.ToolCallID,
		ToolName:         call.ToolName,
		Input:            call.Input,
		Error:            call.Error,
		Dynamic:          true,
		ToolMetadata:     call.ToolMetadata,
		ProviderMetadata: call.ProviderMetadata,
	}
}

// providerResult converts the result of a provider-executed call. Its input
// is the call's; in a stream the dynamic flag is the provider's alone, in a
// non-streaming step the call's. A result whose call is not in the step is
// an error in a non-streaming step, unless the tool delivers results later
// (then it has no input).
func (r *run) providerResult(c provider.ToolResult, calls []*callState) (ContentPart, error) {
	var input json.RawMessage
	dynamic := c.Dynamic
	var meta map[string]any
	if i := slices.IndexFunc(calls, func(cs *callState) bool { return cs.call.ToolCallID == c.ToolCallID }); i >= 0 {
		call := calls[i].call
		input = call.Input
		meta = call.ToolMetadata
		if !r.stream {
			dynamic = call.Dynamic
		}
	} else if !r.stream {
		t, _ := r.idx.get(c.ToolName)
		pt, ok := t.(*ProviderTool)
		if !ok || !pt.supportsDeferredResults {
			return nil, &UnknownToolCallResultError{ToolCallID: c.ToolCallID, ToolName: c.ToolName}
		}
		meta = pt.c.metadata
	}
	if c.IsError {
		return ToolError{
			ToolCallID: c.ToolCallID, ToolName: c.ToolName, Input: input,
			Error: &ProviderToolError{Value: c.Result}, ProviderExecuted: true, Dynamic: dynamic,
			ToolMetadata: meta, ProviderMetadata: c.ProviderMetadata,
		}, nil
	}
	return ToolResult{
		ToolCallID: c.ToolCallID, ToolName: c.ToolName, Input: input, Output: c.Result,
		ProviderExecuted: true, Dynamic: dynamic, Preliminary: c.Preliminary,
		ToolMetadata: meta, ProviderMetadata: c.ProviderMetadata,
	}, nil
}

// checkToolChoice enforces a none, required or specific tool choice.
func checkToolChoice(s *step, calls []*callState, finish FinishReason, model provider.LanguageModel) error {
	choice := s.tools.choice
	var violated bool
	switch choice.Type {
	case ToolChoiceNone:
		violated = len(calls) > 0
	case ToolChoiceRequired:
		violated = len(calls) == 0 && finish != FinishInterrupted
	case ToolChoiceTool:
		violated = finish != FinishInterrupted && !slices.ContainsFunc(calls, func(c *callState) bool { return c.call.ToolName == choice.ToolName })
	}
	if !violated {
		return nil
	}
	return &ToolChoiceViolationError{ToolChoice: choice, FinishReason: finish, Provider: model.Provider(), ModelID: model.ModelID()}
}
