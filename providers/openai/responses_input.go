package openai

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/aisdkgo/ai/internal/openaichat"
	"github.com/aisdkgo/ai/provider"
)

// inputContext is what converting a prompt to Responses input needs to know.
type inputContext struct {
	systemMode      string
	store           bool
	reasoningModel  bool
	conversation    bool
	previous        bool
	passThroughFile bool
	names           *toolNames
	// outputSchema holds the names of function tools with an output schema,
	// whose results are sent as JSON text.
	outputSchema map[string]bool
	// toolSearch is the application's name of the tool search tool, if any.
	toolSearch string
}

// itemOptions are the "openai" provider options of prompt parts that came
// from Responses output.
type itemOptions struct {
	ItemID                    string  `json:"itemId"`
	Phase                     string  `json:"phase"`
	Namespace                 string  `json:"namespace"`
	ReasoningEncryptedContent *string `json:"reasoningEncryptedContent"`
	ApprovalID                string  `json:"approvalId"`
	Async                     *bool   `json:"async"`
}

func partOptions(po provider.ProviderOptions) itemOptions {
	var o itemOptions
	_, _ = openaichat.DecodeOptions(po, providerKey, &o)
	return o
}

func cacheBreakpoint(po provider.ProviderOptions) any {
	return openaichat.Options(po, providerKey)["promptCacheBreakpoint"]
}

// convertInput turns the prompt into Responses input items.
func convertInput(prompt []provider.Message, c inputContext) ([]map[string]any, []provider.Warning, error) {
	var input []map[string]any
	var warnings []provider.Warning
	approvals := map[string]bool{}
	for _, msg := range prompt {
		switch msg := openaichat.Message(msg).(type) {
		case provider.SystemMessage:
			switch c.systemMode {
			case "remove":
				warnings = append(warnings, provider.Warning{Type: "other", Message: "system messages are removed for this model"})
			case "system", "developer":
				var content any = msg.Content
				if bp := cacheBreakpoint(msg.ProviderOptions); bp != nil {
					content = []any{map[string]any{"type": "input_text", "text": msg.Content, "prompt_cache_breakpoint": bp}}
				}
				input = append(input, map[string]any{"role": c.systemMode, "content": content})
			default:
				return nil, nil, fmt.Errorf("unsupported system message mode %q", c.systemMode)
			}

		case provider.UserMessage:
			parts := make([]any, 0, len(msg.Content))
			for i, p := range msg.Content {
				var wp map[string]any
				var po provider.ProviderOptions
				switch p := p.(type) {
				case provider.TextPart:
					wp = map[string]any{"type": "input_text", "text": p.Text}
					po = p.ProviderOptions
				case provider.FilePart:
					var err error
					if wp, err = userFile(p, i, c.passThroughFile); err != nil {
						return nil, nil, err
					}
					po = p.ProviderOptions
				default:
					return nil, nil, &provider.UnsupportedFunctionalityError{Functionality: fmt.Sprintf("user message part %T", p)}
				}
				if bp := cacheBreakpoint(po); bp != nil {
					wp["prompt_cache_breakpoint"] = bp
				}
				parts = append(parts, wp)
			}
			input = append(input, map[string]any{"role": "user", "content": parts})

		case provider.AssistantMessage:
			items, w, err := assistantItems(msg, c)
			if err != nil {
				return nil, nil, err
			}
			input = append(input, items...)
			warnings = append(warnings, w...)

		case provider.ToolMessage:
			for _, p := range msg.Content {
				switch p := p.(type) {
				case provider.ToolApprovalResponsePart:
					if approvals[p.ApprovalID] {
						continue
					}
					approvals[p.ApprovalID] = true
					if c.store && !c.conversation && !c.previous {
						input = append(input, map[string]any{"type": "item_reference", "id": p.ApprovalID})
					}
					input = append(input, map[string]any{"type": "mcp_approval_response", "approval_request_id": p.ApprovalID, "approve": p.Approved})
				case provider.ToolResultPart:
					if d, ok := p.Output.(provider.ExecutionDeniedOutput); ok && partOptions(d.ProviderOptions).ApprovalID != "" {
						continue // answered by the approval response
					}
					item, w, err := toolResultItem(p, c)
					if err != nil {
						return nil, nil, err
					}
					warnings = append(warnings, w...)
					if item != nil {
						input = append(input, item)
					}
				}
			}

		default:
			return nil, nil, fmt.Errorf("unsupported message type %T", msg)
		}
	}
	if !c.store {
		kept := input[:0]
		dropped := false
		for _, it := range input {
			if it["type"] == "reasoning" && it["encrypted_content"] == nil {
				dropped = true
				continue
			}
			kept = append(kept, it)
		}
		if dropped {
			warnings = append(warnings, provider.Warning{Type: "other",
				Message: "reasoning without encrypted content cannot be sent when store is false and was skipped"})
		}
		input = kept
	}
	return input, warnings, nil
}

