package aiotel

import (
	"encoding/json"

	"github.com/aisdkgo/ai"
	"github.com/aisdkgo/ai/provider"
)

// The JSON forms of the semantic conventions' gen_ai.input.messages,
// gen_ai.output.messages and gen_ai.system_instructions: messages with a
// role and typed parts. File contents are never recorded, only their
// media types.

type semMessage struct {
	Role         string    `json:"role"`
	Parts        []semPart `json:"parts"`
	FinishReason string    `json:"finish_reason,omitempty"`
}

type semPart struct {
	Type      string          `json:"type"`
	Content   string          `json:"content,omitempty"`
	ID        string          `json:"id,omitempty"`
	Name      string          `json:"name,omitempty"`
	Arguments json.RawMessage `json:"arguments,omitempty"`
	Response  any             `json:"response,omitempty"`
	Modality  string          `json:"modality,omitempty"`
	MimeType  string          `json:"mime_type,omitempty"`
}

func toJSON(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return ""
	}
	return string(b)
}

// rawInput returns a tool call's input as JSON, or as a JSON string when it
// is not valid JSON (the model's text, unparsed).
func rawInput(s string) json.RawMessage {
	if json.Valid([]byte(s)) {
		return json.RawMessage(s)
	}
	b, _ := json.Marshal(s)
	return b
}

func modality(mediaType string) string {
	for i := 0; i < len(mediaType); i++ {
		if mediaType[i] == '/' {
			return mediaType[:i]
		}
	}
	return mediaType
}

func filePart(mediaType string) semPart {
	return semPart{Type: "file", Modality: modality(mediaType), MimeType: mediaType}
}

func systemJSON(msgs []provider.Message) string {
	var parts []semPart
	for _, m := range msgs {
		if s, ok := m.(provider.SystemMessage); ok {
			parts = append(parts, semPart{Type: "text", Content: s.Content})
		}
	}
	return toJSON(parts)
}

func messagesJSON(msgs []provider.Message) string {
	out := make([]semMessage, 0, len(msgs))
	for _, m := range msgs {
		sm := semMessage{Role: string(m.Role()), Parts: []semPart{}}
		switch m := m.(type) {
		case provider.SystemMessage:
			sm.Parts = append(sm.Parts, semPart{Type: "text", Content: m.Content})
		case provider.UserMessage:
			for _, p := range m.Content {
				switch p := p.(type) {
				case provider.TextPart:
					sm.Parts = append(sm.Parts, semPart{Type: "text", Content: p.Text})
				case provider.FilePart:
					sm.Parts = append(sm.Parts, filePart(p.MediaType))
				}
			}
		case provider.AssistantMessage:
			for _, p := range m.Content {
				switch p := p.(type) {
				case provider.TextPart:
					sm.Parts = append(sm.Parts, semPart{Type: "text", Content: p.Text})
				case provider.ReasoningPart:
					sm.Parts = append(sm.Parts, semPart{Type: "reasoning", Content: p.Text})
				case provider.FilePart:
					sm.Parts = append(sm.Parts, filePart(p.MediaType))
				case provider.ReasoningFilePart:
					sm.Parts = append(sm.Parts, filePart(p.MediaType))
				case provider.ToolCallPart:
					sm.Parts = append(sm.Parts, semPart{Type: "tool_call", ID: p.ToolCallID, Name: p.ToolName, Arguments: p.Input})
				case provider.ToolResultPart:
					sm.Parts = append(sm.Parts, semPart{Type: "tool_call_response", ID: p.ToolCallID, Response: resultOutput(p.Output)})
				}
			}
		case provider.ToolMessage:
			for _, p := range m.Content {
				if p, ok := p.(provider.ToolResultPart); ok {
					sm.Parts = append(sm.Parts, semPart{Type: "tool_call_response", ID: p.ToolCallID, Response: resultOutput(p.Output)})
				}
			}
		}
		out = append(out, sm)
	}
	return toJSON(out)
}

