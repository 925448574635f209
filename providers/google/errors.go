package google

import (
	"encoding/json"
	"math"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/aisdkgo/ai/provider"
)

// wireError is the "error" object of an error body or of an error inside a
// stream: {"error": {"code": 429, "message": "...", "status":
// "RESOURCE_EXHAUSTED", "details": [...]}}.
type wireError struct {
	Code    *int              `json:"code"`
	Message string            `json:"message"`
	Status  string            `json:"status"`
	Details []json.RawMessage `json:"details"`
}

// parseErrorBody reads an error body; ok is false for any other shape.
func parseErrorBody(body []byte) (e wireError, ok bool) {
	var v struct {
		Error *wireError `json:"error"`
	}
	if json.Unmarshal(body, &v) != nil || v.Error == nil || v.Error.Message == "" && v.Error.Status == "" && v.Error.Code == nil {
		return e, false
	}
	return *v.Error, true
}

// errorMessage extracts the message of an error body, or "".
func errorMessage(body []byte) string {
	e, ok := parseErrorBody(body)
	if !ok {
		return ""
	}
	if e.Message == "" {
		return e.Status
	}
	return e.Message
}

// statusOf maps a Google RPC status name to an HTTP status, or 0.
func statusOf(status string) int {
	switch status {
	case "CANCELLED":
		return 499
	case "INVALID_ARGUMENT", "FAILED_PRECONDITION", "OUT_OF_RANGE":
		return http.StatusBadRequest
	case "DEADLINE_EXCEEDED":
		return http.StatusGatewayTimeout
	case "NOT_FOUND":
		return http.StatusNotFound
	case "ALREADY_EXISTS", "ABORTED":
		return http.StatusConflict
	case "PERMISSION_DENIED":
		return http.StatusForbidden
	case "UNAUTHENTICATED":
		return http.StatusUnauthorized
	case "RESOURCE_EXHAUSTED":
		return http.StatusTooManyRequests
	case "UNIMPLEMENTED":
		return http.StatusNotImplemented
	case "UNKNOWN", "INTERNAL", "DATA_LOSS":
		return http.StatusInternalServerError
	case "UNAVAILABLE":
		return http.StatusServiceUnavailable
	}
	return 0
}

// httpStatus is the HTTP status an error body stands for: its code when it
// looks like one, else its status name's, else 500.
func (e wireError) httpStatus() int {
	if e.Code != nil && *e.Code >= 400 && *e.Code <= 599 {
		return *e.Code
	}
	if s := statusOf(e.Status); s != 0 {
		return s
	}
	return http.StatusInternalServerError
}

// retryDelay returns the RetryInfo.retryDelay of the error's details, when
// there is a sane one.
func (e wireError) retryDelay() (time.Duration, bool) {
	for _, raw := range e.Details {
		var d struct {
			Type       string `json:"@type"`
			RetryDelay string `json:"retryDelay"`
		}
		if json.Unmarshal(raw, &d) != nil || !strings.HasSuffix(d.Type, "google.rpc.RetryInfo") || d.RetryDelay == "" {
			continue
		}
		if v, ok := parseDuration(d.RetryDelay); ok {
			return v, true
		}
	}
	return 0, false
}

// parseDuration reads a protobuf JSON duration: decimal seconds followed
// by "s" ("34.4s", "1s", "0.5s").
func parseDuration(s string) (time.Duration, bool) {
	num, ok := strings.CutSuffix(s, "s")
	if !ok {
		return 0, false
	}
	f, err := strconv.ParseFloat(num, 64)
	if err != nil || f < 0 || math.IsInf(f, 0) || math.IsNaN(f) || f > 24*3600 {
		return 0, false
	}
	return time.Duration(f * float64(time.Second)), true
}

// withRetryHint copies the retry delay of an error body into a copy of the
// response headers as retry-after-ms, the hint the ai package's retries
// honour, unless the response already carries a retry-after hint.
func withRetryHint(h http.Header, e wireError) http.Header {
	d, ok := e.retryDelay()
	if !ok || h.Get("Retry-After-Ms") != "" || h.Get("Retry-After") != "" {
		return h
	}
	h = h.Clone()
	if h == nil {
		h = http.Header{}
	}
	h.Set("Retry-After-Ms", strconv.FormatInt(d.Milliseconds(), 10))
	return h
}

// apiError turns an error body delivered with a successful status (as a
// JSON answer or inside a stream) into the error the call fails with.
func apiError(e wireError, url string, reqBody []byte, headers http.Header, body []byte) *provider.APICallError {
	status := e.httpStatus()
	msg := e.Message
	if msg == "" {
		msg = e.Status
	}
	return &provider.APICallError{
		Message:         msg,
		URL:             url,
		StatusCode:      status,
		RequestBody:     reqBody,
		ResponseHeaders: provider.Header(withRetryHint(headers, e)),
		ResponseBody:    body,
		Retryable:       provider.IsRetryableStatus(status),
	}
}

// addRetryHint returns an HTTP error with the retry delay of its body added
// to its headers. The error may be shared (a sibling call's context can end
// with it as its cause), so it is never changed: the hint goes on a copy.
func addRetryHint(err error) error {
	apiErr, ok := err.(*provider.APICallError)
	if !ok || len(apiErr.ResponseBody) == 0 {
		return err
	}
	e, ok := parseErrorBody(apiErr.ResponseBody)
	if !ok {
		return err
	}
	h := withRetryHint(http.Header(apiErr.ResponseHeaders), e)
	if provider.Header(h).Get("Retry-After-Ms") == apiErr.ResponseHeaders.Get("Retry-After-Ms") {
		return err
	}
	c := *apiErr
	c.ResponseHeaders = provider.Header(h)
	return &c
}
