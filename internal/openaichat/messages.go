package openaichat

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/aisdkgo/ai/provider"
)

// DeniedMessage is what the model is told about a tool call that was not
// run because it was denied, when no reason was given.
const DeniedMessage = "Tool call execution denied."

// ToolOutputText renders a tool result for APIs that take text: the text of
// text outputs, the reason of denials, and compact JSON for JSON and content
// outputs. Error outputs are rendered as {"error": <value>} when wrapErrors
// is set (neither OpenAI API has an error flag on tool results, so the
// wrapper is how the model learns that the call failed), and like their
// non-error forms otherwise.
func ToolOutputText(out provider.ToolResultOutput, wrapErrors bool) string {
	switch o := out.(type) {
	case provider.TextOutput:
		return o.Value
	case provider.ErrorTextOutput:
		if wrapErrors {
			return `{"error":` + MarshalString(o.Value) + `}`
		}
		return o.Value
	case provider.ExecutionDeniedOutput:
		if o.Reason != "" {
			return o.Reason
		}
		return DeniedMessage
	case provider.JSONOutput:
		return CompactJSON(o.Value)
	case provider.ErrorJSONOutput:
		if wrapErrors {
			return `{"error":` + CompactJSON(o.Value) + `}`
		}
		return CompactJSON(o.Value)
	case provider.ContentOutput:
		parts := o.Value
		if parts == nil {
			parts = []provider.ContentOutputPart{}
		}
		return MarshalText(parts)
	case nil:
		return ""
	}
	return MarshalText(out)
}

// CompactJSON returns a JSON value without insignificant whitespace, as
// JSON.stringify writes it: keys keep their order and characters are not
// escaped beyond what JSON requires. Empty input is null; input that is not
// JSON is returned as it is.
func CompactJSON(v json.RawMessage) string {
	if len(v) == 0 {
		return "null"
	}
	var buf bytes.Buffer
	if json.Compact(&buf, v) != nil {
		return string(v)
	}
	return buf.String()
}

// MarshalString returns s as a JSON string literal without HTML escaping.
func MarshalString(s string) string { return MarshalText(s) }

// MarshalText returns the JSON encoding of v without HTML escaping (so "<"
// stays "<", as in JSON.stringify), or "null" when v cannot be encoded.
func MarshalText(v any) string {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if enc.Encode(v) != nil {
		return "null"
	}
	return strings.TrimSuffix(buf.String(), "\n")
}

// Message returns the value behind a message (pointer or value).
func Message(m provider.Message) provider.Message {
	switch v := m.(type) {
	case *provider.SystemMessage:
		return *v
	case *provider.UserMessage:
		return *v
	case *provider.AssistantMessage:
		return *v
	case *provider.ToolMessage:
		return *v
	}
	return m
}

// convertMessages turns the prompt into chat messages.
func (m *Model) convertMessages(prompt []provider.Message, systemMode, partKey string) ([]map[string]any, []provider.Warning, error) {
	var out []map[string]any
	var warnings []provider.Warning
	breakpoint := func(po provider.ProviderOptions) any {
		if !m.s.OpenAIOptions {
			return nil
		}
		return Options(po, partKey)["promptCacheBreakpoint"]
	}
	spread := func(dst map[string]any, po provider.ProviderOptions) map[string]any {
		if m.s.MessageOptionsKey == "" {
			return dst
		}
		for k, v := range po[m.s.MessageOptionsKey] {
			dst[k] = v
		}
		return dst
	}

	for i, msg := range prompt {
		switch msg := Message(msg).(type) {
		case provider.SystemMessage:
			if systemMode == "remove" {
				warnings = append(warnings, provider.Warning{Type: "other", Message: "system messages are removed for this model"})
				continue
			}
			if systemMode != "system" && systemMode != "developer" {
				return nil, nil, fmt.Errorf("unsupported system message mode %q", systemMode)
			}
			var content any = msg.Content
			if bp := breakpoint(msg.ProviderOptions); bp != nil {
				content = []any{map[string]any{"type": "text", "text": msg.Content, "prompt_cache_breakpoint": bp}}
			}
			out = append(out, spread(map[string]any{"role": systemMode, "content": content}, msg.ProviderOptions))

		case provider.UserMessage:
			if len(msg.Content) == 1 {
				if tp, ok := msg.Content[0].(provider.TextPart); ok && breakpoint(tp.ProviderOptions) == nil {
					wm := spread(map[string]any{"role": "user", "content": tp.Text}, tp.ProviderOptions)
					out = append(out, spread(wm, msg.ProviderOptions))
					continue
				}
			}
			parts := make([]any, 0, len(msg.Content))
			for j, p := range msg.Content {
				var wp map[string]any
				var po provider.ProviderOptions
				switch p := p.(type) {
				case provider.TextPart:
					wp = map[string]any{"type": "text", "text": p.Text}
					po = p.ProviderOptions
				case provider.FilePart:
					var err error
					wp, err = m.userFile(p, j, partKey)
					if err != nil {
						return nil, nil, err
					}
					po = p.ProviderOptions
				default:
					return nil, nil, &provider.UnsupportedFunctionalityError{Functionality: fmt.Sprintf("user message part %T", p)}
				}
				if bp := breakpoint(po); bp != nil {
					wp["prompt_cache_breakpoint"] = bp
				}
				parts = append(parts, spread(wp, po))
			}
			out = append(out, spread(map[string]any{"role": "user", "content": parts}, msg.ProviderOptions))

		case provider.AssistantMessage:
			var text, reasoning strings.Builder
			var textParts []any
			hasBreakpoint := false
			var calls []any
			for _, p := range msg.Content {
				switch p := p.(type) {
				case provider.TextPart:
					text.WriteString(p.Text)
					tp := map[string]any{"type": "text", "text": p.Text}
					if bp := breakpoint(p.ProviderOptions); bp != nil {
						tp["prompt_cache_breakpoint"] = bp
						hasBreakpoint = true
					}
					textParts = append(textParts, tp)
				case provider.ReasoningPart:
					reasoning.WriteString(p.Text)
				case provider.ToolCallPart:
					if p.ProviderExecuted {
						continue
					}
					call := map[string]any{
						"id":   p.ToolCallID,
						"type": "function",
						"function": map[string]any{
							"name":      p.ToolName,
							"arguments": ToolArguments(p.Input),
						},
					}
					if sig := thoughtSignature(p.ProviderOptions, partKey); sig != "" {
						call["extra_content"] = map[string]any{"google": map[string]any{"thought_signature": sig}}
					}
					calls = append(calls, spread(call, p.ProviderOptions))
				}
			}
			wm := map[string]any{"role": "assistant"}
			switch {
			case hasBreakpoint:
				wm["content"] = textParts
			case len(calls) > 0 && text.Len() == 0:
				wm["content"] = nil
			default:
				wm["content"] = text.String()
			}
			if m.s.SendReasoning && reasoning.Len() > 0 {
				wm["reasoning_content"] = reasoning.String()
			}
			if len(calls) > 0 {
				wm["tool_calls"] = calls
			}
			out = append(out, spread(wm, msg.ProviderOptions))

		case provider.ToolMessage:
			for _, p := range msg.Content {
				res, ok := p.(provider.ToolResultPart)
				if !ok {
					continue // approval responses are not sent on this API
				}
				content := ToolOutputText(res.Output, m.s.WrapToolErrors)
				var wc any = content
				bp := breakpoint(provider.OutputProviderOptions(res.Output))
				if co, ok := res.Output.(provider.ContentOutput); ok {
					bp = nil
					for _, cp := range co.Value {
						if b := breakpoint(contentPartOptions(cp)); b != nil {
							bp = b
							break
						}
					}
				}
				if bp == nil {
					bp = breakpoint(res.ProviderOptions)
				}
				if bp != nil {
					wc = []any{map[string]any{"type": "text", "text": content, "prompt_cache_breakpoint": bp}}
				}
				wm := map[string]any{"role": "tool", "tool_call_id": res.ToolCallID, "content": wc}
				out = append(out, spread(wm, res.ProviderOptions))
			}

		default:
			return nil, nil, fmt.Errorf("message %d: unsupported message type %T", i, msg)
		}
	}
	return out, warnings, nil
}