// resultOutput is a tool result as sent to the model.
func resultOutput(o provider.ToolResultOutput) any {
	switch o := o.(type) {
	case provider.TextOutput:
		return o.Value
	case provider.JSONOutput:
		return o.Value
	case provider.ErrorTextOutput:
		return o.Value
	case provider.ErrorJSONOutput:
		return o.Value
	case provider.ExecutionDeniedOutput:
		return map[string]string{"type": "execution-denied", "reason": o.Reason}
	case nil:
		return nil
	}
	return map[string]string{"type": o.OutputType()}
}

func toolsJSON(tools []provider.Tool) string {
	type def struct {
		Type        string          `json:"type"`
		Name        string          `json:"name"`
		Description string          `json:"description,omitempty"`
		Parameters  json.RawMessage `json:"parameters,omitempty"`
		ID          string          `json:"id,omitempty"`
	}
	out := make([]def, 0, len(tools))
	for _, t := range tools {
		switch t := t.(type) {
		case *provider.FunctionTool:
			out = append(out, def{Type: "function", Name: t.Name, Description: t.Description, Parameters: t.InputSchema})
		case *provider.ProviderTool:
			// Provider tool arguments may hold credentials: only the id.
			out = append(out, def{Type: "extension", Name: t.Name, ID: t.ID})
		}
	}
	return toJSON(out)
}

// contentOutputJSON is a model response as one assistant output message.
func contentOutputJSON(content []provider.Content, finish string) string {
	m := semMessage{Role: "assistant", Parts: []semPart{}, FinishReason: finish}
	for _, c := range content {
		switch c := c.(type) {
		case provider.Text:
			m.Parts = append(m.Parts, semPart{Type: "text", Content: c.Text})
		case provider.Reasoning:
			m.Parts = append(m.Parts, semPart{Type: "reasoning", Content: c.Text})
		case provider.ToolCall:
			m.Parts = append(m.Parts, semPart{Type: "tool_call", ID: c.ToolCallID, Name: c.ToolName, Arguments: rawInput(c.Input)})
		case provider.ToolResult:
			m.Parts = append(m.Parts, semPart{Type: "tool_call_response", ID: c.ToolCallID, Response: c.Result})
		case provider.File:
			m.Parts = append(m.Parts, filePart(c.MediaType))
		}
	}
	return toJSON([]semMessage{m})
}

// stepOutputJSON is a step's output (the model's text, reasoning and tool
// calls, and the results of the calls) as one assistant output message.
func stepOutputJSON(st *ai.StepResult) string {
	m := semMessage{Role: "assistant", Parts: []semPart{}, FinishReason: string(st.FinishReason)}
	for _, c := range st.Content {
		switch c := c.(type) {
		case ai.Text:
			m.Parts = append(m.Parts, semPart{Type: "text", Content: c.Text})
		case ai.Reasoning:
			m.Parts = append(m.Parts, semPart{Type: "reasoning", Content: c.Text})
		case ai.ToolCall:
			m.Parts = append(m.Parts, semPart{Type: "tool_call", ID: c.ToolCallID, Name: c.ToolName, Arguments: c.Input})
		case ai.ToolResult:
			m.Parts = append(m.Parts, semPart{Type: "tool_call_response", ID: c.ToolCallID, Response: c.Output})
		case ai.ToolError:
			m.Parts = append(m.Parts, semPart{Type: "tool_call_response", ID: c.ToolCallID, Response: map[string]string{"error": c.Error.Error()}})
		}
	}
	return toJSON([]semMessage{m})
}

// outputJSON is a tool's output as JSON; text stays text.
func outputJSON(v any) string {
	switch v := v.(type) {
	case string:
		return v
	case json.RawMessage:
		return string(v)
	}
	b, err := json.Marshal(v)
	if err != nil {
		return ""
	}
	return string(b)
}
