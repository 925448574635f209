package uistream

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"iter"
	"strings"

	"github.com/aisdkgo/ai"
)

// ResetStep tells the client to drop every part added since the last
// step start. Clients accept it; the generation never sends it.
type ResetStep struct{}

// SteeringMessage is a user message added while the assistant was working;
// Parts holds [TextPart] and [FilePart] values only.
type SteeringMessage struct {
	ID    string
	Parts []Part
}

// ChunkType returns "reset-step".
func (ResetStep) ChunkType() string { return "reset-step" }

// ChunkType returns "steering-message".
func (SteeringMessage) ChunkType() string { return "steering-message" }

func (ResetStep) wire() any { return typeOnly{"reset-step"} }

func (c SteeringMessage) wire() any {
	return SteeringMessagePart(c)
}

// MarshalJSON writes the chunk in its wire form (see [Marshal]).
func (c ResetStep) MarshalJSON() ([]byte, error) { return Marshal(c) }

// MarshalJSON writes the chunk in its wire form (see [Marshal]).
func (c SteeringMessage) MarshalJSON() ([]byte, error) { return Marshal(c) }

// MaxEventBytes bounds one event of a stream read by [ReadChunks].
const MaxEventBytes = 16 << 20

// ChunkError is a chunk that cannot be used: it is not a chunk of the
// protocol, or it does not fit the message being built (a text delta
// without its start, a tool output for an unknown call).
type ChunkError struct {
	// Type is the chunk's type, when known.
	Type string
	// ID is the id the chunk refers to, when there is one.
	ID      string
	Message string
}

// Error returns the chunk type and the message.
func (e *ChunkError) Error() string {
	if e.Type == "" {
		return "uistream: chunk: " + e.Message
	}
	return fmt.Sprintf("uistream: %s chunk: %s", e.Type, e.Message)
}

