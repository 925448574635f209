package uistream_test

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/aisdkgo/ai"
	"github.com/aisdkgo/ai/uistream"
)

// convertCase is a recorded conversion: UI messages in, model messages
// out.
type convertCase struct {
	Description string          `json:"description"`
	Options     json.RawMessage `json:"options"`
	Input       json.RawMessage `json:"input"`
	Output      json.RawMessage `json:"output"`
}

type urlIn struct {
	URL string `json:"url"`
}

type shotOut struct {
	Base64 string `json:"base64"`
	Width  int    `json:"width"`
	Height int    `json:"height"`
}

// convertOptions returns the options of each recorded conversion.
func convertOptions(t *testing.T) map[string]*uistream.ConvertOptions {
	var deleted []string
	var mu sync.Mutex
	screenshot := ai.NewTool(ai.ToolDef[urlIn, shotOut]{
		Description: "Take a screenshot",
		Execute: func(context.Context, urlIn, ai.ToolExecutionOptions) (shotOut, error) {
			return shotOut{"iVBORw0KGgo=", 1, 1}, nil
		},
	})
	echo := ai.NewTool(ai.ToolDef[struct {
		Text string `json:"text"`
	}, string]{Description: "Echo"})
	// What the screenshot tool's model-output mapping does with a stored
	// result.
	shotOutput := func(_ context.Context, r uistream.StoredResult) (ai.ToolResultOutput, error) {
		if r.ToolName != "screenshot" {
			return nil, nil
		}
		var out shotOut
		if err := json.Unmarshal(r.Output, &out); err != nil {
			return nil, err
		}
		png, err := base64.StdEncoding.DecodeString(out.Base64)
		if err != nil {
			return nil, err
		}
		return ai.ContentOutput{Value: []ai.ContentOutputPart{
			ai.TextPart{Text: fmt.Sprintf("Screenshot %dx%d", out.Width, out.Height)},
			ai.FilePart{Data: ai.FileBytes{Data: png}, MediaType: "image/png"},
		}}, nil
	}
	weather := ai.Tools{{Name: "getWeather", Tool: weatherTool(false)}}
	return map[string]*uistream.ConvertOptions{
		"convert-basic": {ConvertDataPart: func(p uistream.DataPart) ai.UserPart {
			if p.Name != "context" {
				return nil
			}
			return ai.TextPart{Text: "Context: " + string(p.Data)}
		}},
		"convert-tool-search-run":               {Tools: toolSearchTools()},
		"convert-tool-errors":                   {Tools: weather},
		"convert-approval-responded":            {Tools: deleteTools(&deleted, &mu)},
		"convert-approval-final-and-superseded": {Tools: deleteTools(&deleted, &mu)},
		"convert-to-model-output": {
			Tools:         ai.Tools{{Name: "screenshot", Tool: screenshot}, {Name: "echo", Tool: echo}},
			ToModelOutput: shotOutput,
		},
		"convert-incomplete-tool-calls":         {Tools: weather},
		"convert-incomplete-tool-calls-ignored": {Tools: weather, IgnoreIncompleteToolCalls: true},
	}
}

func TestRecordedConversions(t *testing.T) {
	names, err := filepath.Glob("testdata/oracle/*.convert.json")
	if err != nil {
		t.Fatal(err)
	}
	if len(names) == 0 {
		t.Fatal("no recordings")
	}
	all := convertOptions(t)
	for _, file := range names {
		name := strings.TrimSuffix(filepath.Base(file), ".convert.json")
		t.Run(name, func(t *testing.T) {
			opts, ok := all[name]
			if !ok {
				t.Fatalf("no options for the recording %s", name)
			}
			var c convertCase
			if err := json.Unmarshal(readFile(t, name+".convert.json"), &c); err != nil {
				t.Fatal(err)
			}
			msgs, err := uistream.UnmarshalMessages(c.Input)
			if err != nil {
				t.Fatalf("decoding the input: %v", err)
			}
			out, err := uistream.ConvertMessages(context.Background(), msgs, opts)
			if err != nil {
				t.Fatal(err)
			}
			got, err := json.Marshal(out)
			if err != nil {
				t.Fatal(err)
			}
			// The recorded output goes through the same model message
			// types, which gives both sides one JSON form.
			want, err := ai.UnmarshalMessages(c.Output)
			if err != nil {
				t.Fatalf("decoding the recorded output: %v", err)
			}
			wantJSON, err := json.Marshal(want)
			if err != nil {
				t.Fatal(err)
			}
			if !jsonEqual(t, got, wantJSON) {
				t.Errorf("%s\n got: %s\nwant: %s", c.Description, got, wantJSON)
			}
		})
	}
}

func jsonEqual(t *testing.T, a, b []byte) bool {
	t.Helper()
	var x, y any
	if err := json.Unmarshal(a, &x); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &y); err != nil {
		t.Fatal(err)
	}
	return reflect.DeepEqual(x, y)
}

// Cases the protocol describes beyond the recordings.

func userText(id, text string) uistream.Message {
	return uistream.Message{ID: id, Role: uistream.RoleUser, Parts: []uistream.Part{uistream.TextPart{Text: text}}}
}