func assistantItems(msg provider.AssistantMessage, c inputContext) ([]map[string]any, []provider.Warning, error) {
	var items []map[string]any
	var warnings []provider.Warning
	reasoning := map[string]map[string]any{}
	referenced := map[string]bool{}
	precedingReasoning := false
	for _, p := range msg.Content {
		switch p := p.(type) {
		case provider.TextPart:
			o := partOptions(p.ProviderOptions)
			if c.conversation && o.ItemID != "" {
				continue
			}
			canUseID := o.ItemID != "" && (!c.reasoningModel || precedingReasoning)
			if c.store && canUseID {
				// Several text parts of one message item share its id.
				if !referenced[o.ItemID] {
					referenced[o.ItemID] = true
					items = append(items, map[string]any{"type": "item_reference", "id": o.ItemID})
				}
				continue
			}
			item := map[string]any{"role": "assistant", "content": p.Text}
			if o.Phase != "" {
				item["phase"] = o.Phase
			}
			items = append(items, item)

		case provider.ToolCallPart:
			o := partOptions(p.ProviderOptions)
			if c.conversation && o.ItemID != "" {
				continue
			}
			if c.toolSearch != "" && p.ToolName == c.toolSearch {
				if c.store && o.ItemID != "" {
					items = append(items, map[string]any{"type": "item_reference", "id": o.ItemID})
					continue
				}
				var in struct {
					Arguments json.RawMessage `json:"arguments"`
					CallID    *string         `json:"call_id"`
				}
				if err := json.Unmarshal(toolInput(p.Input), &in); err != nil {
					return nil, nil, fmt.Errorf("tool search call %q: invalid input: %w", p.ToolCallID, err)
				}
				id := o.ItemID
				if id == "" {
					id = p.ToolCallID
				}
				execution := "server"
				var callID any
				if in.CallID != nil {
					execution, callID = "client", *in.CallID
				}
				item := map[string]any{"type": "tool_search_call", "id": id, "execution": execution, "call_id": callID, "status": "completed"}
				if len(in.Arguments) > 0 {
					item["arguments"] = in.Arguments
				}
				items = append(items, item)
				continue
			}
			if p.ProviderExecuted {
				if c.store && o.ItemID != "" {
					items = append(items, map[string]any{"type": "item_reference", "id": o.ItemID})
				}
				continue
			}
			wire := c.names.wire(p.ToolName)
			if c.names.custom[wire] {
				if c.store && o.ItemID != "" {
					if !c.previous {
						items = append(items, map[string]any{"type": "item_reference", "id": o.ItemID})
					}
					continue
				}
				var text string
				if json.Unmarshal(p.Input, &text) != nil {
					text = string(p.Input)
				}
				item := map[string]any{"type": "custom_tool_call", "call_id": p.ToolCallID, "name": wire, "input": text}
				if o.ItemID != "" {
					item["id"] = o.ItemID
				}
				items = append(items, item)
				continue
			}
			item := map[string]any{"type": "function_call", "call_id": p.ToolCallID, "name": wire, "arguments": functionArguments(p.Input)}
			if o.Async != nil {
				item["async"] = *o.Async
			}
			if o.Namespace != "" {
				item["namespace"] = o.Namespace
			}
			items = append(items, item)

		case provider.ToolResultPart:
			it, w, err := providerResultItem(p, c)
			if err != nil {
				return nil, nil, err
			}
			warnings = append(warnings, w...)
			if it != nil {
				items = append(items, it)
			}

		case provider.ReasoningPart:
			precedingReasoning = true
			o := partOptions(p.ProviderOptions)
			if (c.conversation || c.previous) && o.ItemID != "" {
				continue
			}
			if o.ItemID == "" {
				if o.ReasoningEncryptedContent == nil {
					warnings = append(warnings, provider.Warning{Type: "other",
						Message: "reasoning from other providers cannot be sent to OpenAI and was skipped"})
					continue
				}
				summary := []any{}
				if p.Text != "" {
					summary = append(summary, map[string]any{"type": "summary_text", "text": p.Text})
				}
				items = append(items, map[string]any{"type": "reasoning", "encrypted_content": *o.ReasoningEncryptedContent, "summary": summary})
				continue
			}
			existing := reasoning[o.ItemID]
			if c.store {
				if existing == nil {
					items = append(items, map[string]any{"type": "item_reference", "id": o.ItemID})
					reasoning[o.ItemID] = map[string]any{}
				}
				continue
			}
			var summary []any
			if p.Text != "" {
				summary = append(summary, map[string]any{"type": "summary_text", "text": p.Text})
			} else if existing != nil {
				warnings = append(warnings, provider.Warning{Type: "other",
					Message: "an empty reasoning part cannot extend a reasoning item and was skipped"})
			}
			if existing == nil {
				item := map[string]any{"type": "reasoning", "id": o.ItemID, "summary": append([]any{}, summary...)}
				if o.ReasoningEncryptedContent != nil {
					item["encrypted_content"] = *o.ReasoningEncryptedContent
				}
				reasoning[o.ItemID] = item
				items = append(items, item)
			} else {
				existing["summary"] = append(existing["summary"].([]any), summary...)
				if o.ReasoningEncryptedContent != nil {
					existing["encrypted_content"] = *o.ReasoningEncryptedContent
				}
			}
		}
	}
	return items, warnings, nil
}

