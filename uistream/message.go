package uistream

import (
	"bytes"
	"encoding/json"

	"github.com/aisdkgo/ai"
)

// Role is the role of a [Message].
type Role string

// The message roles.
const (
	RoleSystem    Role = "system"
	RoleUser      Role = "user"
	RoleAssistant Role = "assistant"
)

// Message is a chat message as the client holds it (a "UIMessage"): the
// user's text and files, or everything an assistant turn showed, step by
// step. Decode the messages a client posts with [DecodeRequest] and turn
// them into model messages with [ConvertMessages].
type Message struct {
	ID   string
	Role Role
	// Metadata is the message's metadata, as JSON.
	Metadata json.RawMessage
	Parts    []Part
}

// Part is a part of a [Message]: [TextPart], [ReasoningPart], [FilePart],
// [ReasoningFilePart], [SourceURLPart], [SourceDocumentPart],
// [StepStartPart], [DataPart], [CustomPart], [SteeringMessagePart] or
// [ToolPart].
type Part interface {
	// PartType returns the part's "type" value, for example "text" or
	// "tool-getWeather".
	PartType() string
	isPart()
}

// TextPart is text. State is "streaming" or "done" (or empty).
type TextPart struct {
	Text             string
	State            string
	Citations        json.RawMessage
	ProviderMetadata ai.ProviderMetadata
}

// ReasoningPart is reasoning text.
type ReasoningPart struct {
	ID               string
	Text             string
	State            string
	ProviderMetadata ai.ProviderMetadata
}

// FilePart is a file: URL is an http(s) or data: URL. ProviderReference,
// when set, names the file stored with a provider and takes the place of
// the URL for the model.
type FilePart struct {
	MediaType         string
	Filename          string
	URL               string
	ProviderReference map[string]string
	ProviderMetadata  ai.ProviderMetadata
}

// ReasoningFilePart is a file generated while reasoning.
type ReasoningFilePart struct {
	MediaType        string
	URL              string
	ProviderMetadata ai.ProviderMetadata
}

// SourceURLPart is a web page the model used.
type SourceURLPart struct {
	SourceID         string
	URL              string
	Title            string
	ProviderMetadata ai.ProviderMetadata
}

// SourceDocumentPart is a document the model used.
type SourceDocumentPart struct {
	SourceID         string
	MediaType        string
	Title            string
	Filename         string
	ProviderMetadata ai.ProviderMetadata
}

// StepStartPart marks the start of a step of an assistant message.
type StepStartPart struct{}

// DataPart is application data of type "data-<Name>".
type DataPart struct {
	Name string
	ID   string
	Data json.RawMessage
}

// CustomPart is provider-specific content.
type CustomPart struct {
	Kind             string
	ProviderMetadata ai.ProviderMetadata
}

// SteeringMessagePart is a user message added while the assistant was
// working; Parts holds [TextPart] and [FilePart] values only.
type SteeringMessagePart struct {
	ID    string
	Parts []Part
}

// ToolState is the state of a [ToolPart].
type ToolState string

// The tool part states, in the order a call goes through them.
const (
	// InputStreaming: the input is still arriving; Input is partial.
	InputStreaming ToolState = "input-streaming"
	// InputAvailable: the call is complete and has no result yet.
	InputAvailable ToolState = "input-available"
	// ApprovalRequested: the call waits for the user's approval.
	ApprovalRequested ToolState = "approval-requested"
	// ApprovalResponded: the user answered; the server has not acted yet.
	ApprovalResponded ToolState = "approval-responded"
	// OutputAvailable: the call has a result (Preliminary for an
	// intermediate one).
	OutputAvailable ToolState = "output-available"
	// OutputError: the call failed; ErrorText says why.
	OutputError ToolState = "output-error"
	// OutputDenied: the call was denied and did not run.
	OutputDenied ToolState = "output-denied"
)

// ToolPart is a tool call and its outcome: a part of type "tool-<name>",
// or "dynamic-tool" when Dynamic is set.
type ToolPart struct {
	ToolName string
	// Dynamic is set for calls of dynamic tools (type "dynamic-tool").
	Dynamic bool
	// Unavailable marks a dynamic-tool part that was a call of an ordinary
	// tool whose definition is gone ("dynamic": false); its output is not
	// sent back to the model.
	Unavailable bool
	ToolCallID  string
	State       ToolState
	// Input is the call's input as JSON (partial while streaming, possibly
	// absent for a failed call).
	Input json.RawMessage
	// RawInput is the input text of a call whose input was not JSON.
	RawInput      json.RawMessage
	InputEncoding string
	// Output is the result, as JSON, in state OutputAvailable.
	Output      json.RawMessage
	ErrorText   string
	Preliminary bool
	// Approval is set once approval was requested.
	Approval               *Approval
	ProviderExecuted       bool
	Title                  string
	ToolMetadata           map[string]any
	CallProviderMetadata   ai.ProviderMetadata
	ResultProviderMetadata ai.ProviderMetadata
}

