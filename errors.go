package ai

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/aisdkgo/ai/provider"
)

// Errors returned by the ai package. Callers branch on them with
// errors.As; each type documents when it occurs.
type (
	// APICallError is a failed provider API call; see
	// [provider.APICallError].
	APICallError = provider.APICallError
)

// ErrStreamConsumed is returned by a second attempt to read a stream.
var ErrStreamConsumed = errors.New("ai: a stream can be read only once")

// ErrStreamStopped is what the result accessors return when the reader of
// [StreamTextResult.Parts] stopped before the end: the generation was
// cancelled at that point.
var ErrStreamStopped = errors.New("ai: the stream's reader stopped before the end")

// InvalidArgumentError reports an option or argument with an invalid value.
// It is returned before any model call.
type InvalidArgumentError struct {
	// Parameter names the option.
	Parameter string
	// Message says what is wrong.
	Message string
}

// Error implements the error interface.
func (e *InvalidArgumentError) Error() string {
	return fmt.Sprintf("invalid argument for %s: %s", e.Parameter, e.Message)
}

// InvalidPromptError reports a prompt that cannot be sent: no prompt at all,
// an empty message list, or system messages where they are not allowed.
type InvalidPromptError struct {
	Message string
}

// Error implements the error interface.
func (e *InvalidPromptError) Error() string { return "invalid prompt: " + e.Message }

// NoSuchToolError reports a call of a tool that is not available in the step
// (unknown, inactive, or deferred and not yet discovered).
type NoSuchToolError struct {
	// ToolName is the name the model used.
	ToolName string
	// AvailableTools are the tools the model could call in that step; nil
	// when the step had no tools at all.
	AvailableTools []string
}

// Error implements the error interface.
func (e *NoSuchToolError) Error() string {
	if e.AvailableTools == nil {
		return fmt.Sprintf("model tried to call unavailable tool %q; no tools are available", e.ToolName)
	}
	return fmt.Sprintf("model tried to call unavailable tool %q; available tools: %s", e.ToolName, strings.Join(e.AvailableTools, ", "))
}

// InvalidToolInputError reports tool input that is not JSON or does not
// match the tool's input schema.
type InvalidToolInputError struct {
	ToolName string
	// ToolInput is the input text the model produced.
	ToolInput string
	// Cause is a *JSONParseError or a *TypeValidationError.
	Cause error
}

// Error implements the error interface.
func (e *InvalidToolInputError) Error() string {
	return fmt.Sprintf("invalid input for tool %s: %v", e.ToolName, e.Cause)
}

// Unwrap returns e.Cause.
func (e *InvalidToolInputError) Unwrap() error { return e.Cause }

// JSONParseError reports text that is not valid JSON.
type JSONParseError struct {
	Text  string
	Cause error
}

// Error implements the error interface.
func (e *JSONParseError) Error() string {
	return fmt.Sprintf("JSON parsing failed for %s: %v", describeValue([]byte(e.Text)), e.Cause)
}

// Unwrap returns e.Cause.
func (e *JSONParseError) Unwrap() error { return e.Cause }

// TypeValidationError reports a value that does not match its schema.
type TypeValidationError struct {
	// Value is the value's JSON.
	Value []byte
	// Context names what was validated, for example "tool context (weather)".
	Context string
	Cause   error
}

// Error implements the error interface.
func (e *TypeValidationError) Error() string {
	what := "value"
	if e.Context != "" {
		what = e.Context
	}
	return fmt.Sprintf("type validation failed for %s %s: %v", what, describeValue(e.Value), e.Cause)
}

// Unwrap returns e.Cause.
func (e *TypeValidationError) Unwrap() error { return e.Cause }

// ToolCallRepairError reports a repair function that failed.
type ToolCallRepairError struct {
	// OriginalError is the error that asked for the repair.
	OriginalError error
	Cause         error
}

// Error implements the error interface.
func (e *ToolCallRepairError) Error() string {
	return fmt.Sprintf("repairing the tool call failed: %v", e.Cause)
}

// Unwrap returns e.Cause.
func (e *ToolCallRepairError) Unwrap() error { return e.Cause }

// ToolChoiceViolationError reports a model response that ignored the tool
// choice: a call when the choice was none, or no (matching) call when a call
// was required.
type ToolChoiceViolationError struct {
	ToolChoice   ToolChoice
	FinishReason FinishReason
	Provider     string
	ModelID      string
}

