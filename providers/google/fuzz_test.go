package google

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/aisdkgo/ai/provider"
)

// bodyTransport answers every request with a 200 event stream of body.
type bodyTransport struct{ body []byte }

func (b bodyTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	return &http.Response{
		StatusCode: 200,
		Header:     http.Header{"Content-Type": {"text/event-stream"}},
		Body:       io.NopCloser(bytes.NewReader(b.body)),
		Request:    r,
	}, nil
}

// FuzzStream feeds arbitrary bytes to Stream as the body of a successful
// response. It must not panic or hang; a stream that starts begins with
// stream-start, ends with a finish part unless it ends with an error, and
// keeps text and reasoning deltas inside their blocks. An odd first byte
// turns on the JSON response tool.
func FuzzStream(f *testing.F) {
	ev := func(chunks ...string) []byte { return []byte(sseOf(chunks...)) }
	f.Add(ev(`{"candidates":[{"content":{"parts":[{"text":"Hi"}]}}],"responseId":"r"}`,
		`{"candidates":[{"content":{"parts":[{"text":"","thoughtSignature":"s"}]},"finishReason":"STOP"}],"usageMetadata":{"promptTokenCount":3}}`))
	f.Add(ev(`{"candidates":[{"content":{"parts":[{"text":"t","thought":true},{"functionCall":{"name":"f","args":{"a":1}},"thoughtSignature":"s"}]},"finishReason":"STOP"}]}`))
	f.Add(ev(`{"candidates":[{"content":{"parts":[{"functionCall":{"name":"f","willContinue":true}}]}}]}`,
		`{"candidates":[{"content":{"parts":[{"functionCall":{"partialArgs":[{"jsonPath":"$.a[0].b","stringValue":"x","willContinue":true}],"willContinue":true}}]}}]}`,
		`{"candidates":[{"content":{"parts":[{"functionCall":{"partialArgs":[{"jsonPath":"$.a[0].b","stringValue":"y"},{"jsonPath":"$.c","numberValue":2}],"willContinue":true}}]}}]}`,
		`{"candidates":[{"content":{"parts":[{"functionCall":{}}]},"finishReason":"STOP"}]}`))
	f.Add(ev(`{"candidates":[{"content":{"parts":[{"executableCode":{"language":"PYTHON","code":"1"}},{"codeExecutionResult":{"outcome":"OUTCOME_OK"}},` +
		`{"toolCall":{"toolType":"T","id":"i"}},{"toolResponse":{"toolType":"T","id":"i"}},{"inlineData":{"mimeType":"image/png","data":"AA=="}}]},` +
		`"groundingMetadata":{"groundingChunks":[{"web":{"uri":"u"}},{"retrievedContext":{"uri":"gs://a/b.pdf"}}]}}]}`))
	f.Add(ev(`{"promptFeedback":{"blockReason":"SAFETY"}}`))
	f.Add(ev(`{"error":{"code":500,"message":"m","status":"INTERNAL"}}`))
	f.Add(ev(`{"candidates":[{"content":{"parts":[{"text":"a"}]}}]}`, `{"error":{"message":"m","status":"UNAVAILABLE"}}`, `{"candidates":[`))
	f.Add([]byte("data: [DONE]\r\n\r\n: comment\rdata: {}\n"))
	f.Fuzz(func(t *testing.T, body []byte) { checkStream(t, body) })
}

func checkStream(t testing.TB, body []byte) {
	p := New(WithAPIKey("k"), WithHTTPClient(&http.Client{Transport: bodyTransport{body}}))
	opts := &provider.CallOptions{Prompt: userPrompt("hi"), IncludeRawChunks: true,
		Tools: []provider.Tool{&provider.FunctionTool{Name: "f", InputSchema: json.RawMessage(`{"type":"object"}`)}}}
	if len(body) > 0 && body[0]%2 == 1 {
		opts.ResponseFormat = &provider.ResponseFormat{Type: "json", Schema: json.RawMessage(`{"type":"object"}`)}
	}
	res, err := p.Model("gemini-2.5-flash").Stream(context.Background(), opts)
	if err != nil {
		return
	}
	var parts []provider.StreamPart
	var streamErr error
	for p, err := range res.Stream {
		if err != nil {
			streamErr = err
			break
		}
		parts = append(parts, p)
	}
	if _, ok := parts[0].(provider.StreamStart); !ok {
		t.Fatalf("first part is %s", parts[0].PartType())
	}
	if streamErr == nil {
		if _, ok := parts[len(parts)-1].(provider.Finish); !ok {
			t.Fatalf("last part is %s", parts[len(parts)-1].PartType())
		}
	}
	open := map[string]string{}
	for _, p := range parts {
		switch p := p.(type) {
		case provider.TextStart:
			open[p.ID] = "text"
		case provider.ReasoningStart:
			open[p.ID] = "reasoning"
		case provider.TextDelta:
			if open[p.ID] != "text" {
				t.Fatalf("text delta outside a text block %q", p.ID)
			}
		case provider.ReasoningDelta:
			if open[p.ID] != "reasoning" {
				t.Fatalf("reasoning delta outside a reasoning block %q", p.ID)
			}
		case provider.TextEnd:
			if open[p.ID] != "text" {
				t.Fatalf("text end without start %q", p.ID)
			}
			delete(open, p.ID)
		case provider.ReasoningEnd:
			if open[p.ID] != "reasoning" {
				t.Fatalf("reasoning end without start %q", p.ID)
			}
			delete(open, p.ID)
		case provider.ToolResult:
			if !json.Valid(p.Result) {
				t.Fatalf("tool result %q is not JSON", p.Result)
			}
		}
	}
	if len(open) > 0 && streamErr == nil {
		t.Fatalf("blocks left open: %v", open)
	}
}