// ParseChunk decodes one chunk from its JSON form, the inverse of
// [Marshal]. JSON values (outputs, data, metadata, citations) are kept as
// [json.RawMessage]. Unknown fields are ignored; an unknown type or a
// missing required field is a [*ChunkError].
func ParseChunk(data []byte) (Chunk, error) {
	var w struct {
		Type             string              `json:"type"`
		MessageID        string              `json:"messageId"`
		MessageMetadata  json.RawMessage     `json:"messageMetadata"`
		FinishReason     ai.FinishReason     `json:"finishReason"`
		Reason           string              `json:"reason"`
		ErrorText        *string             `json:"errorText"`
		ID               *string             `json:"id"`
		Delta            *string             `json:"delta"`
		Citations        json.RawMessage     `json:"citations"`
		ProviderMetadata ai.ProviderMetadata `json:"providerMetadata"`
		ToolCallID       string              `json:"toolCallId"`
		ToolName         string              `json:"toolName"`
		InputEncoding    string              `json:"inputEncoding"`
		ProviderExecuted bool                `json:"providerExecuted"`
		ToolMetadata     map[string]any      `json:"toolMetadata"`
		Dynamic          *bool               `json:"dynamic"`
		Title            string              `json:"title"`
		InputTextDelta   *string             `json:"inputTextDelta"`
		Input            json.RawMessage     `json:"input"`
		ApprovalID       string              `json:"approvalId"`
		InputSchemaInput json.RawMessage     `json:"inputSchemaInput"`
		IsAutomatic      bool                `json:"isAutomatic"`
		Signature        string              `json:"signature"`
		Approved         *bool               `json:"approved"`
		Output           json.RawMessage     `json:"output"`
		Preliminary      bool                `json:"preliminary"`
		SourceID         string              `json:"sourceId"`
		URL              string              `json:"url"`
		MediaType        string              `json:"mediaType"`
		Filename         string              `json:"filename"`
		Kind             string              `json:"kind"`
		Data             json.RawMessage     `json:"data"`
		Transient        bool                `json:"transient"`
		Parts            []json.RawMessage   `json:"parts"`
	}
	if err := json.Unmarshal(data, &w); err != nil {
		return nil, &ChunkError{Message: "not a chunk object: " + err.Error()}
	}
	fail := func(field string) (Chunk, error) {
		return nil, &ChunkError{Type: w.Type, Message: "missing " + field}
	}
	str := func(p *string) string {
		if p == nil {
			return ""
		}
		return *p
	}
	needID := w.ID == nil
	if isNull(w.MessageMetadata) {
		w.MessageMetadata = nil
	}
	switch w.Type {
	case "start":
		return Start{MessageID: w.MessageID, MessageMetadata: rawOrNil(w.MessageMetadata)}, nil
	case "start-step":
		return StartStep{}, nil
	case "finish-step":
		return FinishStep{}, nil
	case "reset-step":
		return ResetStep{}, nil
	case "finish":
		return Finish{FinishReason: w.FinishReason, MessageMetadata: rawOrNil(w.MessageMetadata)}, nil
	case "abort":
		return Abort{Reason: w.Reason}, nil
	case "error":
		if w.ErrorText == nil {
			return fail("errorText")
		}
		return Error{ErrorText: *w.ErrorText}, nil
	case "message-metadata":
		if w.MessageMetadata == nil {
			return fail("messageMetadata")
		}
		return MessageMetadata{MessageMetadata: w.MessageMetadata}, nil
	case "text-start", "text-end", "reasoning-start", "reasoning-end", "text-delta", "reasoning-delta":
		if needID {
			return fail("id")
		}
		id, pm := *w.ID, w.ProviderMetadata
		switch w.Type {
		case "text-start":
			return TextStart{ID: id, ProviderMetadata: pm}, nil
		case "text-end":
			return TextEnd{ID: id, Citations: rawOrNil(w.Citations), ProviderMetadata: pm}, nil
		case "reasoning-start":
			return ReasoningStart{ID: id, ProviderMetadata: pm}, nil
		case "reasoning-end":
			return ReasoningEnd{ID: id, ProviderMetadata: pm}, nil
		}
		if w.Delta == nil {
			return fail("delta")
		}
		if w.Type == "text-delta" {
			return TextDelta{ID: id, Delta: *w.Delta, ProviderMetadata: pm}, nil
		}
		return ReasoningDelta{ID: id, Delta: *w.Delta, ProviderMetadata: pm}, nil
	}
	if strings.HasPrefix(w.Type, "tool-") && w.ToolCallID == "" && w.Type != "tool-approval-response" {
		return fail("toolCallId")
	}
	switch w.Type {
	case "tool-input-start":
		if w.ToolName == "" {
			return fail("toolName")
		}
		return ToolInputStart{ToolCallID: w.ToolCallID, ToolName: w.ToolName, InputEncoding: w.InputEncoding,
			ProviderExecuted: w.ProviderExecuted, ProviderMetadata: w.ProviderMetadata,
			ToolMetadata: w.ToolMetadata, Dynamic: w.Dynamic, Title: w.Title}, nil
	case "tool-input-delta":
		if w.InputTextDelta == nil {
			return fail("inputTextDelta")
		}
		return ToolInputDelta{ToolCallID: w.ToolCallID, InputTextDelta: *w.InputTextDelta}, nil
	case "tool-input-available", "tool-input-error":
		if w.ToolName == "" {
			return fail("toolName")
		}
		if w.Type == "tool-input-available" {
			return ToolInputAvailable{ToolCallID: w.ToolCallID, ToolName: w.ToolName, Input: w.Input,
				ProviderExecuted: w.ProviderExecuted, ProviderMetadata: w.ProviderMetadata,
				ToolMetadata: w.ToolMetadata, Dynamic: w.Dynamic, Title: w.Title}, nil
		}
		if w.ErrorText == nil {
			return fail("errorText")
		}
		return ToolInputError{ToolCallID: w.ToolCallID, ToolName: w.ToolName, Input: w.Input,
			ProviderExecuted: w.ProviderExecuted, ProviderMetadata: w.ProviderMetadata,
			ToolMetadata: w.ToolMetadata, Dynamic: w.Dynamic, ErrorText: *w.ErrorText, Title: w.Title}, nil
	case "tool-approval-request":
		if w.ApprovalID == "" {
			return fail("approvalId")
		}
		return ToolApprovalRequest{ApprovalID: w.ApprovalID, ToolCallID: w.ToolCallID,
			InputSchemaInput: w.InputSchemaInput, Reason: w.Reason, IsAutomatic: w.IsAutomatic,
			Signature: w.Signature}, nil
	case "tool-approval-response":
		if w.ApprovalID == "" {
			return fail("approvalId")
		}
		if w.Approved == nil {
			return fail("approved")
		}
		return ToolApprovalResponse{ApprovalID: w.ApprovalID, Approved: *w.Approved, Reason: w.Reason,
			ProviderExecuted: w.ProviderExecuted}, nil
	case "tool-output-available":
		if w.Output == nil {
			return fail("output")
		}
		return ToolOutputAvailable{ToolCallID: w.ToolCallID, Output: w.Output, ProviderExecuted: w.ProviderExecuted,
			ProviderMetadata: w.ProviderMetadata, ToolMetadata: w.ToolMetadata, Preliminary: w.Preliminary,
			Dynamic: w.Dynamic}, nil
	case "tool-output-error":
		if w.ErrorText == nil {
			return fail("errorText")
		}
		return ToolOutputError{ToolCallID: w.ToolCallID, ErrorText: *w.ErrorText, ProviderExecuted: w.ProviderExecuted,
			ProviderMetadata: w.ProviderMetadata, ToolMetadata: w.ToolMetadata, Dynamic: w.Dynamic}, nil
	case "tool-output-denied":
		return ToolOutputDenied{ToolCallID: w.ToolCallID}, nil
	case "source-url":
		if w.SourceID == "" || w.URL == "" {
			return fail("sourceId or url")
		}
		return SourceURL{SourceID: w.SourceID, URL: w.URL, Title: w.Title, ProviderMetadata: w.ProviderMetadata}, nil
	case "source-document":
		if w.SourceID == "" || w.MediaType == "" {
			return fail("sourceId or mediaType")
		}
		return SourceDocument{SourceID: w.SourceID, MediaType: w.MediaType, Title: w.Title,
			Filename: w.Filename, ProviderMetadata: w.ProviderMetadata}, nil
	case "file", "reasoning-file":
		if w.MediaType == "" || w.URL == "" {
			return fail("mediaType or url")
		}
		if w.Type == "file" {
			return File{MediaType: w.MediaType, URL: w.URL, ProviderMetadata: w.ProviderMetadata}, nil
		}
		return ReasoningFile{MediaType: w.MediaType, URL: w.URL, ProviderMetadata: w.ProviderMetadata}, nil
	case "custom":
		if w.Kind == "" {
			return fail("kind")
		}
		return Custom{Kind: w.Kind, ProviderMetadata: w.ProviderMetadata}, nil
	case "steering-message":
		if needID || w.Parts == nil {
			return fail("id or parts")
		}
		d := decoder{limits: defaultLimits()}
		sm := SteeringMessage{ID: *w.ID}
		for i, raw := range w.Parts {
			p, err := d.part(raw, fmt.Sprintf("parts[%d]", i), true)
			if err != nil {
				return nil, &ChunkError{Type: w.Type, Message: err.Error()}
			}
			sm.Parts = append(sm.Parts, p)
		}
		return sm, nil
	}
	if name, ok := strings.CutPrefix(w.Type, "data-"); ok && name != "" {
		if w.Data == nil {
			return fail("data")
		}
		return Data{Name: name, ID: str(w.ID), Data: w.Data, Transient: w.Transient}, nil
	}
	return nil, &ChunkError{Type: w.Type, Message: "unknown chunk type"}
}

