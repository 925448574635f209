package uistream

import (
	"bytes"
	"encoding/json"

	"github.com/aisdkgo/ai"
	"github.com/aisdkgo/ai/internal/wirejson"
)

// Chunk is one event of a UI message stream. The chunk types are the
// structs of this file; each marshals to the JSON object the client expects,
// with a "type" discriminator first and unset optional fields left out.
type Chunk interface {
	// ChunkType returns the chunk's "type" value, for example "text-delta".
	ChunkType() string
	// wire returns the value that is encoded on the wire.
	wire() any
}

// Message frame.
type (
	// Start opens the assistant message. MessageID, when set, is the id the
	// client gives the message; without it the client keeps its own.
	Start struct {
		MessageID       string
		MessageMetadata any
	}
	// StartStep opens a step (one model call).
	StartStep struct{}
	// FinishStep closes a step.
	FinishStep struct{}
	// Finish closes the message. FinishReason is one of the
	// [ai.FinishReason] values.
	Finish struct {
		FinishReason    ai.FinishReason
		MessageMetadata any
	}
	// Abort ends a message whose generation was cancelled; no Finish
	// follows.
	Abort struct {
		Reason string
	}
	// Error reports a stream-level error. The client fails the turn and
	// shows ErrorText.
	Error struct {
		ErrorText string
	}
	// MessageMetadata updates the message's metadata; the client merges it
	// into what it has.
	MessageMetadata struct {
		MessageMetadata any
	}
)

// Text and reasoning blocks. ID ties the deltas and the end to their start.
type (
	// TextStart opens a text block.
	TextStart struct {
		ID               string
		ProviderMetadata ai.ProviderMetadata
	}
	// TextDelta appends to a text block.
	TextDelta struct {
		ID               string
		Delta            string
		ProviderMetadata ai.ProviderMetadata
	}
	// TextEnd closes a text block.
	TextEnd struct {
		ID               string
		Citations        any
		ProviderMetadata ai.ProviderMetadata
	}
	// ReasoningStart opens a reasoning block.
	ReasoningStart struct {
		ID               string
		ProviderMetadata ai.ProviderMetadata
	}
	// ReasoningDelta appends to a reasoning block.
	ReasoningDelta struct {
		ID               string
		Delta            string
		ProviderMetadata ai.ProviderMetadata
	}
	// ReasoningEnd closes a reasoning block.
	ReasoningEnd struct {
		ID               string
		ProviderMetadata ai.ProviderMetadata
	}
)

// Tool calls. Dynamic is a tri-state: nil leaves the field out (a tool of
// the server's tool set), a value sends it; the client makes a
// "dynamic-tool" part for a call whose first chunk says true.
type (
	// ToolInputStart opens a tool call whose input streams.
	ToolInputStart struct {
		ToolCallID       string
		ToolName         string
		InputEncoding    string
		ProviderExecuted bool
		ProviderMetadata ai.ProviderMetadata
		ToolMetadata     map[string]any
		Dynamic          *bool
		Title            string
	}
	// ToolInputDelta is a piece of a tool call's input text.
	ToolInputDelta struct {
		ToolCallID     string
		InputTextDelta string
	}
	// ToolInputAvailable is a complete, valid tool call.
	ToolInputAvailable struct {
		ToolCallID       string
		ToolName         string
		Input            json.RawMessage
		ProviderExecuted bool
		ProviderMetadata ai.ProviderMetadata
		ToolMetadata     map[string]any
		Dynamic          *bool
		Title            string
	}
	// ToolInputError is a tool call that cannot be used (unknown tool,
	// invalid input). It takes the place of ToolInputAvailable.
	ToolInputError struct {
		ToolCallID       string
		ToolName         string
		Input            json.RawMessage
		ProviderExecuted bool
		ProviderMetadata ai.ProviderMetadata
		ToolMetadata     map[string]any
		Dynamic          *bool
		ErrorText        string
		Title            string
	}
	// ToolApprovalRequest asks the user to approve a tool call.
	ToolApprovalRequest struct {
		ApprovalID       string
		ToolCallID       string
		InputSchemaInput json.RawMessage
		Reason           string
		IsAutomatic      bool
		Signature        string
	}
	// ToolApprovalResponse records a decision on an approval request.
	ToolApprovalResponse struct {
		ApprovalID       string
		Approved         bool
		Reason           string
		ProviderExecuted bool
	}
	// ToolOutputAvailable is a tool result; Preliminary marks an
	// intermediate one. A nil Output is sent as null.
	ToolOutputAvailable struct {
		ToolCallID       string
		Output           any
		ProviderExecuted bool
		ProviderMetadata ai.ProviderMetadata
		ToolMetadata     map[string]any
		Preliminary      bool
		Dynamic          *bool
	}
	// ToolOutputError is a failed tool execution.
	ToolOutputError struct {
		ToolCallID       string
		ErrorText        string
		ProviderExecuted bool
		ProviderMetadata ai.ProviderMetadata
		ToolMetadata     map[string]any
		Dynamic          *bool
	}
	// ToolOutputDenied reports that a call was denied and did not run.
	ToolOutputDenied struct {
		ToolCallID string
	}
)

