package providertest

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"reflect"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/aisdkgo/ai/provider"
)

// tsRequests holds the request bodies the TypeScript providers
// (@ai-sdk/openai 4.0.118, @ai-sdk/anthropic 4.0.105,
// @ai-sdk/openai-compatible 3.0.92) sent for the calls of requestCases,
// keyed by protocol and then by "<case>/<generate|stream>". They were
// recorded against a local server with the same model ids as the wires use.
const tsRequests = "testdata/ts-requests.json"

var weatherSchema = json.RawMessage(`{"type":"object","properties":{"city":{"type":"string"}},"required":["city"],"additionalProperties":false}`)

func weatherTool(name string, strict *bool, po provider.ProviderOptions) *provider.FunctionTool {
	return &provider.FunctionTool{Name: name, Description: "Get the weather.", InputSchema: weatherSchema, Strict: strict, ProviderOptions: po}
}

func userSays(text string) provider.UserMessage {
	return provider.UserMessage{Content: []provider.UserPart{provider.TextPart{Text: text}}}
}

func weatherCall(id, input string) provider.ToolCallPart {
	return provider.ToolCallPart{ToolCallID: id, ToolName: "weather", Input: json.RawMessage(input)}
}

func weatherResult(id string, out provider.ToolResultOutput) provider.ToolResultPart {
	return provider.ToolResultPart{ToolCallID: id, ToolName: "weather", Output: out}
}

// toolRoundTrip answers six calls with a result of every output kind. The
// JSON output is given with whitespace and characters that json.Marshal
// would escape, to check that it is sent as compact JSON, byte for byte.
func toolRoundTrip(tools ...provider.Tool) *provider.CallOptions {
	outputs := []provider.ToolResultOutput{
		provider.TextOutput{Value: "Sunny, 21 degrees."},
		provider.JSONOutput{Value: json.RawMessage(`{ "temperature": 21, "unit": "C",
			"tags": [ "sunny", "dry" ], "note": "<b>&</b>" }`)},
		provider.ErrorTextOutput{Value: "The weather service is down."},
		provider.ErrorJSONOutput{Value: json.RawMessage(`{"code": 503, "message": "unavailable"}`)},
		provider.ExecutionDeniedOutput{Reason: "The user said no."},
		provider.ContentOutput{Value: []provider.ContentOutputPart{provider.TextPart{Text: "Part one."}, provider.TextPart{Text: "Part two."}}},
	}
	assistant := provider.AssistantMessage{Content: []provider.AssistantPart{provider.TextPart{Text: "Checking."}}}
	var results []provider.ToolPart
	for i, out := range outputs {
		id := fmt.Sprintf("call_%d", i+1)
		assistant.Content = append(assistant.Content, weatherCall(id, fmt.Sprintf(`{"city":"City %d"}`, i+1)))
		results = append(results, weatherResult(id, out))
	}
	return &provider.CallOptions{
		Prompt: []provider.Message{
			provider.SystemMessage{Content: "You are terse."},
			userSays("Weather in six cities?"),
			assistant,
			provider.ToolMessage{Content: results},
		},
		Tools:      tools,
		ToolChoice: provider.ToolChoice{Type: provider.ToolChoiceAuto},
	}
}

var outputSchema = map[string]any{"type": "object", "properties": map[string]any{"temperature": map[string]any{"type": "number"}},
	"required": []any{"temperature"}, "additionalProperties": false}

// requestCases are the calls whose request bodies must match the recorded
// ones. Cases named only for some protocols are keyed "<protocol>:<case>".
func requestCases() map[string]*provider.CallOptions {
	one := func(choice provider.ToolChoice) *provider.CallOptions {
		return &provider.CallOptions{Prompt: []provider.Message{userSays("Weather in Paris?")},
			Tools: []provider.Tool{weatherTool("weather", nil, nil)}, ToolChoice: choice}
	}
	return map[string]*provider.CallOptions{
		"text": {Prompt: []provider.Message{provider.SystemMessage{Content: "You are terse."}, userSays("Hello")}},
		"settings": {
			Prompt: []provider.Message{userSays("Hello")}, Temperature: new(0.5), TopP: new(0.9), MaxOutputTokens: new(100),
			StopSequences: []string{"STOP"}, Seed: new(7), PresencePenalty: new(0.1), FrequencyPenalty: new(0.2),
		},
		"tools-strict": {
			Prompt: []provider.Message{userSays("Weather in Paris?")},
			Tools: []provider.Tool{
				weatherTool("weather", nil, nil),
				weatherTool("weather_strict", new(true), nil),
				weatherTool("weather_loose", new(false), nil),
				&provider.FunctionTool{Name: "now", InputSchema: json.RawMessage(`{"type":"object","properties":{}}`)},
			},
			ToolChoice: provider.ToolChoice{Type: provider.ToolChoiceAuto},
		},
		"tool-choice-required": one(provider.ToolChoice{Type: provider.ToolChoiceRequired}),
		"tool-choice-none":     one(provider.ToolChoice{Type: provider.ToolChoiceNone}),
		"tool-choice-tool":     one(provider.ToolChoice{Type: provider.ToolChoiceTool, ToolName: "weather"}),
		"history": {Prompt: []provider.Message{
			provider.SystemMessage{Content: "You are terse."},
			userSays("Hi"),
			provider.AssistantMessage{Content: []provider.AssistantPart{provider.TextPart{Text: "Hello!"}}},
			userSays("Tell me a joke."),
			provider.AssistantMessage{Content: []provider.AssistantPart{provider.TextPart{Text: "Why did"}, provider.TextPart{Text: " the chicken..."}}},
			userSays("Go on."),
		}},
		"tool-results": toolRoundTrip(weatherTool("weather", nil, nil)),
		"tool-call-only": {
			Prompt: []provider.Message{
				userSays("Weather in Paris?"),
				provider.AssistantMessage{Content: []provider.AssistantPart{weatherCall("call_1", `{"city":"Paris"}`)}},
				provider.ToolMessage{Content: []provider.ToolPart{weatherResult("call_1", provider.TextOutput{Value: "Rain."})}},
			},
			Tools:      []provider.Tool{weatherTool("weather", nil, nil)},
			ToolChoice: provider.ToolChoice{Type: provider.ToolChoiceAuto},
		},
		"json-schema": {Prompt: []provider.Message{userSays("A number.")}, ResponseFormat: &provider.ResponseFormat{Type: "json",
			Schema: json.RawMessage(`{"type":"object","properties":{"n":{"type":"number"}},"required":["n"],"additionalProperties":false}`),
			Name:   "number", Description: "A number."}},
		"json-no-schema": {Prompt: []provider.Message{userSays("A number.")}, ResponseFormat: &provider.ResponseFormat{Type: "json"}},

		"openai-responses:tool-options": {
			Prompt: []provider.Message{userSays("Weather in Paris?")},
			Tools: []provider.Tool{weatherTool("weather", nil, provider.ProviderOptions{"openai": {
				"outputSchema": outputSchema, "allowedCallers": []any{"direct", "programmatic"}}})},
			ToolChoice: provider.ToolChoice{Type: provider.ToolChoiceAuto},
		},
		"openai-responses:tool-options-results": toolRoundTrip(weatherTool("weather", nil, provider.ProviderOptions{"openai": {"outputSchema": outputSchema}})),
		"openai-responses:reasoning":            {Prompt: []provider.Message{userSays("Think.")}, Reasoning: provider.ReasoningLow},
	}
}