// Error implements the error interface.
func (e *ToolChoiceViolationError) Error() string {
	switch e.ToolChoice.Type {
	case provider.ToolChoiceNone:
		return "the model called a tool although the tool choice was none"
	case provider.ToolChoiceTool:
		return fmt.Sprintf("the model did not call the required tool %q", e.ToolChoice.ToolName)
	}
	return "the model did not call a tool although the tool choice required one"
}

// ToolExecutionError wraps a panic inside a tool's callbacks.
type ToolExecutionError struct {
	ToolName   string
	ToolCallID string
	// Panic is the recovered value.
	Panic any
}

// Error implements the error interface.
func (e *ToolExecutionError) Error() string {
	return fmt.Sprintf("tool %s panicked: %v", e.ToolName, e.Panic)
}

// CallbackPanicError wraps a panic inside a callback that is not a tool (a
// stop condition, PrepareStep, a description function...).
type CallbackPanicError struct {
	// Callback names the callback.
	Callback string
	Panic    any
}

// Error implements the error interface.
func (e *CallbackPanicError) Error() string {
	return fmt.Sprintf("%s panicked: %v", e.Callback, e.Panic)
}

// InvalidToolApprovalError reports an approval response that answers no
// approval request in the message history.
type InvalidToolApprovalError struct {
	ApprovalID string
}

// Error implements the error interface.
func (e *InvalidToolApprovalError) Error() string {
	return fmt.Sprintf("tool approval response %q answers no approval request in the message history", e.ApprovalID)
}

// InvalidToolApprovalSignatureError reports an approved tool call whose
// approval request carries no signature, or one that does not match the
// call in the conversation, while approvals are signed
// ([GenerateTextOptions.ToolApprovalSecrets]). Nothing runs.
type InvalidToolApprovalSignatureError struct {
	ApprovalID string
	ToolCallID string
	// Reason is "missing signature" or "invalid signature".
	Reason string
}

// Error implements the error interface.
func (e *InvalidToolApprovalSignatureError) Error() string {
	return fmt.Sprintf("tool approval signature verification failed for approval %q (tool call %q): %s", e.ApprovalID, e.ToolCallID, e.Reason)
}

// ApprovalAlreadyUsedError is the tool error a call gets when its approval
// was claimed before in the [ApprovalLedger]: the call ran (or started)
// once already and does not run again.
type ApprovalAlreadyUsedError struct {
	ApprovalID string
	ToolCallID string
}

// Error implements the error interface.
func (e *ApprovalAlreadyUsedError) Error() string {
	return fmt.Sprintf("approval %q of tool call %q was already used: the call does not run again", e.ApprovalID, e.ToolCallID)
}

// ToolCallNotFoundForApprovalError reports an approval request whose tool
// call is not in the history.
type ToolCallNotFoundForApprovalError struct {
	ToolCallID string
	ApprovalID string
}

// Error implements the error interface.
func (e *ToolCallNotFoundForApprovalError) Error() string {
	return fmt.Sprintf("tool call %q of approval request %q is not in the message history", e.ToolCallID, e.ApprovalID)
}

// MissingToolResultsError reports tool calls in the history that have no
// result before the conversation moves on.
type MissingToolResultsError struct {
	ToolCallIDs []string
}

// Error implements the error interface.
func (e *MissingToolResultsError) Error() string {
	if len(e.ToolCallIDs) == 1 {
		return fmt.Sprintf("tool call %s has no result", e.ToolCallIDs[0])
	}
	return fmt.Sprintf("tool calls %s have no results", strings.Join(e.ToolCallIDs, ", "))
}

// NoOutputGeneratedError reports a generation that produced no step, or a
// result read before any output exists.
type NoOutputGeneratedError struct {
	Message string
	Cause   error
}

// Error implements the error interface.
func (e *NoOutputGeneratedError) Error() string {
	if e.Message == "" {
		return "no output generated"
	}
	return "no output generated: " + e.Message
}

// Unwrap returns e.Cause.
func (e *NoOutputGeneratedError) Unwrap() error { return e.Cause }

// RetryError reports a model call that failed on every attempt, or whose
// retries were cut short.
type RetryError struct {
	// Reason is "maxRetriesExceeded", "errorNotRetryable", or "abort" when
	// the context ended while waiting for the next attempt.
	Reason string
	// Errors are the errors of all attempts, in order.
	Errors []error
	// Cause is why an aborted retry stopped (the context's cause).
	Cause error
}

// Error implements the error interface.
func (e *RetryError) Error() string {
	last := e.Errors[len(e.Errors)-1]
	switch e.Reason {
	case "errorNotRetryable":
		return fmt.Sprintf("failed after %d attempts with a non-retryable error: %v", len(e.Errors), last)
	case "abort":
		return fmt.Sprintf("stopped waiting to retry after %d attempts (%v); the last attempt failed: %v", len(e.Errors), e.Cause, last)
	}
	return fmt.Sprintf("failed after %d attempts: %v", len(e.Errors), last)
}

