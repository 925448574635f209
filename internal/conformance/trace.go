package conformance

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"

	"github.com/aisdkgo/ai"
	"github.com/aisdkgo/ai/provider"
)

// errorName returns the name the reference gives an error of the same
// kind, so traces can be compared.
func errorName(err error) string {
	// The outermost error names the failure; wrapped causes only when it
	// is not one of the library's own.
	if name := ownErrorName(err); name != "" {
		return name
	}
	return wrappedErrorName(err)
}

func ownErrorName(err error) string {
	switch err.(type) {
	case *ai.NoOutputGeneratedError:
		return "AI_NoOutputGeneratedError"
	case *ai.RetryError:
		return "AI_RetryError"
	case *ai.ToolCallRepairError:
		return "AI_ToolCallRepairError"
	case *ai.InvalidToolInputError:
		return "AI_InvalidToolInputError"
	}
	return ""
}

func wrappedErrorName(err error) string {
	var (
		invalidArg  *ai.InvalidArgumentError
		invalidPr   *ai.InvalidPromptError
		noSuchTool  *ai.NoSuchToolError
		invalidIn   *ai.InvalidToolInputError
		repair      *ai.ToolCallRepairError
		choice      *ai.ToolChoiceViolationError
		typeVal     *ai.TypeValidationError
		jsonParse   *ai.JSONParseError
		approval    *ai.InvalidToolApprovalError
		notFound    *ai.ToolCallNotFoundForApprovalError
		missing     *ai.MissingToolResultsError
		noOutput    *ai.NoOutputGeneratedError
		retryErr    *ai.RetryError
		apiErr      *provider.APICallError
		invalidRole *provider.InvalidMessageRoleError
		unsupported *provider.UnsupportedFunctionalityError
		invalidResp *provider.InvalidResponseDataError
	)
	switch {
	case errors.As(err, &repair):
		return "AI_ToolCallRepairError"
	case errors.As(err, &invalidIn):
		return "AI_InvalidToolInputError"
	case errors.As(err, &invalidArg):
		return "AI_InvalidArgumentError"
	case errors.As(err, &invalidPr):
		return "AI_InvalidPromptError"
	case errors.As(err, &noSuchTool):
		return "AI_NoSuchToolError"
	case errors.As(err, &choice):
		return "AI_ToolChoiceViolationError"
	case errors.As(err, &typeVal):
		return "AI_TypeValidationError"
	case errors.As(err, &jsonParse):
		return "AI_JSONParseError"
	case errors.As(err, &approval):
		return "AI_InvalidToolApprovalError"
	case errors.As(err, &notFound):
		return "AI_ToolCallNotFoundForApprovalError"
	case errors.As(err, &missing):
		return "AI_MissingToolResultsError"
	case errors.As(err, &noOutput):
		return "AI_NoOutputGeneratedError"
	case errors.As(err, &retryErr):
		return "AI_RetryError"
	case errors.As(err, &apiErr):
		return "AI_APICallError"
	case errors.As(err, &invalidRole):
		return "AI_InvalidMessageRoleError"
	case errors.As(err, &unsupported):
		return "AI_UnsupportedFunctionalityError"
	case errors.As(err, &invalidResp):
		return "AI_InvalidResponseDataError"
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		return "AbortError"
	}
	return "Error"
}

// errorObject renders an error like the reference renders a thrown Error.
func errorObject(err error) map[string]any {
	if err == nil {
		return nil
	}
	return map[string]any{"name": errorName(err), "message": err.Error()}
}

func toolCallValue(c ai.ToolCall) map[string]any {
	m := map[string]any{
		"type":       "tool-call",
		"toolCallId": c.ToolCallID,
		"toolName":   c.ToolName,
		"input":      decodeValue(c.Input),
	}
	if c.ProviderExecuted {
		m["providerExecuted"] = true
	}
	if c.Dynamic {
		m["dynamic"] = true
	}
	if c.Invalid {
		m["invalid"] = true
		m["error"] = errorObject(c.Error)
	}
	if c.Title != "" {
		m["title"] = c.Title
	}
	if c.ToolMetadata != nil {
		m["toolMetadata"] = toValue(c.ToolMetadata)
	}
	if c.ProviderMetadata != nil {
		m["providerMetadata"] = toValue(c.ProviderMetadata)
	}
	return m
}

// contentValue converts step content to the reference's plain-data shape.
func (b *built) contentValue(content []ai.ContentPart) []any {
	invalid := map[string]bool{}
	for _, p := range content {
		if c, ok := p.(ai.ToolCall); ok && c.Invalid {
			invalid[c.ToolCallID] = true
		}
	}
	out := make([]any, 0, len(content))
	for _, p := range content {
		out = append(out, partValue(p, invalid))
	}
	return out
}

func partValue(p ai.ContentPart, invalid map[string]bool) any {
	switch p := p.(type) {
	case ai.ToolCall:
		return toolCallValue(p)
	case ai.ToolResult:
		m := map[string]any{
			"type":       "tool-result",
			"toolCallId": p.ToolCallID,
			"toolName":   p.ToolName,
			"input":      decodeValue(p.Input),
			"output":     toValue(p.Output),
			"dynamic":    p.Dynamic,
		}
		if p.ProviderExecuted {
			m["providerExecuted"] = true
			if !p.Dynamic {
				delete(m, "dynamic") // provider results carry the flag only when set
			}
		}
		if p.Preliminary {
			m["preliminary"] = true
		}
		if p.ToolMetadata != nil {
			m["toolMetadata"] = toValue(p.ToolMetadata)
		}
		if p.ProviderMetadata != nil {
			m["providerMetadata"] = toValue(p.ProviderMetadata)
		}
		return m
	case ai.ToolError:
		m := map[string]any{
			"type":       "tool-error",
			"toolCallId": p.ToolCallID,
			"toolName":   p.ToolName,
			"input":      decodeValue(p.Input),
			"dynamic":    p.Dynamic,
		}
		var pe *ai.ProviderToolError
		switch {
		case invalid[p.ToolCallID]:
			m["error"] = p.Error.Error()
		case errors.As(p.Error, &pe):
			m["error"] = decodeValue(pe.Value)
		default:
			m["error"] = errorObject(p.Error)
		}
		if p.ProviderExecuted {
			m["providerExecuted"] = true
			if !p.Dynamic {
				delete(m, "dynamic")
			}
		}
		if p.ToolMetadata != nil {
			m["toolMetadata"] = toValue(p.ToolMetadata)
		}
		if p.ProviderMetadata != nil {
			m["providerMetadata"] = toValue(p.ProviderMetadata)
		}
		return m
	case ai.ToolApprovalRequest:
		m := map[string]any{"type": "tool-approval-request", "approvalId": p.ApprovalID, "toolCall": toolCallValue(p.ToolCall)}
		if p.Reason != "" {
			m["reason"] = p.Reason
		}
		if p.IsAutomatic {
			m["isAutomatic"] = true
		}
		if p.Signature != "" {
			m["signature"] = p.Signature
		}
		return m
	case ai.ToolApprovalResponse:
		m := map[string]any{"type": "tool-approval-response", "approvalId": p.ApprovalID, "toolCall": toolCallValue(p.ToolCall), "approved": p.Approved}
		if p.Reason != "" {
			m["reason"] = p.Reason
		}
		if p.ProviderExecuted {
			m["providerExecuted"] = true
		}
		return m
	}
	return toValue(p)
}

// MarshalTrace writes a trace with sorted keys, two-space indentation,
// literal non-ASCII and a final newline.
func MarshalTrace(trace any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(trace); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}