// Approval is the approval state of a tool call.
type Approval struct {
	ID string
	// Approved is nil until the user answered.
	Approved *bool
	// Reason is the reason the user gave with the answer.
	Reason string
	// RequestReason is the server's reason for asking.
	RequestReason string
	IsAutomatic   bool
	Signature     string
	// InputSchemaInput is the input before the schema transformed it, when
	// it differed.
	InputSchemaInput json.RawMessage
}

// PartType returns "text".
func (TextPart) PartType() string { return "text" }

// PartType returns "reasoning".
func (ReasoningPart) PartType() string { return "reasoning" }

// PartType returns "file".
func (FilePart) PartType() string { return "file" }

// PartType returns "reasoning-file".
func (ReasoningFilePart) PartType() string { return "reasoning-file" }

// PartType returns "source-url".
func (SourceURLPart) PartType() string { return "source-url" }

// PartType returns "source-document".
func (SourceDocumentPart) PartType() string { return "source-document" }

// PartType returns "step-start".
func (StepStartPart) PartType() string { return "step-start" }

// PartType returns "data-" followed by the name.
func (p DataPart) PartType() string { return "data-" + p.Name }

// PartType returns "custom".
func (CustomPart) PartType() string { return "custom" }

// PartType returns "steering-message".
func (SteeringMessagePart) PartType() string { return "steering-message" }

// PartType returns "dynamic-tool" or "tool-" followed by the tool name.
func (p ToolPart) PartType() string {
	if p.Dynamic {
		return "dynamic-tool"
	}
	return "tool-" + p.ToolName
}

func (TextPart) isPart()            {}
func (ReasoningPart) isPart()       {}
func (FilePart) isPart()            {}
func (ReasoningFilePart) isPart()   {}
func (SourceURLPart) isPart()       {}
func (SourceDocumentPart) isPart()  {}
func (StepStartPart) isPart()       {}
func (DataPart) isPart()            {}
func (CustomPart) isPart()          {}
func (SteeringMessagePart) isPart() {}
func (ToolPart) isPart()            {}

// MarshalJSON writes the message as the client holds it.
func (m Message) MarshalJSON() ([]byte, error) {
	parts := m.Parts
	if parts == nil {
		parts = []Part{}
	}
	return marshalNoEscape(struct {
		ID       string          `json:"id"`
		Role     Role            `json:"role"`
		Metadata json.RawMessage `json:"metadata,omitempty"`
		Parts    []Part          `json:"parts"`
	}{m.ID, m.Role, m.Metadata, parts})
}

// UnmarshalJSON decodes and validates one message, with the checks of
// [DecodeRequest].
func (m *Message) UnmarshalJSON(data []byte) error {
	d := decoder{limits: defaultLimits()}
	msg, err := d.message(data, "message")
	if err != nil {
		return err
	}
	*m = msg
	return nil
}

// MarshalJSON writes the part as the client holds it.
func (p TextPart) MarshalJSON() ([]byte, error) {
	return marshalNoEscape(struct {
		Type             string              `json:"type"`
		Text             string              `json:"text"`
		State            string              `json:"state,omitempty"`
		Citations        json.RawMessage     `json:"citations,omitempty"`
		ProviderMetadata ai.ProviderMetadata `json:"providerMetadata,omitempty"`
	}{"text", p.Text, p.State, p.Citations, p.ProviderMetadata})
}

// MarshalJSON writes the part as the client holds it.
func (p ReasoningPart) MarshalJSON() ([]byte, error) {
	return marshalNoEscape(struct {
		Type             string              `json:"type"`
		ID               string              `json:"id,omitempty"`
		Text             string              `json:"text"`
		State            string              `json:"state,omitempty"`
		ProviderMetadata ai.ProviderMetadata `json:"providerMetadata,omitempty"`
	}{"reasoning", p.ID, p.Text, p.State, p.ProviderMetadata})
}

// MarshalJSON writes the part as the client holds it.
func (p FilePart) MarshalJSON() ([]byte, error) {
	return marshalNoEscape(struct {
		Type              string              `json:"type"`
		MediaType         string              `json:"mediaType"`
		Filename          string              `json:"filename,omitempty"`
		URL               string              `json:"url"`
		ProviderReference map[string]string   `json:"providerReference,omitempty"`
		ProviderMetadata  ai.ProviderMetadata `json:"providerMetadata,omitempty"`
	}{"file", p.MediaType, p.Filename, p.URL, p.ProviderReference, p.ProviderMetadata})
}