// Sources, files and other content.
type (
	// SourceURL is a web page the model used.
	SourceURL struct {
		SourceID         string
		URL              string
		Title            string
		ProviderMetadata ai.ProviderMetadata
	}
	// SourceDocument is a document the model used.
	SourceDocument struct {
		SourceID         string
		MediaType        string
		Title            string
		Filename         string
		ProviderMetadata ai.ProviderMetadata
	}
	// File is a file the model generated; URL is usually a data: URL.
	File struct {
		MediaType        string
		URL              string
		ProviderMetadata ai.ProviderMetadata
	}
	// ReasoningFile is a file the model generated while reasoning.
	ReasoningFile struct {
		MediaType        string
		URL              string
		ProviderMetadata ai.ProviderMetadata
	}
	// Custom is provider-specific content.
	Custom struct {
		Kind             string
		ProviderMetadata ai.ProviderMetadata
	}
)

// Data is an application-defined data part of type "data-<Name>". The
// client stores it in the message (replacing the data of an earlier part
// with the same Name and ID), or, when Transient is set, hands it to its
// onData callback only.
type Data struct {
	Name      string
	ID        string
	Data      any
	Transient bool
}

// ChunkType returns "start".
func (Start) ChunkType() string { return "start" }

// ChunkType returns "start-step".
func (StartStep) ChunkType() string { return "start-step" }

// ChunkType returns "finish-step".
func (FinishStep) ChunkType() string { return "finish-step" }

// ChunkType returns "finish".
func (Finish) ChunkType() string { return "finish" }

// ChunkType returns "abort".
func (Abort) ChunkType() string { return "abort" }

// ChunkType returns "error".
func (Error) ChunkType() string { return "error" }

// ChunkType returns "message-metadata".
func (MessageMetadata) ChunkType() string { return "message-metadata" }

// ChunkType returns "text-start".
func (TextStart) ChunkType() string { return "text-start" }

// ChunkType returns "text-delta".
func (TextDelta) ChunkType() string { return "text-delta" }

// ChunkType returns "text-end".
func (TextEnd) ChunkType() string { return "text-end" }

// ChunkType returns "reasoning-start".
func (ReasoningStart) ChunkType() string { return "reasoning-start" }

// ChunkType returns "reasoning-delta".
func (ReasoningDelta) ChunkType() string { return "reasoning-delta" }

// ChunkType returns "reasoning-end".
func (ReasoningEnd) ChunkType() string { return "reasoning-end" }

// ChunkType returns "tool-input-start".
func (ToolInputStart) ChunkType() string { return "tool-input-start" }

// ChunkType returns "tool-input-delta".
func (ToolInputDelta) ChunkType() string { return "tool-input-delta" }

// ChunkType returns "tool-input-available".
func (ToolInputAvailable) ChunkType() string { return "tool-input-available" }

// ChunkType returns "tool-input-error".
func (ToolInputError) ChunkType() string { return "tool-input-error" }

// ChunkType returns "tool-approval-request".
func (ToolApprovalRequest) ChunkType() string { return "tool-approval-request" }

// ChunkType returns "tool-approval-response".
func (ToolApprovalResponse) ChunkType() string { return "tool-approval-response" }