// providerResultItem converts the result of a provider-executed tool found
// in an assistant message.
func providerResultItem(p provider.ToolResultPart, c inputContext) (map[string]any, []provider.Warning, error) {
	if _, denied := p.Output.(provider.ExecutionDeniedOutput); denied || c.conversation {
		return nil, nil, nil
	}
	o := partOptions(p.ProviderOptions)
	itemID := o.ItemID
	if itemID == "" {
		itemID = p.ToolCallID
	}
	wire := c.names.wire(p.ToolName)
	if wire == "web_search" || wire == "web_search_preview" {
		if c.store {
			return map[string]any{"type": "item_reference", "id": itemID}, nil, nil
		}
		if item := webSearchCallItem(p.Output, itemID); item != nil {
			return item, nil, nil
		}
	}
	if c.toolSearch != "" && p.ToolName == c.toolSearch {
		if c.store {
			return map[string]any{"type": "item_reference", "id": itemID}, nil, nil
		}
		if out, ok := p.Output.(provider.JSONOutput); ok {
			var v struct {
				Tools []json.RawMessage `json:"tools"`
			}
			if err := json.Unmarshal(out.Value, &v); err != nil {
				return nil, nil, fmt.Errorf("tool search result %q: %w", p.ToolCallID, err)
			}
			return map[string]any{"type": "tool_search_output", "id": itemID, "execution": "server", "call_id": nil,
				"status": "completed", "tools": nonNilTools(v.Tools)}, nil, nil
		}
		return nil, nil, nil
	}
	if c.store {
		return map[string]any{"type": "item_reference", "id": itemID}, nil, nil
	}
	return nil, []provider.Warning{{Type: "other",
		Message: fmt.Sprintf("results of the OpenAI tool %s are not sent when store is false", p.ToolName)}}, nil
}

func nonNilTools(t []json.RawMessage) []json.RawMessage {
	if t == nil {
		return []json.RawMessage{}
	}
	return t
}