// FuzzArgs feeds arbitrary partialArgs to the argument builder: the
// arguments it reports are always a JSON object, and when every delta was
// a prefix of them the deltas add up to them.
func FuzzArgs(f *testing.F) {
	f.Add(`[{"jsonPath":"$.location","stringValue":"Bos","willContinue":true}]`, `[{"jsonPath":"$.location","stringValue":"ton"}]`)
	f.Add(`[{"jsonPath":"$.a[0].b","numberValue":1},{"jsonPath":"$.a[1].b","boolValue":true}]`, `[{"jsonPath":"$.c[]"},{"jsonPath":"$.d","nullValue":null}]`)
	f.Add(`[{"jsonPath":"$.a.b.c","stringValue":"x"}]`, `[{"jsonPath":"$.a","stringValue":"y"},{"jsonPath":"$.a[5]","numberValue":1}]`)
	f.Add(`[{"jsonPath":"$.__proto__.x","stringValue":"<&>"}]`, `[{"jsonPath":"$","stringValue":"z"},{"jsonPath":"$.e[0]"}]`)
	f.Fuzz(func(t *testing.T, first, second string) {
		b := newArgsBuilder()
		text := ""
		for _, piece := range []string{first, second} {
			var args []partialArg
			if json.Unmarshal([]byte(piece), &args) != nil {
				continue
			}
			d, err := b.add(args)
			if err != nil {
				return
			}
			text += d
		}
		final, closing := b.finish()
		var v map[string]any
		if err := json.Unmarshal([]byte(final), &v); err != nil {
			t.Fatalf("arguments %q are not a JSON object: %v", final, err)
		}
		if strings.HasPrefix(final, text) && text+closing != final {
			t.Fatalf("deltas %q + %q do not add up to %q", text, closing, final)
		}
	})
}

func TestArgsBuilder(t *testing.T) {
	for _, tc := range []struct {
		pieces []string
		want   string
	}{
		{[]string{`[{"jsonPath":"$.location","stringValue":"Bos","willContinue":true}]`, `[{"jsonPath":"$.location","stringValue":"ton"}]`}, `{"location":"Boston"}`},
		{[]string{`[{"jsonPath":"$.brightness","numberValue":50},{"jsonPath":"$.on","boolValue":true},{"jsonPath":"$.x","nullValue":null}]`}, `{"brightness":50,"on":true,"x":null}`},
		{[]string{`[{"jsonPath":"$.items[0].name","stringValue":"a"},{"jsonPath":"$.items[1].name","stringValue":"b"}]`}, `{"items":[{"name":"a"},{"name":"b"}]}`},
		{[]string{`[{"jsonPath":"$.tags[]"}]`, `[{"jsonPath":"$.meta"}]`}, `{"tags":[],"meta":{}}`},
		{[]string{`[{"jsonPath":"$.items[0]","stringValue":"a"},{"jsonPath":"$.items[7]","stringValue":"far"}]`}, `{"items":["a"]}`},
		{[]string{`[{"jsonPath":"$.s","stringValue":"<a href=\"x\">"}]`}, `{"s":"<a href=\"x\">"}`},
	} {
		b := newArgsBuilder()
		text := ""
		for _, piece := range tc.pieces {
			var args []partialArg
			if err := json.Unmarshal([]byte(piece), &args); err != nil {
				t.Fatal(err)
			}
			d, err := b.add(args)
			if err != nil {
				t.Fatal(err)
			}
			text += d
		}
		final, closing := b.finish()
		if final != tc.want {
			t.Errorf("%v: got %s, want %s", tc.pieces, final, tc.want)
		}
		if text+closing != final {
			t.Errorf("%v: deltas %q + %q, want %q", tc.pieces, text, closing, final)
		}
	}
}