// ChunkType returns "tool-output-available".
func (ToolOutputAvailable) ChunkType() string { return "tool-output-available" }

// ChunkType returns "tool-output-error".
func (ToolOutputError) ChunkType() string { return "tool-output-error" }

// ChunkType returns "tool-output-denied".
func (ToolOutputDenied) ChunkType() string { return "tool-output-denied" }

// ChunkType returns "source-url".
func (SourceURL) ChunkType() string { return "source-url" }

// ChunkType returns "source-document".
func (SourceDocument) ChunkType() string { return "source-document" }

// ChunkType returns "file".
func (File) ChunkType() string { return "file" }

// ChunkType returns "reasoning-file".
func (ReasoningFile) ChunkType() string { return "reasoning-file" }

// ChunkType returns "custom".
func (Custom) ChunkType() string { return "custom" }

// ChunkType returns "data-" followed by the name.
func (d Data) ChunkType() string { return "data-" + d.Name }

// The wire forms keep the key order of the reference implementation, so
// that streams can be compared byte for byte.

type pm = ai.ProviderMetadata

func (c Start) wire() any {
	return struct {
		Type            string `json:"type"`
		MessageMetadata any    `json:"messageMetadata,omitempty"`
		MessageID       string `json:"messageId,omitempty"`
	}{"start", c.MessageMetadata, c.MessageID}
}

func (StartStep) wire() any  { return typeOnly{"start-step"} }
func (FinishStep) wire() any { return typeOnly{"finish-step"} }

type typeOnly struct {
	Type string `json:"type"`
}

func (c Finish) wire() any {
	return struct {
		Type            string          `json:"type"`
		FinishReason    ai.FinishReason `json:"finishReason,omitempty"`
		MessageMetadata any             `json:"messageMetadata,omitempty"`
	}{"finish", c.FinishReason, c.MessageMetadata}
}

func (c Abort) wire() any {
	return struct {
		Type   string `json:"type"`
		Reason string `json:"reason,omitempty"`
	}{"abort", c.Reason}
}

func (c Error) wire() any {
	return struct {
		Type      string `json:"type"`
		ErrorText string `json:"errorText"`
	}{"error", c.ErrorText}
}

func (c MessageMetadata) wire() any {
	return struct {
		Type            string `json:"type"`
		MessageMetadata any    `json:"messageMetadata"`
	}{"message-metadata", c.MessageMetadata}
}

// blockWire is the wire form of the starts and ends of text and reasoning
// blocks; only a text end has citations.
type blockWire struct {
	Type             string `json:"type"`
	ID               string `json:"id"`
	Citations        any    `json:"citations,omitempty"`
	ProviderMetadata pm     `json:"providerMetadata,omitempty"`
}

type deltaWire struct {
	Type             string `json:"type"`
	ID               string `json:"id"`
	Delta            string `json:"delta"`
	ProviderMetadata pm     `json:"providerMetadata,omitempty"`
}

func (c TextStart) wire() any {
	return blockWire{Type: "text-start", ID: c.ID, ProviderMetadata: c.ProviderMetadata}
}
func (c TextDelta) wire() any { return deltaWire{"text-delta", c.ID, c.Delta, c.ProviderMetadata} }
func (c TextEnd) wire() any   { return blockWire{"text-end", c.ID, c.Citations, c.ProviderMetadata} }
func (c ReasoningStart) wire() any {
	return blockWire{Type: "reasoning-start", ID: c.ID, ProviderMetadata: c.ProviderMetadata}
}
func (c ReasoningDelta) wire() any {
	return deltaWire{"reasoning-delta", c.ID, c.Delta, c.ProviderMetadata}
}
func (c ReasoningEnd) wire() any {
	return blockWire{Type: "reasoning-end", ID: c.ID, ProviderMetadata: c.ProviderMetadata}
}