// webSearchCallItem rebuilds a web_search_call item from a web search result
// {"action": {...}, "sources": [...]}; nil when the result has no action.
func webSearchCallItem(out provider.ToolResultOutput, id string) map[string]any {
	j, ok := out.(provider.JSONOutput)
	if !ok {
		return nil
	}
	var v struct {
		Action *struct {
			Type    string   `json:"type"`
			Query   *string  `json:"query"`
			Queries []string `json:"queries"`
			URL     *string  `json:"url"`
			Pattern *string  `json:"pattern"`
		} `json:"action"`
		Sources json.RawMessage `json:"sources"`
	}
	if json.Unmarshal(j.Value, &v) != nil || v.Action == nil {
		return nil
	}
	action := map[string]any{}
	switch v.Action.Type {
	case "search":
		action["type"] = "search"
		if v.Action.Query != nil {
			action["query"] = *v.Action.Query
		}
		if v.Action.Queries != nil {
			action["queries"] = v.Action.Queries
		}
		if len(v.Sources) > 0 && string(v.Sources) != "null" {
			action["sources"] = v.Sources
		}
	case "openPage":
		action["type"] = "open_page"
		action["url"] = v.Action.URL
	case "findInPage":
		action["type"] = "find_in_page"
		action["url"] = v.Action.URL
		action["pattern"] = v.Action.Pattern
	default:
		return nil
	}
	return map[string]any{"type": "web_search_call", "id": id, "status": "completed", "action": action}
}

// toolResultItem converts a tool result from a tool message.
func toolResultItem(p provider.ToolResultPart, c inputContext) (map[string]any, []provider.Warning, error) {
	if c.toolSearch != "" && p.ToolName == c.toolSearch {
		if out, ok := p.Output.(provider.JSONOutput); ok {
			var v struct {
				Tools []json.RawMessage `json:"tools"`
			}
			if err := json.Unmarshal(out.Value, &v); err != nil {
				return nil, nil, fmt.Errorf("tool search result %q: %w", p.ToolCallID, err)
			}
			return map[string]any{"type": "tool_search_output", "execution": "client", "call_id": p.ToolCallID,
				"status": "completed", "tools": nonNilTools(v.Tools)}, nil, nil
		}
	}
	typ := "function_call_output"
	custom := c.names.custom[c.names.wire(p.ToolName)]
	if custom {
		typ = "custom_tool_call_output"
	}
	output, warnings := functionOutput(p, !custom && c.outputSchema[p.ToolName])
	return map[string]any{"type": typ, "call_id": p.ToolCallID, "output": output}, warnings, nil
}

// functionOutput renders a tool result: a string, or input parts for
// content outputs. The API parses the output of a tool with an output schema
// as JSON, so asJSON turns text and denial reasons into JSON strings.
func functionOutput(p provider.ToolResultPart, asJSON bool) (any, []provider.Warning) {
	co, ok := p.Output.(provider.ContentOutput)
	if !ok {
		text := openaichat.ToolOutputText(p.Output, true)
		switch p.Output.(type) {
		case provider.TextOutput, provider.ExecutionDeniedOutput:
			if asJSON {
				text = openaichat.MarshalString(text)
			}
		}
		bp := cacheBreakpoint(provider.OutputProviderOptions(p.Output))
		if bp == nil {
			bp = cacheBreakpoint(p.ProviderOptions)
		}
		if bp != nil {
			return []any{map[string]any{"type": "input_text", "text": text, "prompt_cache_breakpoint": bp}}, nil
		}
		return text, nil
	}
	var warnings []provider.Warning
	parts := []any{}
	for _, part := range co.Value {
		var wp map[string]any
		var po provider.ProviderOptions
		switch part := part.(type) {
		case provider.TextPart:
			wp = map[string]any{"type": "input_text", "text": part.Text}
			po = part.ProviderOptions
		case provider.FilePart:
			po = part.ProviderOptions
			wp = outputFile(part)
			if wp == nil {
				warnings = append(warnings, provider.Warning{Type: "other", Message: "a file in a tool result could not be sent and was skipped"})
				continue
			}
		default:
			warnings = append(warnings, provider.Warning{Type: "other", Message: fmt.Sprintf("unsupported tool result content part %T was skipped", part)})
			continue
		}
		if bp := cacheBreakpoint(po); bp != nil {
			wp["prompt_cache_breakpoint"] = bp
		}
		parts = append(parts, wp)
	}
	return parts, warnings
}

