package providertest

import (
	"encoding/binary"
	"hash/crc32"
	"strings"

	"github.com/aisdkgo/ai/internal/eventstream"
)

// bedrockModel is the model the Bedrock rows call.
const bedrockModel = "amazon.nova-pro-v1"

// bedrockWire renders answers of the Converse and ConverseStream APIs.
type bedrockWire struct{}

func (bedrockWire) respond(stream bool, t turn) reply {
	usage := map[string]any{"inputTokens": t.input, "outputTokens": t.output, "totalTokens": t.input + t.output}
	if !stream {
		return jsonReply(mustJSON(map[string]any{
			"output":     map[string]any{"message": map[string]any{"role": "assistant", "content": []any{map[string]any{"text": t.text}}}},
			"stopReason": "end_turn", "usage": usage, "metrics": map[string]any{"latencyMs": 10},
		}))
	}
	events := []event{{name: "messageStart", data: `{"role":"assistant"}`}}
	for _, d := range split(t.text) {
		events = append(events, event{name: "contentBlockDelta", data: mustJSON(map[string]any{"contentBlockIndex": 0, "delta": map[string]any{"text": d}})})
	}
	events = append(events,
		event{name: "contentBlockStop", data: `{"contentBlockIndex":0}`},
		event{name: "messageStop", data: `{"stopReason":"end_turn"}`},
		event{name: "metadata", data: mustJSON(map[string]any{"usage": usage, "metrics": map[string]any{"latencyMs": 10}})})
	return reply{events: events}
}

func (bedrockWire) partial(_, text string) []event {
	return []event{
		{name: "messageStart", data: `{"role":"assistant"}`},
		{name: "contentBlockDelta", data: mustJSON(map[string]any{"contentBlockIndex": 0, "delta": map[string]any{"text": text}})},
	}
}

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