// Unwrap returns the last attempt's error and, for an aborted retry, the
// cause of the abort, so that both match errors.Is and errors.As.
func (e *RetryError) Unwrap() []error {
	last := e.Errors[len(e.Errors)-1]
	if e.Cause != nil {
		return []error{last, e.Cause}
	}
	return []error{last}
}

// errorText renders an error for the model.
func errorText(err error) string {
	if err == nil {
		return "unknown error"
	}
	return err.Error()
}

// StreamFailedError is what the accessors of a [StreamTextResult] return
// when the generation ran to its end but its stream reported errors
// ([ErrorPart]s: a model stream that failed, a tool choice the model ignored,
// a broken stream protocol). The result is returned beside it, with the
// steps as they finished.
type StreamFailedError struct {
	// Errs are the errors of the error parts, in order.
	Errs []error
}

// Error implements the error interface.
func (e *StreamFailedError) Error() string {
	if len(e.Errs) == 1 {
		return "the stream reported an error: " + errorText(e.Errs[0])
	}
	return fmt.Sprintf("the stream reported %d errors; the first: %s", len(e.Errs), errorText(e.Errs[0]))
}

// Unwrap returns the errors of the error parts.
func (e *StreamFailedError) Unwrap() []error { return e.Errs }

// StreamProtocolError reports a model stream that broke the stream
// protocol: a delta or end of a text or reasoning block that was never
// started. The part is streamed, but its text is not kept.
type StreamProtocolError struct {
	Message string
}

// Error implements the error interface.
func (e *StreamProtocolError) Error() string { return e.Message }

// ProviderToolError is the error of a provider-executed tool call: the
// provider's JSON description of the failure.
type ProviderToolError struct {
	Value json.RawMessage
}

// Error implements the error interface.
func (e *ProviderToolError) Error() string { return string(e.Value) }

// UnknownToolCallResultError reports a provider result for a tool call that
// is not in the same response (and whose tool does not deliver results
// later).
type UnknownToolCallResultError struct {
	ToolCallID string
	ToolName   string
}

// Error implements the error interface.
func (e *UnknownToolCallResultError) Error() string {
	return fmt.Sprintf("the provider returned a result of tool %q for call %s, which is not in the response", e.ToolName, e.ToolCallID)
}

// TimeoutError reports that a limit of [Timeout] expired. It wraps
// [context.DeadlineExceeded].
type TimeoutError struct {
	// Limit is "Total", "Step" or "Tool".
	Limit string
	// ToolName names the tool of an expired tool timeout.
	ToolName string
	Duration time.Duration
}

// Error implements the error interface.
func (e *TimeoutError) Error() string {
	if e.ToolName != "" {
		return fmt.Sprintf("tool %s timed out after %v", e.ToolName, e.Duration)
	}
	return fmt.Sprintf("the generation's %s timeout of %v expired", strings.ToLower(e.Limit), e.Duration)
}

// Unwrap returns [context.DeadlineExceeded].
func (e *TimeoutError) Unwrap() error { return context.DeadlineExceeded }

// withTimeout bounds ctx by d (no bound when d <= 0); the expiry's cause is
// a *TimeoutError naming the limit.
func withTimeout(ctx context.Context, d time.Duration, limit string) (context.Context, context.CancelFunc) {
	if d <= 0 {
		return ctx, func() {}
	}
	return context.WithTimeoutCause(ctx, d, &TimeoutError{Limit: limit, Duration: d})
}

// ToolOutputError reports a tool output that cannot be encoded as JSON for
// the model: a value encoding/json rejects (a channel, NaN, a cycle), or
// whose encoding panicked.
type ToolOutputError struct {
	ToolName string
	// Cause is the encoding error; nil when the encoding panicked.
	Cause error
	// Panic is the recovered value of a panicking encoding.
	Panic any
}

// Error implements the error interface.
func (e *ToolOutputError) Error() string {
	if e.Cause == nil {
		return fmt.Sprintf("the output of tool %s cannot be encoded as JSON: the encoding panicked: %v", e.ToolName, e.Panic)
	}
	return fmt.Sprintf("the output of tool %s cannot be encoded as JSON: %v", e.ToolName, e.Cause)
}

// Unwrap returns e.Cause.
func (e *ToolOutputError) Unwrap() error { return e.Cause }
