package provider

import "fmt"

// APICallError is a failed call to a provider's API. The ai package retries
// calls whose error is an APICallError with Retryable set.
type APICallError struct {
	// Message describes the failure, usually taken from the error body.
	Message string
	// URL is the request URL.
	URL string
	// StatusCode is the HTTP status, or 0 when no response arrived.
	StatusCode int
	// RequestBody is the body that was sent.
	RequestBody []byte
	// ResponseHeaders and ResponseBody are the response, when one arrived.
	ResponseHeaders Header
	ResponseBody    []byte
	// Retryable says whether sending the same request again may succeed
	// (rate limits, overload, server errors, dropped connections).
	Retryable bool
	// Cause is the underlying error, if any.
	Cause error
}

// Error implements the error interface.
func (e *APICallError) Error() string {
	if e.StatusCode != 0 {
		return fmt.Sprintf("API call failed with status %d: %s", e.StatusCode, e.Message)
	}
	return "API call failed: " + e.Message
}

// Unwrap returns e.Cause.
func (e *APICallError) Unwrap() error { return e.Cause }

// IsRetryableStatus reports whether an HTTP status is worth retrying:
// 408 (request timeout), 409 (conflict), 429 (rate limit) and all 5xx.
func IsRetryableStatus(code int) bool {
	return code == 408 || code == 409 || code == 429 || code >= 500
}

// InvalidResponseDataError reports a response the provider sent that does
// not have the expected shape.
type InvalidResponseDataError struct {
	// Data is the offending response data.
	Data []byte
	// Message says what is wrong with it.
	Message string
}

// Error implements the error interface.
func (e *InvalidResponseDataError) Error() string {
	return "invalid response data: " + e.Message
}

// UnsupportedFunctionalityError reports a call option or prompt content the
// provider cannot handle.
type UnsupportedFunctionalityError struct {
	// Functionality names what is unsupported.
	Functionality string
}

// Error implements the error interface.
func (e *UnsupportedFunctionalityError) Error() string {
	return "unsupported functionality: " + e.Functionality
}

// LoadAPIKeyError reports a missing API key.
type LoadAPIKeyError struct {
	// Message says where the key was looked for.
	Message string
}

// Error implements the error interface.
func (e *LoadAPIKeyError) Error() string { return e.Message }
