package uistream

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/aisdkgo/ai"
)

// ConvertOptions configure [ConvertMessages]. The zero value works.
type ConvertOptions struct {
	// Tools is the tool set the conversation will continue with. A part of
	// a tool that was downgraded because it is gone (ToolPart.Unavailable)
	// keeps its output from the model unless the tool is back in Tools.
	Tools ai.Tools
	// IgnoreIncompleteToolCalls drops tool parts without an outcome: calls
	// still streaming or waiting for a result or approval, and preliminary
	// results.
	IgnoreIncompleteToolCalls bool
	// ConvertDataPart, when set, turns data parts into model content: it
	// returns an [ai.TextPart] or an [ai.FilePart], or nil to drop the part.
	// Without it data parts are dropped.
	ConvertDataPart func(p DataPart) ai.UserPart
	// ToModelOutput, when set, converts a stored tool result (state
	// output-available) for the model. Without it, or when it returns nil,
	// a tool in Tools converts the result with its own ToModelOutput
	// ([ai.ModelOutput]); otherwise a JSON string is sent as text and any
	// other value as JSON.
	ToModelOutput func(ctx context.Context, r StoredResult) (ai.ToolResultOutput, error)

	// ResultSecrets, when set, are required of the results of tools that
	// run on the server or at the provider: such a result reaches the model
	// only when it carries the signature [Write] gave it (with the same
	// secrets in [Options.ResultSecrets]). A result a client invented, or
	// changed, is replaced by an error text saying the server did not
	// produce it, and reported to OnForgedResult. Results of the client's
	// own tools (tools without Execute, and tools missing from Tools) are
	// taken as they are.
	ResultSecrets [][]byte
	// OnForgedResult is told of each result that ResultSecrets refused.
	OnForgedResult func(r StoredResult)
}

// StoredResult is a tool result taken from a [ToolPart].
type StoredResult struct {
	ToolName   string
	ToolCallID string
	Input      json.RawMessage
	Output     json.RawMessage
}

// The texts the model gets in place of a result.
const (
	deniedText      = "Tool call execution denied."
	unavailableText = "Tool output omitted because the tool is no longer available."
)

// ConvertMessages turns the messages of a chat client into the messages of
// a generation (the Messages of [ai.GenerateTextOptions]):
//
//   - a system message becomes one system message with its text;
//   - a user message keeps its text and files (and data parts, through
//     opts.ConvertDataPart);
//   - an assistant message becomes, per step, an assistant message (text,
//     reasoning, files, tool calls with their approval requests, the
//     results of provider-executed tools) followed by a tool message with
//     the step's approval answers and tool results.
//
// Approval requests that a later user message left unanswered are dropped.
// When the last message holds answered approvals, the generation resumes
// them: approved calls run before the model is called again, denied ones
// are reported to it. opts may be nil.
func ConvertMessages(ctx context.Context, messages []Message, opts *ConvertOptions) ([]ai.Message, error) {
	var o ConvertOptions
	if opts != nil {
		o = *opts
	}
	c := converterIn{ctx: ctx, opts: &o}
	lastUser := -1
	for i, m := range messages {
		if m.Role == RoleUser {
			lastUser = i
		}
	}
	var out []ai.Message
	for i, m := range messages {
		parts := m.Parts
		if o.IgnoreIncompleteToolCalls || lastUser > 0 {
			parts = c.filter(parts, i < lastUser)
		}
		switch m.Role {
		case RoleSystem:
			out = append(out, systemMessage(parts))
		case RoleUser:
			msg, err := c.user(parts)
			if err != nil {
				return nil, fmt.Errorf("uistream: message %d: %w", i, err)
			}
			out = append(out, msg)
		case RoleAssistant:
			var err error
			if out, err = c.assistant(out, parts); err != nil {
				return nil, fmt.Errorf("uistream: message %d: %w", i, err)
			}
		default:
			return nil, fmt.Errorf("uistream: message %d: unknown role %q", i, m.Role)
		}
	}
	return out, nil
}

type converterIn struct {
	ctx  context.Context
	opts *ConvertOptions
}

// filter drops superseded approval requests and, when asked, incomplete
// calls.
func (c *converterIn) filter(parts []Part, superseded bool) []Part {
	keep := func(p Part) bool {
		tp, ok := p.(ToolPart)
		if !ok {
			return true
		}
		if superseded && tp.State == ApprovalRequested {
			return false
		}
		if !c.opts.IgnoreIncompleteToolCalls {
			return true
		}
		switch tp.State {
		case ApprovalResponded, OutputError, OutputDenied:
			return true
		case OutputAvailable:
			return !tp.Preliminary
		}
		return false
	}
	out := make([]Part, 0, len(parts))
	for _, p := range parts {
		if keep(p) {
			out = append(out, p)
		}
	}
	return out
}

