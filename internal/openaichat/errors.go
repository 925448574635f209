package openaichat

import (
	"encoding/json"
	"net/http"
	"regexp"
	"strconv"
	"strings"

	"github.com/aisdkgo/ai/provider"
)

// ErrorMessage extracts the message of an OpenAI-style error body,
// {"error": {"message": "..."}}. A few compatible servers send the error as a
// bare string ({"error": "..."}); that is accepted too. It returns "" for any
// other shape.
func ErrorMessage(body []byte) string {
	var v struct {
		Error json.RawMessage `json:"error"`
	}
	if json.Unmarshal(body, &v) != nil || len(v.Error) == 0 {
		return ""
	}
	var obj struct {
		Message string `json:"message"`
	}
	if json.Unmarshal(v.Error, &obj) == nil && obj.Message != "" {
		return obj.Message
	}
	var s string
	if json.Unmarshal(v.Error, &s) == nil {
		return s
	}
	return ""
}

// StreamError describes an error reported inside a successful (HTTP 200)
// stream.
type StreamError struct {
	Message string
	// Code is the error's code: a string, a number or nil.
	Code any
	// Type is the error's type, if any.
	Type string
}

// ParseStreamError reads an error frame. It understands the nested form
// {"error": {"message", "type", "code"}}, the flat form {"type": "error",
// "message", "code"} and the Responses API's {"type": "response.failed",
// "response": {"error": {"code", "message"}}}. ok is false when frame is not
// an error.
func ParseStreamError(frame []byte) (e StreamError, ok bool) {
	var v map[string]json.RawMessage
	if json.Unmarshal(frame, &v) != nil {
		return e, false
	}
	var typ string
	_ = json.Unmarshal(v["type"], &typ)
	if typ == "response.failed" {
		var r struct {
			Response struct {
				Error *struct {
					Message *string `json:"message"`
					Code    any     `json:"code"`
				} `json:"error"`
			} `json:"response"`
		}
		if json.Unmarshal(frame, &r) != nil || r.Response.Error == nil || r.Response.Error.Message == nil {
			return e, false
		}
		return StreamError{Message: *r.Response.Error.Message, Code: scalar(r.Response.Error.Code), Type: "response.failed"}, true
	}
	body := v
	nested := false
	if raw, has := v["error"]; has {
		var inner map[string]json.RawMessage
		if json.Unmarshal(raw, &inner) == nil && inner != nil {
			body, nested = inner, true
		}
	}
	var msg *string
	if json.Unmarshal(body["message"], &msg) != nil || msg == nil {
		return e, false
	}
	var errType *string
	_ = json.Unmarshal(body["type"], &errType)
	_, hasCode := body["code"]
	_, hasParam := body["param"]
	if !nested && errType == nil && !hasCode && !hasParam {
		return e, false
	}
	var code any
	_ = json.Unmarshal(body["code"], &code)
	e = StreamError{Message: *msg, Code: scalar(code)}
	if errType != nil {
		e.Type = *errType
	}
	return e, true
}

func scalar(v any) any {
	switch v.(type) {
	case string, float64:
		return v
	}
	return nil
}

var threeDigits = regexp.MustCompile(`^\d{3}$`)

// StatusCode derives an HTTP-like status for an in-stream error: a numeric
// code that looks like an HTTP error status is used as is; otherwise the code
// and type are matched against well-known words (rate limits and quota 429,
// authentication 401, permission 403, not found 404, invalid requests 400,
// overload 503, timeouts 504) and anything else is 500.
func (e StreamError) StatusCode() int {
	switch c := e.Code.(type) {
	case float64:
		if c == float64(int(c)) && c >= 400 && c <= 599 {
			return int(c)
		}
	case string:
		if threeDigits.MatchString(c) {
			if n, _ := strconv.Atoi(c); n >= 400 && n <= 599 {
				return n
			}
		}
	}
	var words []string
	switch c := e.Code.(type) {
	case string:
		words = append(words, c)
	case float64:
		words = append(words, strconv.FormatFloat(c, 'f', -1, 64))
	}
	if e.Type != "" {
		words = append(words, e.Type)
	}
	d := strings.ToLower(strings.Join(words, " "))
	has := func(terms ...string) bool {
		for _, t := range terms {
			if strings.Contains(d, t) {
				return true
			}
		}
		return false
	}
	switch {
	case has("insufficient_quota", "rate_limit"):
		return http.StatusTooManyRequests
	case has("authentication"):
		return http.StatusUnauthorized
	case has("permission"):
		return http.StatusForbidden
	case has("not_found"):
		return http.StatusNotFound
	case has("invalid", "bad_request", "context_length"):
		return http.StatusBadRequest
	case has("overload"):
		return http.StatusServiceUnavailable
	case has("timeout"):
		return http.StatusGatewayTimeout
	}
	return http.StatusInternalServerError
}

// Retryable reports whether the request that produced e is worth sending
// again. An exhausted quota is not, whatever its status.
func (e StreamError) Retryable() bool {
	if e.Code == "insufficient_quota" || e.Type == "insufficient_quota" {
		return false
	}
	return provider.IsRetryableStatus(e.StatusCode())
}

// APIError turns e into an API call error for the request sent to url.
// headers are the stream's response headers and frame the offending frame.
func (e StreamError) APIError(url string, requestBody []byte, headers http.Header, frame []byte) *provider.APICallError {
	return &provider.APICallError{
		Message:         e.Message,
		URL:             url,
		StatusCode:      e.StatusCode(),
		RequestBody:     requestBody,
		ResponseHeaders: provider.Header(headers),
		ResponseBody:    frame,
		Retryable:       e.Retryable(),
	}
}