// toolInputWire is the wire form of the chunks that open or complete a
// tool call's input. A start has an input encoding and no input; an
// available or failed input always has its input (null when empty); only a
// failed one has an error text.
type toolInputWire struct {
	Type             string          `json:"type"`
	ToolCallID       string          `json:"toolCallId"`
	ToolName         string          `json:"toolName"`
	InputEncoding    string          `json:"inputEncoding,omitempty"`
	Input            json.RawMessage `json:"input,omitempty"`
	ProviderExecuted bool            `json:"providerExecuted,omitempty"`
	ProviderMetadata pm              `json:"providerMetadata,omitempty"`
	ToolMetadata     map[string]any  `json:"toolMetadata,omitempty"`
	Dynamic          *bool           `json:"dynamic,omitempty"`
	ErrorText        *string         `json:"errorText,omitempty"`
	Title            string          `json:"title,omitempty"`
}

func (c ToolInputStart) wire() any {
	return toolInputWire{Type: "tool-input-start", ToolCallID: c.ToolCallID, ToolName: c.ToolName,
		InputEncoding: c.InputEncoding, ProviderExecuted: c.ProviderExecuted, ProviderMetadata: c.ProviderMetadata,
		ToolMetadata: c.ToolMetadata, Dynamic: c.Dynamic, Title: c.Title}
}

func (c ToolInputDelta) wire() any {
	return struct {
		Type           string `json:"type"`
		ToolCallID     string `json:"toolCallId"`
		InputTextDelta string `json:"inputTextDelta"`
	}{"tool-input-delta", c.ToolCallID, c.InputTextDelta}
}

func (c ToolInputAvailable) wire() any {
	return toolInputWire{Type: "tool-input-available", ToolCallID: c.ToolCallID, ToolName: c.ToolName,
		Input: orNull(c.Input), ProviderExecuted: c.ProviderExecuted, ProviderMetadata: c.ProviderMetadata,
		ToolMetadata: c.ToolMetadata, Dynamic: c.Dynamic, Title: c.Title}
}

func (c ToolInputError) wire() any {
	msg := c.ErrorText // only the message escapes, not the whole chunk
	return toolInputWire{Type: "tool-input-error", ToolCallID: c.ToolCallID, ToolName: c.ToolName,
		Input: orNull(c.Input), ProviderExecuted: c.ProviderExecuted, ProviderMetadata: c.ProviderMetadata,
		ToolMetadata: c.ToolMetadata, Dynamic: c.Dynamic, ErrorText: &msg, Title: c.Title}
}

func (c ToolApprovalRequest) wire() any {
	return struct {
		Type             string          `json:"type"`
		ApprovalID       string          `json:"approvalId"`
		ToolCallID       string          `json:"toolCallId"`
		InputSchemaInput json.RawMessage `json:"inputSchemaInput,omitempty"`
		Reason           string          `json:"reason,omitempty"`
		IsAutomatic      bool            `json:"isAutomatic,omitempty"`
		Signature        string          `json:"signature,omitempty"`
	}{"tool-approval-request", c.ApprovalID, c.ToolCallID, c.InputSchemaInput, c.Reason, c.IsAutomatic, c.Signature}
}

func (c ToolApprovalResponse) wire() any {
	return struct {
		Type             string `json:"type"`
		ApprovalID       string `json:"approvalId"`
		Approved         bool   `json:"approved"`
		Reason           string `json:"reason,omitempty"`
		ProviderExecuted bool   `json:"providerExecuted,omitempty"`
	}{"tool-approval-response", c.ApprovalID, c.Approved, c.Reason, c.ProviderExecuted}
}

// toolOutputWire is the wire form of a tool's outcome: an output (always
// there, null when nil) or an error text.
type toolOutputWire struct {
	Type             string         `json:"type"`
	ToolCallID       string         `json:"toolCallId"`
	Output           any            `json:"output,omitempty"`
	ErrorText        *string        `json:"errorText,omitempty"`
	ProviderExecuted bool           `json:"providerExecuted,omitempty"`
	ProviderMetadata pm             `json:"providerMetadata,omitempty"`
	ToolMetadata     map[string]any `json:"toolMetadata,omitempty"`
	Preliminary      bool           `json:"preliminary,omitempty"`
	Dynamic          *bool          `json:"dynamic,omitempty"`
}

// nullOutput is a nil output as it is sent; only the encoder reads it.
var nullOutput = json.RawMessage("null")