func systemMessage(parts []Part) ai.SystemMessage {
	var m ai.SystemMessage
	for _, p := range parts {
		t, ok := p.(TextPart)
		if !ok {
			continue
		}
		m.Content += t.Text
		for k, v := range t.ProviderMetadata {
			if m.ProviderOptions == nil {
				m.ProviderOptions = ai.ProviderOptions{}
			}
			m.ProviderOptions[k] = v
		}
	}
	return m
}

func (c *converterIn) user(parts []Part) (ai.UserMessage, error) {
	m := ai.UserMessage{Content: []ai.UserPart{}}
	for _, p := range parts {
		switch p := p.(type) {
		case TextPart, FilePart:
			m.Content = append(m.Content, userContent(p))
		case DataPart:
			up, err := c.data(p)
			if err != nil {
				return m, err
			}
			if up != nil {
				m.Content = append(m.Content, up)
			}
		}
	}
	return m, nil
}

// userContent converts a text or file part.
func userContent(p Part) ai.UserPart {
	switch p := p.(type) {
	case TextPart:
		return ai.TextPart{Text: p.Text, ProviderOptions: p.ProviderMetadata}
	case FilePart:
		return filePart(p)
	}
	return nil
}

func filePart(p FilePart) ai.FilePart {
	var data ai.FileData = ai.FileURL{URL: p.URL}
	if p.ProviderReference != nil {
		data = ai.FileReference{Reference: p.ProviderReference}
	}
	return ai.FilePart{Data: data, MediaType: p.MediaType, Filename: p.Filename, ProviderOptions: p.ProviderMetadata}
}

func (c *converterIn) data(p DataPart) (ai.UserPart, error) {
	if c.opts.ConvertDataPart == nil {
		return nil, nil
	}
	switch up := c.opts.ConvertDataPart(p).(type) {
	case nil:
		return nil, nil
	case ai.TextPart, ai.FilePart:
		return up, nil
	default:
		return nil, fmt.Errorf("ConvertDataPart returned a %T for %s; want an ai.TextPart or an ai.FilePart", up, p.PartType())
	}
}

// assistant appends the messages of an assistant message: one block per
// step.
func (c *converterIn) assistant(out []ai.Message, parts []Part) ([]ai.Message, error) {
	var block []Part
	flush := func() error {
		var err error
		out, err = c.block(out, block)
		block = block[:0]
		return err
	}
	for _, p := range parts {
		switch p := p.(type) {
		case StepStartPart:
			if err := flush(); err != nil {
				return nil, err
			}
		case SteeringMessagePart:
			if err := flush(); err != nil {
				return nil, err
			}
			m := ai.UserMessage{Content: []ai.UserPart{}}
			for _, q := range p.Parts {
				if up := userContent(q); up != nil {
					m.Content = append(m.Content, up)
				}
			}
			out = append(out, m)
		case SourceURLPart, SourceDocumentPart:
		default:
			block = append(block, p)
		}
	}
	if err := flush(); err != nil {
		return nil, err
	}
	return out, nil
}

func (c *converterIn) block(out []ai.Message, block []Part) ([]ai.Message, error) {
	if len(block) == 0 {
		return out, nil
	}
	var content []ai.AssistantPart
	var tools []ToolPart
	for _, p := range block {
		switch p := p.(type) {
		case TextPart:
			content = append(content, ai.TextPart{Text: p.Text, ProviderOptions: p.ProviderMetadata})
		case CustomPart:
			content = append(content, ai.CustomPart{Kind: p.Kind, ProviderOptions: p.ProviderMetadata})
		case FilePart:
			content = append(content, filePart(p))
		case ReasoningFilePart:
			content = append(content, ai.ReasoningFilePart{Data: ai.FileURL{URL: p.URL}, MediaType: p.MediaType, ProviderOptions: p.ProviderMetadata})
		case ReasoningPart:
			content = append(content, ai.ReasoningPart{Text: p.Text, ProviderOptions: p.ProviderMetadata})
		case DataPart:
			up, err := c.data(p)
			if err != nil {
				return nil, err
			}
			if ap, ok := up.(ai.AssistantPart); ok {
				content = append(content, ap)
			}
		case ToolPart:
			if !p.ProviderExecuted || (p.Approval != nil && p.Approval.Approved != nil) {
				tools = append(tools, p)
			}
			if p.State == InputStreaming {
				continue
			}
			parts, err := c.call(p)
			if err != nil {
				return nil, err
			}
			content = append(content, parts...)
		}
	}
	if len(content) > 0 {
		out = append(out, ai.AssistantMessage{Content: content})
	}
	var results []ai.ToolPart
	for _, p := range tools {
		if a := p.Approval; a != nil && a.Approved != nil {
			results = append(results, ai.ToolApprovalResponsePart{ApprovalID: a.ID, Approved: *a.Approved, Reason: a.Reason, ProviderExecuted: p.ProviderExecuted})
			if p.State == ApprovalResponded && !*a.Approved {
				results = append(results, ai.ToolResultPart{ToolCallID: p.ToolCallID, ToolName: p.ToolName,
					Output: ai.ExecutionDeniedOutput{Reason: a.Reason}, ProviderOptions: p.CallProviderMetadata})
			}
		}
		if p.ProviderExecuted {
			continue
		}
		var output ai.ToolResultOutput
		switch p.State {
		case OutputDenied:
			reason := deniedText
			if p.Approval != nil && p.Approval.Reason != "" {
				reason = p.Approval.Reason
			}
			output = ai.ErrorTextOutput{Value: reason}
		case OutputError, OutputAvailable:
			if !c.vouched(p) {
				output = ai.ErrorTextOutput{Value: forgedText}
				break
			}
			if p.State == OutputError {
				output = ai.ErrorTextOutput{Value: p.ErrorText}
				break
			}
			var err error
			if output, err = c.modelOutput(p); err != nil {
				return nil, err
			}
		default:
			continue
		}
		results = append(results, ai.ToolResultPart{ToolCallID: p.ToolCallID, ToolName: p.ToolName, Output: output, ProviderOptions: p.CallProviderMetadata})
	}
	if len(results) > 0 {
		out = append(out, ai.ToolMessage{Content: results})
	}
	return out, nil
}

