package providertest

import (
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"

	"github.com/aisdkgo/ai/provider"
	"github.com/aisdkgo/ai/providers/google"
)

// ---------------------------------------------------------------------------
// Google Gemini API (generateContent, streamGenerateContent?alt=sse)

type googleWire struct{}

const (
	googleModel     = "gemini-2.5-flash"
	googleModelPath = "/v1beta/models/" + googleModel
)

func (googleWire) name() string { return "google" }
func (googleWire) path() string { return googleModelPath + ":generateContent" }

// requestURI: a stream is asked for by the URL, not the body.
func (googleWire) requestURI(stream bool) string {
	if stream {
		return googleModelPath + ":streamGenerateContent?alt=sse"
	}
	return googleModelPath + ":generateContent"
}

func (googleWire) model(srv *httptest.Server) provider.LanguageModel {
	return google.New(google.WithAPIKey("test-key"), google.WithBaseURL(srv.URL+"/v1beta"),
		google.WithHTTPClient(srv.Client())).Model(googleModel)
}

func (googleWire) checkHeaders(h http.Header) error {
	if got := h.Get("X-Goog-Api-Key"); got != "test-key" {
		return fmt.Errorf("x-goog-api-key header %q", got)
	}
	return nil
}

func (googleWire) decode(req *request) error {
	for _, t := range asList(req.body["tools"]) {
		decls, ok := asMap(t)["functionDeclarations"]
		if !ok {
			return fmt.Errorf("unexpected tool %v", t)
		}
		for _, d := range asList(decls) {
			req.tools = append(req.tools, asString(asMap(d)["name"]))
		}
	}
	for _, c := range asList(req.body["contents"]) {
		content := asMap(c)
		for _, p := range asList(content["parts"]) {
			part := asMap(p)
			if fc := asMap(part["functionCall"]); fc != nil {
				if content["role"] != "model" {
					return fmt.Errorf("a function call in a %v turn", content["role"])
				}
				req.calls = append(req.calls, wireCall{id: asString(fc["id"]), name: asString(fc["name"]), args: mustJSON(fc["args"])})
			}
			if fr := asMap(part["functionResponse"]); fr != nil {
				if content["role"] != "user" {
					return fmt.Errorf("a function response in a %v turn", content["role"])
				}
				resp := asMap(fr["response"])
				out := wireOutput{callID: asString(fr["id"]), content: textOf(resp["content"])}
				if e, ok := resp["error"]; ok {
					out = wireOutput{callID: asString(fr["id"]), content: textOf(e), isError: true}
				}
				req.outputs = append(req.outputs, out)
			}
		}
	}
	return nil
}

func (googleWire) callID(n int) string { return fmt.Sprintf("fc_%03d", n) }

func googleUsage(t turn) map[string]any {
	return map[string]any{"promptTokenCount": t.input, "candidatesTokenCount": t.output, "totalTokenCount": t.input + t.output,
		"promptTokensDetails": []any{map[string]any{"modality": "TEXT", "tokenCount": t.input}}}
}

// chunk is one response object: parts, an optional finish reason and
// usage.
func (googleWire) chunk(id string, parts []any, finish string, usage any) map[string]any {
	cand := map[string]any{"content": map[string]any{"role": "model", "parts": parts}, "index": 0}
	if finish != "" {
		cand["finishReason"] = finish
	}
	c := map[string]any{"candidates": []any{cand}, "modelVersion": googleModel, "responseId": id}
	if usage != nil {
		c["usageMetadata"] = usage
	}
	return c
}

func googleCalls(calls []wireCall) []any {
	var parts []any
	for _, c := range calls {
		parts = append(parts, map[string]any{"functionCall": map[string]any{"id": c.id, "name": c.name, "args": rawJSON(c.args)}})
	}
	return parts
}