func contentPartOptions(p provider.ContentOutputPart) provider.ProviderOptions {
	switch p := p.(type) {
	case provider.TextPart:
		return p.ProviderOptions
	case provider.FilePart:
		return p.ProviderOptions
	case provider.CustomPart:
		return p.ProviderOptions
	}
	return nil
}

func thoughtSignature(po provider.ProviderOptions, key string) string {
	if s := StringOption(po, "google", "thoughtSignature"); s != "" {
		return s
	}
	return StringOption(po, key, "thoughtSignature")
}

// userFile converts a file part of a user message.
func (m *Model) userFile(p provider.FilePart, index int, partKey string) (map[string]any, error) {
	mt := p.MediaType
	url, isURL := FileURL(p.Data)
	data, inline := FileBytes(p.Data)
	switch {
	case IsImage(mt):
		mt = ImageMediaType(mt)
		img := map[string]any{}
		switch {
		case isURL:
			img["url"] = url
		case inline:
			img["url"] = DataURL(mt, data)
		default:
			return nil, &provider.UnsupportedFunctionalityError{Functionality: "image file references in chat messages"}
		}
		if m.s.OpenAIOptions {
			if d := StringOption(p.ProviderOptions, partKey, "imageDetail"); d != "" {
				img["detail"] = d
			}
		}
		return map[string]any{"type": "image_url", "image_url": img}, nil

	case strings.HasPrefix(mt, "audio/"):
		if !inline {
			return nil, &provider.UnsupportedFunctionalityError{Functionality: "audio file parts with URLs"}
		}
		var format string
		switch mt {
		case "audio/wav":
			format = "wav"
		case "audio/mp3", "audio/mpeg":
			format = "mp3"
		default:
			return nil, &provider.UnsupportedFunctionalityError{Functionality: "audio content parts with media type " + mt}
		}
		return map[string]any{"type": "input_audio", "input_audio": map[string]any{"data": base64.StdEncoding.EncodeToString(data), "format": format}}, nil

	case mt == "application/pdf":
		if id, ok := FileReference(p.Data, partKey); ok {
			return map[string]any{"type": "file", "file": map[string]any{"file_id": id}}, nil
		}
		if !inline {
			return nil, &provider.UnsupportedFunctionalityError{Functionality: "PDF file parts with URLs"}
		}
		name := p.Filename
		if name == "" {
			name = fmt.Sprintf("part-%d.pdf", index)
		}
		return map[string]any{"type": "file", "file": map[string]any{"filename": name, "file_data": DataURL(mt, data)}}, nil

	case strings.HasPrefix(mt, "text/"):
		switch {
		case inline:
			return map[string]any{"type": "text", "text": string(data)}, nil
		case isURL:
			return map[string]any{"type": "text", "text": url}, nil
		}
	}
	return nil, &provider.UnsupportedFunctionalityError{Functionality: "file part media type " + mt}
}