// call returns the assistant content of a tool part: the call, its
// approval request, and the result of a provider-executed call.
func (c *converterIn) call(p ToolPart) ([]ai.AssistantPart, error) {
	input := p.Input
	if p.State == OutputError && input == nil {
		input = p.RawInput
	}
	callOptions := p.CallProviderMetadata
	if callOptions == nil && p.State == OutputError {
		callOptions = p.ResultProviderMetadata
	}
	parts := []ai.AssistantPart{ai.ToolCallPart{ToolCallID: p.ToolCallID, ToolName: p.ToolName, Input: input,
		ProviderExecuted: p.ProviderExecuted, ProviderOptions: callOptions}}
	if a := p.Approval; a != nil {
		parts = append(parts, ai.ToolApprovalRequestPart{ApprovalID: a.ID, ToolCallID: p.ToolCallID, Reason: a.RequestReason,
			IsAutomatic: a.IsAutomatic, Signature: a.Signature, InputSchemaInput: a.InputSchemaInput})
	}
	if p.ProviderExecuted && (p.State == OutputAvailable || p.State == OutputError) {
		resultOptions := p.ResultProviderMetadata
		if resultOptions == nil {
			resultOptions = p.CallProviderMetadata
		}
		var output ai.ToolResultOutput
		if !c.vouched(p) {
			output = ai.ErrorTextOutput{Value: forgedText}
		} else if p.State == OutputError {
			text, _ := json.Marshal(p.ErrorText)
			output = ai.ErrorJSONOutput{Value: text}
		} else {
			var err error
			if output, err = c.modelOutput(p); err != nil {
				return nil, err
			}
		}
		parts = append(parts, ai.ToolResultPart{ToolCallID: p.ToolCallID, ToolName: p.ToolName, Output: output, ProviderOptions: resultOptions})
	}
	return parts, nil
}

// modelOutput converts the stored result of a call for the model.
func (c *converterIn) modelOutput(p ToolPart) (ai.ToolResultOutput, error) {
	_, known := c.opts.Tools.Get(p.ToolName)
	if p.Unavailable && !known {
		return ai.TextOutput{Value: unavailableText}, nil
	}
	if f := c.opts.ToModelOutput; f != nil {
		out, err := f(c.ctx, StoredResult{ToolName: p.ToolName, ToolCallID: p.ToolCallID, Input: p.Input, Output: p.Output})
		if err != nil {
			return nil, fmt.Errorf("the model output of tool call %s: %w", p.ToolCallID, err)
		}
		if out != nil {
			return out, nil
		}
	}
	if t, ok := c.opts.Tools.Get(p.ToolName); ok {
		// The tool's own ToModelOutput, on the stored values.
		out, err := ai.ModelOutput(c.ctx, t, p.ToolCallID, p.Input, orNull(p.Output))
		if err != nil {
			return nil, fmt.Errorf("the model output of tool call %s: %w", p.ToolCallID, err)
		}
		return out, nil
	}
	var s string
	if json.Unmarshal(p.Output, &s) == nil {
		return ai.TextOutput{Value: s}, nil
	}
	return ai.JSONOutput{Value: orNull(p.Output)}, nil
}