func (c ToolOutputAvailable) wire() any {
	output := c.Output
	if output == nil {
		output = nullOutput
	}
	return toolOutputWire{Type: "tool-output-available", ToolCallID: c.ToolCallID, Output: output,
		ProviderExecuted: c.ProviderExecuted, ProviderMetadata: c.ProviderMetadata, ToolMetadata: c.ToolMetadata,
		Preliminary: c.Preliminary, Dynamic: c.Dynamic}
}

func (c ToolOutputError) wire() any {
	msg := c.ErrorText
	return toolOutputWire{Type: "tool-output-error", ToolCallID: c.ToolCallID, ErrorText: &msg,
		ProviderExecuted: c.ProviderExecuted, ProviderMetadata: c.ProviderMetadata, ToolMetadata: c.ToolMetadata,
		Dynamic: c.Dynamic}
}

func (c ToolOutputDenied) wire() any {
	return struct {
		Type       string `json:"type"`
		ToolCallID string `json:"toolCallId"`
	}{"tool-output-denied", c.ToolCallID}
}

func (c SourceURL) wire() any {
	return struct {
		Type             string `json:"type"`
		SourceID         string `json:"sourceId"`
		URL              string `json:"url"`
		Title            string `json:"title,omitempty"`
		ProviderMetadata pm     `json:"providerMetadata,omitempty"`
	}{"source-url", c.SourceID, c.URL, c.Title, c.ProviderMetadata}
}

func (c SourceDocument) wire() any {
	return struct {
		Type             string `json:"type"`
		SourceID         string `json:"sourceId"`
		MediaType        string `json:"mediaType"`
		Title            string `json:"title"`
		Filename         string `json:"filename,omitempty"`
		ProviderMetadata pm     `json:"providerMetadata,omitempty"`
	}{"source-document", c.SourceID, c.MediaType, c.Title, c.Filename, c.ProviderMetadata}
}

type fileWire struct {
	Type             string `json:"type"`
	MediaType        string `json:"mediaType"`
	URL              string `json:"url"`
	ProviderMetadata pm     `json:"providerMetadata,omitempty"`
}

func (c File) wire() any { return fileWire{"file", c.MediaType, c.URL, c.ProviderMetadata} }
func (c ReasoningFile) wire() any {
	return fileWire{"reasoning-file", c.MediaType, c.URL, c.ProviderMetadata}
}

func (c Custom) wire() any {
	return struct {
		Type             string `json:"type"`
		Kind             string `json:"kind"`
		ProviderMetadata pm     `json:"providerMetadata,omitempty"`
	}{"custom", c.Kind, c.ProviderMetadata}
}

func (c Data) wire() any {
	return struct {
		Type      string `json:"type"`
		ID        string `json:"id,omitempty"`
		Data      any    `json:"data"`
		Transient bool   `json:"transient,omitempty"`
	}{c.ChunkType(), c.ID, c.Data, c.Transient}
}

// orNull is [wirejson.OrNull]: an empty value as the JSON null.
func orNull(v json.RawMessage) json.RawMessage { return wirejson.OrNull(v) }