func convertJSON(t *testing.T, msgs []uistream.Message, opts *uistream.ConvertOptions) string {
	t.Helper()
	out, err := uistream.ConvertMessages(context.Background(), msgs, opts)
	if err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(out)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestConvertSupersededApproval(t *testing.T) {
	approved := true
	msgs := []uistream.Message{
		userText("u-1", "Delete c.txt."),
		{ID: "a-1", Role: uistream.RoleAssistant, Parts: []uistream.Part{
			uistream.StepStartPart{},
			uistream.ToolPart{ToolName: "deleteFile", ToolCallID: "call-c", State: uistream.ApprovalRequested,
				Input: json.RawMessage(`{"path":"c.txt"}`), Approval: &uistream.Approval{ID: "ap-c"}},
			uistream.ToolPart{ToolName: "deleteFile", ToolCallID: "call-d", State: uistream.OutputAvailable,
				Input: json.RawMessage(`{"path":"d.txt"}`), Output: json.RawMessage(`{"deleted":"d.txt"}`),
				Approval: &uistream.Approval{ID: "ap-d", Approved: &approved}},
		}},
		userText("u-2", "Never mind."),
	}
	got := convertJSON(t, msgs, nil)
	want := `[{"role":"user","content":[{"type":"text","text":"Delete c.txt."}]},` +
		`{"role":"assistant","content":[{"type":"tool-call","toolCallId":"call-d","toolName":"deleteFile","input":{"path":"d.txt"}},` +
		`{"type":"tool-approval-request","approvalId":"ap-d","toolCallId":"call-d"}]},` +
		`{"role":"tool","content":[{"type":"tool-approval-response","approvalId":"ap-d","approved":true},` +
		`{"type":"tool-result","toolCallId":"call-d","toolName":"deleteFile","output":{"type":"json","value":{"deleted":"d.txt"}}}]},` +
		`{"role":"user","content":[{"type":"text","text":"Never mind."}]}]`
	if got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}

	// An unanswered request after the last user message stays.
	msgs = msgs[:2]
	if got := convertJSON(t, msgs, nil); !strings.Contains(got, `"approvalId":"ap-c"`) {
		t.Errorf("the pending approval request was dropped: %s", got)
	}
}

func TestConvertDeniedAndUnavailable(t *testing.T) {
	denied := false
	msgs := []uistream.Message{
		userText("u-1", "Go."),
		{ID: "a-1", Role: uistream.RoleAssistant, Parts: []uistream.Part{
			uistream.ToolPart{ToolName: "deleteFile", ToolCallID: "call-1", State: uistream.OutputDenied,
				Input: json.RawMessage(`{}`), Approval: &uistream.Approval{ID: "ap-1", Approved: &denied}},
			uistream.ToolPart{ToolName: "oldTool", Dynamic: true, Unavailable: true, ToolCallID: "call-2",
				State: uistream.OutputAvailable, Input: json.RawMessage(`{}`), Output: json.RawMessage(`"secret"`)},
			uistream.ToolPart{ToolName: "mcp", Dynamic: true, ToolCallID: "call-3",
				State: uistream.OutputAvailable, Input: json.RawMessage(`{}`), Output: json.RawMessage(`"plain"`)},
		}},
	}
	got := convertJSON(t, msgs, nil)
	for _, want := range []string{
		`"output":{"type":"error-text","value":"Tool call execution denied."}`,
		`"output":{"type":"text","value":"Tool output omitted because the tool is no longer available."}`,
		`"output":{"type":"text","value":"plain"}`,
	} {
		if !strings.Contains(got, want) {
			t.Errorf("the conversion lacks %s:\n%s", want, got)
		}
	}
}

func TestConvertSteeringAndProviderExecuted(t *testing.T) {
	msgs := []uistream.Message{
		userText("u-1", "Search."),
		{ID: "a-1", Role: uistream.RoleAssistant, Parts: []uistream.Part{
			uistream.StepStartPart{},
			uistream.TextPart{Text: "Searching."},
			uistream.SteeringMessagePart{ID: "s-1", Parts: []uistream.Part{uistream.TextPart{Text: "Only Go sites."}}},
			uistream.ToolPart{ToolName: "web_search", ToolCallID: "ws-1", State: uistream.OutputError, ProviderExecuted: true,
				Input: json.RawMessage(`{"q":"go"}`), ErrorText: "quota"},
			uistream.SourceURLPart{SourceID: "s", URL: "https://go.dev"},
		}},
	}
	got := convertJSON(t, msgs, nil)
	want := `[{"role":"user","content":[{"type":"text","text":"Search."}]},` +
		`{"role":"assistant","content":[{"type":"text","text":"Searching."}]},` +
		`{"role":"user","content":[{"type":"text","text":"Only Go sites."}]},` +
		`{"role":"assistant","content":[{"type":"tool-call","toolCallId":"ws-1","toolName":"web_search","input":{"q":"go"},"providerExecuted":true},` +
		`{"type":"tool-result","toolCallId":"ws-1","toolName":"web_search","output":{"type":"error-json","value":"quota"}}]}]`
	if got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
}