// TestRequestsMatchTypeScript sends the calls of requestCases through each
// provider and compares the request bodies, as JSON values, with the bodies
// the TypeScript providers sent for the same calls.
func TestRequestsMatchTypeScript(t *testing.T) {
	raw, err := os.ReadFile(tsRequests)
	require.NoError(t, err)
	var recorded map[string]map[string]json.RawMessage
	require.NoError(t, json.Unmarshal(raw, &recorded))
	cases := requestCases()
	for _, w := range wires() {
		bodies := recorded[w.name()]
		if bodies == nil {
			continue // no recording for this protocol
		}
		keys := make([]string, 0, len(bodies))
		for k := range bodies {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, key := range keys {
			name, mode, _ := strings.Cut(key, "/")
			t.Run(w.name()+"/"+key, func(t *testing.T) {
				t.Parallel()
				opts := cases[w.name()+":"+name]
				if opts == nil {
					opts = cases[name]
				}
				require.NotNil(t, opts, "no Go call for the recorded case %q", name)
				stream := mode == "stream"
				srv := newServer(t, w, replies(w.respond(stream, turn{id: "resp_1", text: "ok", input: 1, output: 1})))
				ctx, cancel := context.WithTimeout(t.Context(), testTimeout)
				defer cancel()
				call(ctx, t, w.model(srv.Server), stream, opts)
				require.Equal(t, 1, srv.count(), "requests")
				var want any
				require.NoError(t, json.Unmarshal(bodies[key], &want))
				for _, d := range jsonDiff("", want, srv.reqs[0].body) {
					t.Error(d)
				}
			})
		}
	}
}

// jsonDiff lists the differences between two decoded JSON values, each as
// the path where they differ and both values there.
func jsonDiff(path string, want, got any) []string {
	switch w := want.(type) {
	case map[string]any:
		g, ok := got.(map[string]any)
		if !ok {
			break
		}
		var out []string
		keys := map[string]bool{}
		for k := range w {
			keys[k] = true
		}
		for k := range g {
			keys[k] = true
		}
		names := make([]string, 0, len(keys))
		for k := range keys {
			names = append(names, k)
		}
		sort.Strings(names)
		for _, k := range names {
			wv, inW := w[k]
			gv, inG := g[k]
			switch {
			case !inW:
				out = append(out, fmt.Sprintf("%s.%s: unexpected %s", path, k, mustJSON(gv)))
			case !inG:
				out = append(out, fmt.Sprintf("%s.%s: missing, want %s", path, k, mustJSON(wv)))
			default:
				out = append(out, jsonDiff(path+"."+k, wv, gv)...)
			}
		}
		return out
	case []any:
		g, ok := got.([]any)
		if !ok || len(g) != len(w) {
			break
		}
		var out []string
		for i := range w {
			out = append(out, jsonDiff(fmt.Sprintf("%s[%d]", path, i), w[i], g[i])...)
		}
		return out
	default:
		if reflect.DeepEqual(want, got) {
			return nil
		}
	}
	if reflect.DeepEqual(want, got) {
		return nil
	}
	return []string{fmt.Sprintf("%s: got %s, want %s", path, mustJSON(got), mustJSON(want))}
}

// testTimeout bounds a test's calls; it is far above what any call needs
// and only stops a hung test.
const testTimeout = 10 * time.Second

// call runs one model call and reads its stream to the end.
func call(ctx context.Context, t *testing.T, m provider.LanguageModel, stream bool, opts *provider.CallOptions) {
	t.Helper()
	if !stream {
		_, err := m.Generate(ctx, opts)
		require.NoError(t, err)
		return
	}
	res, err := m.Stream(ctx, opts)
	require.NoError(t, err)
	for _, err := range res.Stream {
		require.NoError(t, err)
	}
}