// Marshal returns the JSON form of a chunk as it is sent: compact, with
// "<", ">" and "&" left unescaped.
func Marshal(c Chunk) ([]byte, error) {
	var buf bytes.Buffer
	if err := encode(&buf, c); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// encode appends the chunk's JSON to buf without a trailing newline.
func encode(buf *bytes.Buffer, c Chunk) error {
	n := buf.Len()
	enc := json.NewEncoder(buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(c.wire()); err != nil {
		buf.Truncate(n)
		return err
	}
	buf.Truncate(buf.Len() - 1) // the newline Encode adds
	return nil
}

// MarshalJSON writes the chunk in its wire form (see [Marshal]).
func (c Start) MarshalJSON() ([]byte, error) { return Marshal(c) }

// MarshalJSON writes the chunk in its wire form (see [Marshal]).
func (c StartStep) MarshalJSON() ([]byte, error) { return Marshal(c) }

// MarshalJSON writes the chunk in its wire form (see [Marshal]).
func (c FinishStep) MarshalJSON() ([]byte, error) { return Marshal(c) }

// MarshalJSON writes the chunk in its wire form (see [Marshal]).
func (c Finish) MarshalJSON() ([]byte, error) { return Marshal(c) }

// MarshalJSON writes the chunk in its wire form (see [Marshal]).
func (c Abort) MarshalJSON() ([]byte, error) { return Marshal(c) }

// MarshalJSON writes the chunk in its wire form (see [Marshal]).
func (c Error) MarshalJSON() ([]byte, error) { return Marshal(c) }

// MarshalJSON writes the chunk in its wire form (see [Marshal]).
func (c MessageMetadata) MarshalJSON() ([]byte, error) { return Marshal(c) }

// MarshalJSON writes the chunk in its wire form (see [Marshal]).
func (c TextStart) MarshalJSON() ([]byte, error) { return Marshal(c) }

// MarshalJSON writes the chunk in its wire form (see [Marshal]).
func (c TextDelta) MarshalJSON() ([]byte, error) { return Marshal(c) }

// MarshalJSON writes the chunk in its wire form (see [Marshal]).
func (c TextEnd) MarshalJSON() ([]byte, error) { return Marshal(c) }

// MarshalJSON writes the chunk in its wire form (see [Marshal]).
func (c ReasoningStart) MarshalJSON() ([]byte, error) { return Marshal(c) }

// MarshalJSON writes the chunk in its wire form (see [Marshal]).
func (c ReasoningDelta) MarshalJSON() ([]byte, error) { return Marshal(c) }

// MarshalJSON writes the chunk in its wire form (see [Marshal]).
func (c ReasoningEnd) MarshalJSON() ([]byte, error) { return Marshal(c) }

// MarshalJSON writes the chunk in its wire form (see [Marshal]).
func (c ToolInputStart) MarshalJSON() ([]byte, error) { return Marshal(c) }

// MarshalJSON writes the chunk in its wire form (see [Marshal]).
func (c ToolInputDelta) MarshalJSON() ([]byte, error) { return Marshal(c) }

// MarshalJSON writes the chunk in its wire form (see [Marshal]).
func (c ToolInputAvailable) MarshalJSON() ([]byte, error) { return Marshal(c) }

// MarshalJSON writes the chunk in its wire form (see [Marshal]).
func (c ToolInputError) MarshalJSON() ([]byte, error) { return Marshal(c) }

// MarshalJSON writes the chunk in its wire form (see [Marshal]).
func (c ToolApprovalRequest) MarshalJSON() ([]byte, error) { return Marshal(c) }

// MarshalJSON writes the chunk in its wire form (see [Marshal]).
func (c ToolApprovalResponse) MarshalJSON() ([]byte, error) { return Marshal(c) }

// MarshalJSON writes the chunk in its wire form (see [Marshal]).
func (c ToolOutputAvailable) MarshalJSON() ([]byte, error) { return Marshal(c) }

// MarshalJSON writes the chunk in its wire form (see [Marshal]).
func (c ToolOutputError) MarshalJSON() ([]byte, error) { return Marshal(c) }

// MarshalJSON writes the chunk in its wire form (see [Marshal]).
func (c ToolOutputDenied) MarshalJSON() ([]byte, error) { return Marshal(c) }

// MarshalJSON writes the chunk in its wire form (see [Marshal]).
func (c SourceURL) MarshalJSON() ([]byte, error) { return Marshal(c) }

// MarshalJSON writes the chunk in its wire form (see [Marshal]).
func (c SourceDocument) MarshalJSON() ([]byte, error) { return Marshal(c) }

// MarshalJSON writes the chunk in its wire form (see [Marshal]).
func (c File) MarshalJSON() ([]byte, error) { return Marshal(c) }

// MarshalJSON writes the chunk in its wire form (see [Marshal]).
func (c ReasoningFile) MarshalJSON() ([]byte, error) { return Marshal(c) }

// MarshalJSON writes the chunk in its wire form (see [Marshal]).
func (c Custom) MarshalJSON() ([]byte, error) { return Marshal(c) }

// MarshalJSON writes the chunk in its wire form (see [Marshal]).
func (c Data) MarshalJSON() ([]byte, error) { return Marshal(c) }