// MarshalJSON writes the part as the client holds it.
func (p ReasoningFilePart) MarshalJSON() ([]byte, error) {
	return marshalNoEscape(fileWire{"reasoning-file", p.MediaType, p.URL, p.ProviderMetadata})
}

// MarshalJSON writes the part as the client holds it.
func (p SourceURLPart) MarshalJSON() ([]byte, error) {
	return marshalNoEscape(SourceURL(p).wire())
}

// MarshalJSON writes the part as the client holds it.
func (p SourceDocumentPart) MarshalJSON() ([]byte, error) {
	return marshalNoEscape(SourceDocument(p).wire())
}

// MarshalJSON writes the part as the client holds it.
func (StepStartPart) MarshalJSON() ([]byte, error) { return []byte(`{"type":"step-start"}`), nil }

// MarshalJSON writes the part as the client holds it.
func (p DataPart) MarshalJSON() ([]byte, error) {
	return marshalNoEscape(struct {
		Type string          `json:"type"`
		ID   string          `json:"id,omitempty"`
		Data json.RawMessage `json:"data"`
	}{p.PartType(), p.ID, orNull(p.Data)})
}

// MarshalJSON writes the part as the client holds it.
func (p CustomPart) MarshalJSON() ([]byte, error) {
	return marshalNoEscape(Custom(p).wire())
}

// MarshalJSON writes the part as the client holds it.
func (p SteeringMessagePart) MarshalJSON() ([]byte, error) {
	parts := p.Parts
	if parts == nil {
		parts = []Part{}
	}
	return marshalNoEscape(struct {
		Type  string `json:"type"`
		ID    string `json:"id"`
		Parts []Part `json:"parts"`
	}{"steering-message", p.ID, parts})
}

// MarshalJSON writes the part as the client holds it.
func (p ToolPart) MarshalJSON() ([]byte, error) {
	var toolName string
	var dynamic *bool
	if p.Dynamic {
		toolName = p.ToolName
		if p.Unavailable {
			dynamic = no
		}
	}
	var input json.RawMessage
	if p.State != InputStreaming || p.Input != nil {
		input = orNull(p.Input)
	}
	var output json.RawMessage
	if p.State == OutputAvailable {
		output = orNull(p.Output)
	}
	return marshalNoEscape(struct {
		Type                   string              `json:"type"`
		ToolName               string              `json:"toolName,omitempty"`
		Dynamic                *bool               `json:"dynamic,omitempty"`
		ToolCallID             string              `json:"toolCallId"`
		State                  ToolState           `json:"state"`
		Title                  string              `json:"title,omitempty"`
		ToolMetadata           map[string]any      `json:"toolMetadata,omitempty"`
		Input                  json.RawMessage     `json:"input,omitempty"`
		RawInput               json.RawMessage     `json:"rawInput,omitempty"`
		InputEncoding          string              `json:"inputEncoding,omitempty"`
		Output                 json.RawMessage     `json:"output,omitempty"`
		ErrorText              string              `json:"errorText,omitempty"`
		Preliminary            bool                `json:"preliminary,omitempty"`
		ProviderExecuted       bool                `json:"providerExecuted,omitempty"`
		CallProviderMetadata   ai.ProviderMetadata `json:"callProviderMetadata,omitempty"`
		ResultProviderMetadata ai.ProviderMetadata `json:"resultProviderMetadata,omitempty"`
		Approval               *Approval           `json:"approval,omitempty"`
	}{p.PartType(), toolName, dynamic, p.ToolCallID, p.State, p.Title, p.ToolMetadata, input, p.RawInput,
		p.InputEncoding, output, p.ErrorText, p.Preliminary, p.ProviderExecuted, p.CallProviderMetadata,
		p.ResultProviderMetadata, p.Approval})
}

// MarshalJSON writes the approval as the client holds it.
func (a Approval) MarshalJSON() ([]byte, error) {
	return marshalNoEscape(struct {
		ID               string          `json:"id"`
		RequestReason    string          `json:"requestReason,omitempty"`
		IsAutomatic      bool            `json:"isAutomatic,omitempty"`
		Signature        string          `json:"signature,omitempty"`
		InputSchemaInput json.RawMessage `json:"inputSchemaInput,omitempty"`
		Approved         *bool           `json:"approved,omitempty"`
		Reason           string          `json:"reason,omitempty"`
	}{a.ID, a.RequestReason, a.IsAutomatic, a.Signature, a.InputSchemaInput, a.Approved, a.Reason})
}

func marshalNoEscape(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}
