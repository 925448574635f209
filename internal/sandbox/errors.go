package sandbox

// Stable error codes. Every failure of [Run] is an [*Error] carrying one of
// these in its Code field; a host tool may also return an *Error with a code
// of its own (approval, protocol ...), which is passed through unchanged.
const (
	// CodeError is the generic code: invalid options, engine failures,
	// a program that can never finish, a panicking host callback.
	CodeError = "CODE_MODE_ERROR"
	// CodeSerialization reports a value that could not cross the JSON
	// boundary: a circular or BigInt value, or one over its size limit.
	CodeSerialization = "CODE_MODE_SERIALIZATION_ERROR"
	// CodeTimeout reports that the wall-clock limit (Limits.Timeout) ran out.
	CodeTimeout = "CODE_MODE_TIMEOUT"
	// CodeAborted reports that the caller's context ended the run.
	CodeAborted = "CODE_MODE_ABORTED"
	// CodeConcurrencyLimit reports that the process already runs as many
	// programs as [MaxConcurrentRuns] allows. Details carry
	// "maxConcurrentRuns".
	CodeConcurrencyLimit = "CODE_MODE_CONCURRENCY_LIMIT"
	// CodeSourceTooLarge reports a program over Limits.MaxSourceBytes.
	// Details carry "bytes" and "maxBytes".
	CodeSourceTooLarge = "CODE_MODE_SOURCE_TOO_LARGE"
	// CodeBridgeLimit reports too many tool calls in total or at once.
	CodeBridgeLimit = "CODE_MODE_BRIDGE_LIMIT"
	// CodeDetachedBridgeRequest reports a tool call the program did not wait
	// for: never observed (the host never ran it) or still running when the
	// program returned.
	CodeDetachedBridgeRequest = "CODE_MODE_DETACHED_BRIDGE_REQUEST"
	// CodeToolError reports a failed tool call that the host described with
	// an *Error of this code, for example an unknown tool.
	CodeToolError = "CODE_MODE_TOOL_ERROR"
	// CodeHostToolError is what the program sees when a host tool failed
	// with an ordinary Go error. The original error is never shown to the
	// program; it is kept in Cause when the failure ends the run.
	CodeHostToolError = "CODE_MODE_HOST_TOOL_ERROR"
	// CodeMemoryLimit reports that the program ran out of memory
	// (Limits.MemoryBytes).
	CodeMemoryLimit = "CODE_MODE_MEMORY_LIMIT"
	// CodeUserError reports an exception the program threw and did not
	// catch, including syntax errors. Name and Message are the guest error's
	// own, for example "TypeError" and "x is not a function".
	CodeUserError = "CODE_MODE_USER_ERROR"
)

// Error is the error type of every failure of [Run].
//
// Error() renders as "<Name>: <Message>", the form a model is shown. When
// Name is empty a class-like name derived from Code is used (see
// [Error.DisplayName]).
type Error struct {
	Code    string
	Name    string
	Message string
	// Details holds structured, JSON-friendly facts about the failure, for
	// example the limit that was exceeded. It may be nil.
	Details map[string]any
	// Cause is the underlying Go error, if any. It is never shown to the
	// program and is not part of Error().
	Cause error
}

// Error implements the error interface.
func (e *Error) Error() string {
	return e.DisplayName() + ": " + e.Message
}

// Unwrap returns Cause.
func (e *Error) Unwrap() error { return e.Cause }

// DisplayName returns Name, or when it is empty the default name of Code.
func (e *Error) DisplayName() string {
	if e.Name != "" {
		return e.Name
	}
	return defaultName(e.Code)
}

// defaultName returns the class-like name used for code when an error has no
// name of its own.
func defaultName(code string) string {
	switch code {
	case CodeTimeout:
		return "CodeModeTimeoutError"
	case CodeAborted:
		return "CodeModeAbortedError"
	case CodeConcurrencyLimit:
		return "CodeModeConcurrencyError"
	case CodeSourceTooLarge:
		return "CodeModeSourceTooLargeError"
	case CodeBridgeLimit:
		return "CodeModeBridgeLimitError"
	case CodeDetachedBridgeRequest:
		return "CodeModeDetachedBridgeRequestError"
	case CodeToolError:
		return "CodeModeToolError"
	case CodeMemoryLimit:
		return "CodeModeMemoryLimitError"
	case CodeUserError:
		return "Error"
	default:
		// CodeError, CodeSerialization, CodeHostToolError and codes the
		// host made up.
		return "CodeModeError"
	}
}

// newError returns an *Error with the default name of code.
func newError(code, message string) *Error {
	return &Error{Code: code, Name: defaultName(code), Message: message}
}

// withDetails sets Details and returns e.
func (e *Error) withDetails(d map[string]any) *Error {
	e.Details = d
	return e
}

// withCause sets Cause and returns e.
func (e *Error) withCause(err error) *Error {
	e.Cause = err
	return e
}
