package provider_test

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/aisdkgo/ai/provider"
)

// Every message part decodes from the JSON that the TypeScript AI SDK
// writes, including the older "image" part and plain-string file data.
func TestUnmarshalMessageParts(t *testing.T) {
	po := provider.ProviderOptions{"p": {"k": "v"}}
	for _, tc := range []struct {
		name string
		in   string
		want provider.Message
	}{
		{"string content", `{"role":"user","content":"hi"}`,
			provider.UserMessage{Content: []provider.UserPart{provider.TextPart{Text: "hi"}}}},
		{"image url", `{"role":"user","content":[{"type":"image","image":"https://x/a.png","providerOptions":{"p":{"k":"v"}}}]}`,
			provider.UserMessage{Content: []provider.UserPart{provider.FilePart{Data: provider.FileURL{URL: "https://x/a.png"}, MediaType: "image", ProviderOptions: po}}}},
		{"image base64 with media type and a file name it ignores", `{"role":"user","content":[{"type":"image","image":"AAH/","mediaType":"image/png","filename":"f.png"}]}`,
			provider.UserMessage{Content: []provider.UserPart{provider.FilePart{Data: provider.FileBytes{Data: []byte{0, 1, 255}}, MediaType: "image/png"}}}},
		{"image tagged data", `{"role":"user","content":[{"type":"image","image":{"type":"text","text":"t"}}]}`,
			provider.UserMessage{Content: []provider.UserPart{provider.FilePart{Data: provider.FileText{Text: "t"}, MediaType: "image"}}}},
		{"file", `{"role":"user","content":[{"type":"file","data":{"type":"reference","reference":{"p":"id"}},"mediaType":"application/pdf","filename":"a.pdf","providerOptions":{"p":{"k":"v"}}}]}`,
			provider.UserMessage{Content: []provider.UserPart{provider.FilePart{Data: provider.FileReference{Reference: map[string]string{"p": "id"}}, MediaType: "application/pdf", Filename: "a.pdf", ProviderOptions: po}}}},
		{"reasoning file", `{"role":"assistant","content":[{"type":"reasoning-file","data":"https://x/r","mediaType":"text/plain","filename":"ignored"}]}`,
			provider.AssistantMessage{Content: []provider.AssistantPart{provider.ReasoningFilePart{Data: provider.FileURL{URL: "https://x/r"}, MediaType: "text/plain"}}}},
		{"tool call without input", `{"role":"assistant","content":[{"type":"tool-call","toolCallId":"c","toolName":"n"}]}`,
			provider.AssistantMessage{Content: []provider.AssistantPart{provider.ToolCallPart{ToolCallID: "c", ToolName: "n", Input: json.RawMessage("{}")}}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := provider.UnmarshalMessage([]byte(tc.in))
			require.NoError(t, err)
			assert.Equal(t, tc.want, got)
		})
	}
}

// A part whose file data is missing or unreadable is an error.
func TestUnmarshalMessagePartErrors(t *testing.T) {
	for _, in := range []string{
		`{"role":"user","content":[{"type":"image"}]}`,
		`{"role":"user","content":[{"type":"image","image":"not base64!"}]}`,
		`{"role":"user","content":[{"type":"image","image":{"type":"nope"}}]}`,
		`{"role":"user","content":[{"type":"file","mediaType":"m"}]}`,
		`{"role":"assistant","content":[{"type":"reasoning-file","data":{"type":"nope"}}]}`,
	} {
		_, err := provider.UnmarshalMessage([]byte(in))
		assert.Error(t, err, in)
	}
}

// Every message part survives a round trip through its JSON.
func TestMessagePartsRoundTrip(t *testing.T) {
	po := provider.ProviderOptions{"p": {"k": "v"}}
	in := json.RawMessage(`{"a":1}`)
	msgs := []provider.Message{
		provider.SystemMessage{Content: "s", ProviderOptions: po},
		provider.UserMessage{Content: []provider.UserPart{
			provider.TextPart{Text: "t", ProviderOptions: po},
			provider.FilePart{Data: provider.FileBytes{Data: []byte{1}}, MediaType: "image/png", Filename: "f", ProviderOptions: po},
		}, ProviderOptions: po},
		provider.AssistantMessage{Content: []provider.AssistantPart{
			provider.ReasoningPart{Text: "r", ProviderOptions: po},
			provider.CustomPart{Kind: "p.k", ProviderOptions: po},
			provider.ReasoningFilePart{Data: provider.FileURL{URL: "https://x"}, MediaType: "m", ProviderOptions: po},
			provider.ToolCallPart{ToolCallID: "c", ToolName: "n", Input: in, ProviderExecuted: true, ProviderOptions: po},
			provider.ToolApprovalRequestPart{ApprovalID: "a", ToolCallID: "c", Reason: "r", IsAutomatic: true, Signature: "s", InputSchemaInput: in, ProviderOptions: po},
		}},
		provider.ToolMessage{Content: []provider.ToolPart{
			provider.ToolResultPart{ToolCallID: "c", ToolName: "n", Output: provider.JSONOutput{Value: in}, ProviderOptions: po},
			provider.ToolApprovalResponsePart{ApprovalID: "a", Approved: true, Reason: "r", ProviderExecuted: true, ProviderOptions: po},
		}},
	}
	data, err := json.Marshal(msgs)
	require.NoError(t, err)
	got, err := provider.UnmarshalMessages(data)
	require.NoError(t, err)
	assert.Equal(t, msgs, got)
	again, err := json.Marshal(got)
	require.NoError(t, err)
	assert.Equal(t, string(data), string(again))
}
