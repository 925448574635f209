package anthropic

import (
	"encoding/json"
	"net/http"

	"github.com/aisdkgo/ai/internal/claude"
	"github.com/aisdkgo/ai/provider"
)

// wireError is the "error" object of an error body or an error event:
// {"type": "error", "error": {"type": "overloaded_error", "message": "..."}}.
type wireError struct {
	Type    string `json:"type"`
	Message string `json:"message"`
}

// errorMessage extracts the message of an Anthropic error body, or "" when
// the body is in another format.
func errorMessage(body []byte) string {
	var e struct {
		Type  string     `json:"type"`
		Error *wireError `json:"error"`
	}
	if json.Unmarshal(body, &e) != nil || e.Error == nil {
		return ""
	}
	return e.Error.Message
}

// errorStatus is the HTTP status an error reported inside a successful
// response stands for, and whether the request is worth sending again: API
// errors (500), overload (529) and rate limits (429) are; too large requests
// (413), authentication (401), permission (403), not found (404), billing
// and invalid requests (400) and unknown kinds (500) are not.
func errorStatus(kind string) (status int, retryable bool) {
	switch kind {
	case "api_error":
		return http.StatusInternalServerError, true
	case "overloaded_error":
		return 529, true
	case "rate_limit_error":
		return http.StatusTooManyRequests, true
	case "request_too_large":
		return http.StatusRequestEntityTooLarge, false
	case "authentication_error":
		return http.StatusUnauthorized, false
	case "permission_error":
		return http.StatusForbidden, false
	case "not_found_error":
		return http.StatusNotFound, false
	case "billing_error", "invalid_request_error":
		return http.StatusBadRequest, false
	}
	return http.StatusInternalServerError, false
}

// errorInResponse turns an error delivered with HTTP 200 (as the first
// event of a stream) into the API error the call fails with.
func errorInResponse(e wireError, url string, reqBody []byte, headers http.Header) *provider.APICallError {
	status, retryable := errorStatus(e.Type)
	msg := e.Message
	if msg == "" {
		msg = e.Type
	}
	return &provider.APICallError{
		Message:         msg,
		URL:             url,
		StatusCode:      status,
		RequestBody:     reqBody,
		ResponseHeaders: provider.Header(provider.Header(headers)),
		ResponseBody:    claude.MarshalValue(e),
		Retryable:       retryable,
	}
}

// StreamError is an error the API reported inside a stream after output had
// started, delivered as a [provider.ErrorPart]. Type is Anthropic's error
// kind, for example "overloaded_error".
type StreamError struct {
	Type    string
	Message string
}

// Error implements the error interface.
func (e *StreamError) Error() string {
	if e.Type == "" {
		return "anthropic stream error: " + e.Message
	}
	return "anthropic stream error (" + e.Type + "): " + e.Message
}

// Retryable reports whether the failed call is worth repeating: true for
// API errors, overload and rate limits.
func (e *StreamError) Retryable() bool {
	_, r := errorStatus(e.Type)
	return r
}