func (w googleWire) respond(stream bool, t turn) reply {
	if !stream {
		var parts []any
		if t.text != "" {
			parts = append(parts, map[string]any{"text": t.text})
		}
		parts = append(parts, googleCalls(t.calls)...)
		return jsonReply(mustJSON(w.chunk(t.id, parts, "STOP", googleUsage(t))))
	}
	var events []event
	for _, d := range split(t.text) {
		if d != "" {
			events = append(events, event{data: mustJSON(w.chunk(t.id, []any{map[string]any{"text": d}}, "", nil))})
		}
	}
	// Function-call arguments are streamed: a chunk opens the call, each
	// argument arrives as partialArgs (strings in two pieces), and an empty
	// function call closes it.
	for _, c := range t.calls {
		events = append(events, event{data: mustJSON(w.chunk(t.id, []any{map[string]any{"functionCall": map[string]any{
			"id": c.id, "name": c.name, "willContinue": true}}}, "", nil))})
		var args map[string]any
		if err := json.Unmarshal([]byte(c.args), &args); err != nil {
			panic(err)
		}
		keys := slices.Sorted(maps.Keys(args))
		for _, k := range keys {
			var pieces []map[string]any
			if v, ok := args[k].(string); ok {
				parts := split(v)
				for i, piece := range parts {
					pa := map[string]any{"jsonPath": "$." + k, "stringValue": piece}
					if i < len(parts)-1 {
						pa["willContinue"] = true
					}
					pieces = append(pieces, pa)
				}
			} else {
				pieces = append(pieces, map[string]any{"jsonPath": "$." + k, "numberValue": args[k]})
			}
			for _, pa := range pieces {
				events = append(events, event{data: mustJSON(w.chunk(t.id, []any{map[string]any{"functionCall": map[string]any{
					"partialArgs": []any{pa}, "willContinue": true}}}, "", nil))})
			}
		}
		events = append(events, event{data: mustJSON(w.chunk(t.id, []any{map[string]any{"functionCall": map[string]any{}}}, "", nil))})
	}
	events = append(events, event{data: mustJSON(w.chunk(t.id, []any{map[string]any{"text": ""}}, "STOP", googleUsage(t)))})
	return reply{events: events}
}

// cutDuringCall breaks the stream after the first piece of the arguments.
func (googleWire) cutDuringCall(events []event) []event {
	for i, ev := range events {
		if strings.Contains(ev.data, "partialArgs") {
			return events[:i+1]
		}
	}
	panic("no streamed arguments")
}

func (w googleWire) partial(id, text string) []event {
	return []event{{data: mustJSON(w.chunk(id, []any{map[string]any{"text": text}}, "", nil))}}
}

func (googleWire) streamError(message string) []event {
	return []event{{data: mustJSON(map[string]any{"error": map[string]any{"code": 500, "message": message, "status": "INTERNAL"}})}}
}

func (googleWire) earlyError(retryable bool, message string) reply {
	e := map[string]any{"code": 400, "message": message, "status": "INVALID_ARGUMENT"}
	if retryable {
		e = map[string]any{"code": 503, "message": message, "status": "UNAVAILABLE"}
	}
	return reply{events: []event{{data: mustJSON(map[string]any{"error": e})}}}
}

func (googleWire) earlyErrorStatus(retryable bool) int {
	if retryable {
		return http.StatusServiceUnavailable
	}
	return http.StatusBadRequest
}

// googleStatus names the RPC status Google reports with an HTTP status.
func googleStatus(status int) string {
	switch status {
	case 400:
		return "INVALID_ARGUMENT"
	case 401:
		return "UNAUTHENTICATED"
	case 403:
		return "PERMISSION_DENIED"
	case 404:
		return "NOT_FOUND"
	case 429:
		return "RESOURCE_EXHAUSTED"
	case 500:
		return "INTERNAL"
	case 503:
		return "UNAVAILABLE"
	case 504:
		return "DEADLINE_EXCEEDED"
	}
	return "UNKNOWN"
}

func (googleWire) errorBody(status int, message string) string {
	return mustJSON(map[string]any{"error": map[string]any{"code": status, "message": message, "status": googleStatus(status)}})
}