// rawOrNil returns nil for an absent value, so that an optional field
// stays unset.
func rawOrNil(v json.RawMessage) any {
	if v == nil {
		return nil
	}
	return v
}

// ReadChunks reads a UI message stream (server-sent events, as [Write]
// sends them) and yields its chunks up to "[DONE]". Comments are skipped.
// A body that ends without "[DONE]" yields [io.ErrUnexpectedEOF]; an event
// larger than [MaxEventBytes], or one that is not a chunk, yields an error
// and ends the reading.
func ReadChunks(r io.Reader) iter.Seq2[Chunk, error] {
	return func(yield func(Chunk, error) bool) {
		sc := bufio.NewScanner(r)
		sc.Buffer(make([]byte, 0, 64<<10), MaxEventBytes)
		var data []byte
		for sc.Scan() {
			line := sc.Bytes()
			if len(line) == 0 {
				if data == nil {
					continue
				}
				ev := data
				data = nil
				if string(ev) == "[DONE]" {
					return
				}
				c, err := ParseChunk(ev)
				if !yield(c, err) || err != nil {
					return
				}
				continue
			}
			if line[0] == ':' {
				continue
			}
			v, ok := bytes.CutPrefix(line, []byte("data:"))
			if !ok {
				continue // other fields (event, id, retry) carry nothing here
			}
			v = bytes.TrimPrefix(v, []byte(" "))
			if len(data)+len(v) > MaxEventBytes {
				yield(nil, &ChunkError{Message: "event too large"})
				return
			}
			if data == nil {
				data = make([]byte, 0, len(v))
			} else {
				data = append(data, '\n')
			}
			data = append(data, v...)
		}
		err := sc.Err()
		if errors.Is(err, bufio.ErrTooLong) {
			err = &ChunkError{Message: "event too large"}
		} else if err == nil {
			err = io.ErrUnexpectedEOF
		}
		yield(nil, err)
	}
}