// outputFile converts a file of a tool result's content.
func outputFile(p provider.FilePart) map[string]any {
	url, isURL := openaichat.FileURL(p.Data)
	data, inline := openaichat.FileBytes(p.Data)
	id, isRef := openaichat.FileReference(p.Data, providerKey)
	if openaichat.IsImage(p.MediaType) {
		img := map[string]any{"type": "input_image"}
		switch {
		case isURL:
			img["image_url"] = url
		case inline:
			img["image_url"] = openaichat.DataURL(openaichat.ImageMediaType(p.MediaType), data)
		case isRef:
			img["file_id"] = id
		default:
			return nil
		}
		if d := openaichat.StringOption(p.ProviderOptions, providerKey, "imageDetail"); d != "" {
			img["detail"] = d
		}
		return img
	}
	switch {
	case isURL:
		return map[string]any{"type": "input_file", "file_url": url}
	case inline:
		name := p.Filename
		if name == "" {
			name = "data"
		}
		return map[string]any{"type": "input_file", "filename": name, "file_data": openaichat.DataURL(p.MediaType, data)}
	case isRef:
		return map[string]any{"type": "input_file", "file_id": id}
	}
	return nil
}

// userFile converts a file of a user message.
func userFile(p provider.FilePart, index int, passThrough bool) (map[string]any, error) {
	mt := p.MediaType
	url, isURL := openaichat.FileURL(p.Data)
	data, inline := openaichat.FileBytes(p.Data)
	id, isRef := openaichat.FileReference(p.Data, providerKey)
	if openaichat.IsImage(mt) {
		mt = openaichat.ImageMediaType(mt)
		img := map[string]any{"type": "input_image"}
		switch {
		case isURL:
			img["image_url"] = url
		case isRef:
			img["file_id"] = id
		case inline:
			img["image_url"] = openaichat.DataURL(mt, data)
		default:
			return nil, &provider.UnsupportedFunctionalityError{Functionality: "image file data without an OpenAI file id"}
		}
		if d := openaichat.StringOption(p.ProviderOptions, providerKey, "imageDetail"); d != "" {
			img["detail"] = d
		}
		return img, nil
	}
	if isURL {
		return map[string]any{"type": "input_file", "file_url": url}, nil
	}
	if mt != "application/pdf" && !passThrough {
		return nil, &provider.UnsupportedFunctionalityError{Functionality: "file part media type " + mt}
	}
	if isRef {
		return map[string]any{"type": "input_file", "file_id": id}, nil
	}
	if !inline {
		return nil, &provider.UnsupportedFunctionalityError{Functionality: "file data without an OpenAI file id"}
	}
	name := p.Filename
	if name == "" {
		name = fmt.Sprintf("part-%d", index)
		if mt == "application/pdf" {
			name += ".pdf"
		}
	}
	return map[string]any{"type": "input_file", "filename": name, "file_data": openaichat.DataURL(mt, data)}, nil
}

// toolInput returns a prompt tool call's input as a JSON object; a JSON
// string holding JSON is unwrapped.
func toolInput(in json.RawMessage) json.RawMessage {
	var s string
	if json.Unmarshal(in, &s) == nil && json.Valid([]byte(s)) {
		return json.RawMessage(s)
	}
	if len(strings.TrimSpace(string(in))) == 0 {
		return json.RawMessage("{}")
	}
	return in
}

// functionArguments renders a prompt tool call's input as the argument
// string of a function_call item; text that is not JSON is sent as a JSON
// string.
func functionArguments(in json.RawMessage) string {
	in = toolInput(in)
	var buf bytes.Buffer
	if json.Compact(&buf, in) != nil {
		b, _ := json.Marshal(string(in))
		return string(b)
	}
	return buf.String()
}
