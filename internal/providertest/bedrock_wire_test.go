package providertest

import (
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"net/http"
	"net/http/httptest"
	"strings"

	"github.com/aws/aws-sdk-go-v2/credentials"

	"github.com/aisdkgo/ai/internal/eventstream"
	"github.com/aisdkgo/ai/provider"
	"github.com/aisdkgo/ai/providers/bedrock"
)

// bedrockModel is the model the Bedrock rows call.
const bedrockModel = "amazon.nova-pro-v1"

// bedrockWire renders answers of the Converse and ConverseStream APIs.
type bedrockWire struct{}

func (bedrockWire) name() string { return "bedrock" }
func (bedrockWire) path() string { return "/model/" + bedrockModel + "/converse" }

// requestURI tells streaming requests by their path.
func (bedrockWire) requestURI(stream bool) string {
	if stream {
		return "/model/" + bedrockModel + "/converse-stream"
	}
	return "/model/" + bedrockModel + "/converse"
}

func (bedrockWire) model(srv *httptest.Server) provider.LanguageModel {
	return bedrock.New(bedrock.WithBaseURL(srv.URL), bedrock.WithRegion("us-east-1"), bedrock.WithHTTPClient(srv.Client()),
		bedrock.WithCredentials(credentials.NewStaticCredentialsProvider("AKIDTEST", "secret", ""))).Model(bedrockModel)
}

func (bedrockWire) checkHeaders(h http.Header) error {
	if got := h.Get("Authorization"); !strings.HasPrefix(got, "AWS4-HMAC-SHA256 Credential=AKIDTEST/") {
		return fmt.Errorf("authorization header %q", got)
	}
	return nil
}

func (bedrockWire) decode(req *request) error {
	if tc := asMap(req.body["toolConfig"]); tc != nil {
		for _, t := range asList(tc["tools"]) {
			req.tools = append(req.tools, asString(asMap(asMap(t)["toolSpec"])["name"]))
		}
	}
	for _, m := range asList(req.body["messages"]) {
		for _, b := range asList(asMap(m)["content"]) {
			block := asMap(b)
			if tu := asMap(block["toolUse"]); tu != nil {
				req.calls = append(req.calls, wireCall{id: asString(tu["toolUseId"]), name: asString(tu["name"]), args: mustJSON(tu["input"])})
			}
			if tr := asMap(block["toolResult"]); tr != nil {
				req.outputs = append(req.outputs, wireOutput{callID: asString(tr["toolUseId"]), content: textOf(tr["content"]),
					isError: tr["status"] == "error"})
			}
		}
	}
	return nil
}

func (bedrockWire) callID(n int) string { return fmt.Sprintf("tooluse_%03d", n) }

func (bedrockWire) respond(stream bool, t turn) reply {
	usage := map[string]any{"inputTokens": t.input, "outputTokens": t.output, "totalTokens": t.input + t.output}
	stop := "end_turn"
	if len(t.calls) > 0 {
		stop = "tool_use"
	}
	if !stream {
		content := []any{}
		if t.text != "" {
			content = append(content, map[string]any{"text": t.text})
		}
		for _, c := range t.calls {
			content = append(content, map[string]any{"toolUse": map[string]any{"toolUseId": c.id, "name": c.name, "input": rawJSON(c.args)}})
		}
		rp := jsonReply(mustJSON(map[string]any{
			"output":     map[string]any{"message": map[string]any{"role": "assistant", "content": content}},
			"stopReason": stop, "usage": usage, "metrics": map[string]any{"latencyMs": 10},
		}))
		rp.header = requestID(t.id)
		return rp
	}
	events := []event{{name: "messageStart", data: `{"role":"assistant"}`}}
	index := 0
	if t.text != "" {
		for _, d := range split(t.text) {
			events = append(events, event{name: "contentBlockDelta", data: mustJSON(map[string]any{"contentBlockIndex": index, "delta": map[string]any{"text": d}})})
		}
		events = append(events, event{name: "contentBlockStop", data: mustJSON(map[string]any{"contentBlockIndex": index})})
		index++
	}
	for _, c := range t.calls {
		events = append(events, event{name: "contentBlockStart", data: mustJSON(map[string]any{"contentBlockIndex": index,
			"start": map[string]any{"toolUse": map[string]any{"toolUseId": c.id, "name": c.name}}})})
		for _, d := range split(c.args) {
			events = append(events, event{name: "contentBlockDelta", data: mustJSON(map[string]any{"contentBlockIndex": index,
				"delta": map[string]any{"toolUse": map[string]any{"input": d}}})})
		}
		events = append(events, event{name: "contentBlockStop", data: mustJSON(map[string]any{"contentBlockIndex": index})})
		index++
	}
	events = append(events,
		event{name: "messageStop", data: mustJSON(map[string]any{"stopReason": stop})},
		event{name: "metadata", data: mustJSON(map[string]any{"usage": usage, "metrics": map[string]any{"latencyMs": 10}})})
	return reply{events: events, header: requestID(t.id)}
}

// requestID is the header by which Bedrock identifies a response.
func requestID(id string) http.Header { return http.Header{"X-Amzn-Requestid": {id}} }

func (bedrockWire) partial(_, text string) []event {
	return []event{
		{name: "messageStart", data: `{"role":"assistant"}`},
		{name: "contentBlockDelta", data: mustJSON(map[string]any{"contentBlockIndex": 0, "delta": map[string]any{"text": text}})},
	}
}

func (bedrockWire) streamError(message string) []event {
	return []event{{name: "exception:internalServerException", data: mustJSON(map[string]any{"message": message})}}
}

func (bedrockWire) earlyError(retryable bool, message string) reply {
	kind := "validationException"
	if retryable {
		kind = "serviceUnavailableException"
	}
	return reply{events: []event{{name: "exception:" + kind, data: mustJSON(map[string]any{"message": message})}}}
}

func (bedrockWire) earlyErrorStatus(retryable bool) int {
	if retryable {
		return http.StatusServiceUnavailable
	}
	return http.StatusBadRequest
}

func (bedrockWire) errorBody(_ int, message string) string {
	return mustJSON(map[string]any{"message": message})
}

// framing makes the test server send this wire's streams as AWS event
// streams.
func (bedrockWire) framing() *binaryFraming { return bedrockFraming() }

// bedrockFraming is the AWS event-stream framing; an event named
// "exception:<type>" is an exception message.
func bedrockFraming() *binaryFraming {
	long := make([]byte, 12)
	binary.BigEndian.PutUint32(long, longLine)
	binary.BigEndian.PutUint32(long[4:], 0)
	binary.BigEndian.PutUint32(long[8:], crc32.ChecksumIEEE(long[:8]))
	return &binaryFraming{
		contentType: "application/vnd.amazon.eventstream",
		encode: func(ev event) []byte {
			if kind, ok := strings.CutPrefix(ev.name, "exception:"); ok {
				return eventstream.Exception(kind, []byte(ev.data))
			}
			return eventstream.Event(ev.name, []byte(ev.data))
		},
		longStart: long,
	}
}
