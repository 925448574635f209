package uistream_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"

	"github.com/aisdkgo/ai"
	"github.com/aisdkgo/ai/aitest"
	"github.com/aisdkgo/ai/provider"
	"github.com/aisdkgo/ai/uistream"
)

// A chat route: the posted conversation in, the agent's answer out as a UI
// message stream.
func ExampleWrite() {
	model := aitest.NewModel(aitest.Response{Content: []provider.Content{aitest.Text("Hello from Go!")}})
	handler := func(w http.ResponseWriter, r *http.Request) {
		req, err := uistream.DecodeRequest(r, nil)
		if err != nil {
			uistream.WriteError(w, err)
			return
		}
		msgs, err := uistream.ConvertMessages(r.Context(), req.Messages, nil)
		if err != nil {
			uistream.WriteError(w, &uistream.RequestError{Status: http.StatusBadRequest, Message: err.Error()})
			return
		}
		res, err := ai.StreamText(r.Context(), ai.StreamTextOptions{Model: model, Messages: msgs})
		if err != nil {
			uistream.WriteError(w, err)
			return
		}
		uistream.Write(w, res.Parts(), &uistream.Options{MessageID: "msg-1", OriginalMessages: req.Messages})
	}

	body := `{"id":"chat-1","messages":[{"id":"u-1","role":"user","parts":[{"type":"text","text":"Hi!"}]}],"trigger":"submit-message"}`
	r := httptest.NewRequest(http.MethodPost, "/api/chat", strings.NewReader(body))
	r.Header.Set("Content-Type", "application/json")
	w := httptest.NewRecorder()
	handler(w, r)
	fmt.Println(w.Code, w.Header().Get("Content-Type"), w.Header().Get("X-Vercel-Ai-Ui-Message-Stream"))
	fmt.Print(w.Body)
	// Output:
	// 200 text/event-stream v1
	// data: {"type":"start","messageId":"msg-1"}
	//
	// data: {"type":"start-step"}
	//
	// data: {"type":"text-start","id":"text-0"}
	//
	// data: {"type":"text-delta","id":"text-0","delta":"Hello from Go!"}
	//
	// data: {"type":"text-end","id":"text-0"}
	//
	// data: {"type":"finish-step"}
	//
	// data: {"type":"finish","finishReason":"stop"}
	//
	// data: [DONE]
}

// The chunks of a generation, for a transport other than server-sent
// events.
func ExampleChunks() {
	model := aitest.NewModel(aitest.Response{Content: []provider.Content{aitest.Text("Hi!")}})
	res, err := ai.StreamText(context.Background(), ai.StreamTextOptions{Model: model, Prompt: "Hello"})
	if err != nil {
		panic(err)
	}
	for c := range uistream.Chunks(res.Parts(), nil) {
		b, err := json.Marshal(c)
		if err != nil {
			panic(err)
		}
		fmt.Println(string(b))
	}
	// Output:
	// {"type":"start"}
	// {"type":"start-step"}
	// {"type":"text-start","id":"text-0"}
	// {"type":"text-delta","id":"text-0","delta":"Hi!"}
	// {"type":"text-end","id":"text-0"}
	// {"type":"finish-step"}
	// {"type":"finish","finishReason":"stop"}
}

// A user who answered an approval request: the conversion ends with the
// answer, from which the generation resumes.
func ExampleConvertMessages() {
	posted := `[
	  {"id":"u-1","role":"user","parts":[{"type":"text","text":"Delete a.txt."}]},
	  {"id":"a-1","role":"assistant","parts":[
	    {"type":"step-start"},
	    {"type":"tool-deleteFile","toolCallId":"call-1","state":"approval-responded","input":{"path":"a.txt"},
	     "approval":{"id":"ap-1","approved":true}}
	  ]}
	]`
	msgs, err := uistream.UnmarshalMessages([]byte(posted))
	if err != nil {
		panic(err)
	}
	out, err := uistream.ConvertMessages(context.Background(), msgs, nil)
	if err != nil {
		panic(err)
	}
	for _, m := range out {
		b, _ := json.Marshal(m)
		fmt.Println(string(b))
	}
	// Output:
	// {"role":"user","content":[{"type":"text","text":"Delete a.txt."}]}
	// {"role":"assistant","content":[{"type":"tool-call","toolCallId":"call-1","toolName":"deleteFile","input":{"path":"a.txt"}},{"type":"tool-approval-request","approvalId":"ap-1","toolCallId":"call-1"}]}
	// {"role":"tool","content":[{"type":"tool-approval-response","approvalId":"ap-1","approved":true}]}
}

// A stream assembled by the application: its own data parts around a
// generation.
func ExampleNewWriter() {
	model := aitest.NewModel(aitest.Response{Content: []provider.Content{aitest.Text("Here is your card.")}})
	w := httptest.NewRecorder()

	sw := uistream.NewWriter(w, 0)
	sw.Write(uistream.Start{MessageID: "msg-1"})
	sw.Write(uistream.Data{Name: "card", ID: "card-1", Data: map[string]string{"status": "loading"}})
	res, err := ai.StreamText(context.Background(), ai.StreamTextOptions{Model: model, Prompt: "A card, please."})
	if err != nil {
		panic(err)
	}
	sw.WriteParts(res.Parts(), &uistream.Options{OmitStart: true, OmitFinish: true})
	// The same name and id: the client replaces the part's data.
	sw.Write(uistream.Data{Name: "card", ID: "card-1", Data: map[string]string{"status": "done"}})
	sw.Write(uistream.Finish{FinishReason: ai.FinishStop})
	sw.Close()

	for line := range strings.SplitSeq(strings.TrimSpace(w.Body.String()), "\n\n") {
		fmt.Println(line)
	}
	// Output:
	// data: {"type":"start","messageId":"msg-1"}
	// data: {"type":"data-card","id":"card-1","data":{"status":"loading"}}
	// data: {"type":"start-step"}
	// data: {"type":"text-start","id":"text-0"}
	// data: {"type":"text-delta","id":"text-0","delta":"Here is your card."}
	// data: {"type":"text-end","id":"text-0"}
	// data: {"type":"finish-step"}
	// data: {"type":"data-card","id":"card-1","data":{"status":"done"}}
	// data: {"type":"finish","finishReason":"stop"}
	// data: [DONE]
}

// A chat served by an agent, with the chats stored between turns.
func ExampleNewChatHandler() {
	agent := ai.NewAgent(ai.AgentOptions{Settings: ai.GenerateTextOptions{
		Model: aitest.NewModel(aitest.Response{Content: []provider.Content{aitest.Text("Hello from the agent!")}}),
		// The same secrets sign the approval requests and check the
		// answers; keep them out of the code.
		ToolApprovalSecrets: [][]byte{[]byte("example secret")},
	}})
	chats := uistream.NewMemoryChatStore() // or a database
	handler := uistream.NewChatHandler(uistream.ChatOptions{
		Agent: agent,
		Store: chats,
		NewID: func() string { return "msg-1" },
		// Resumer: &uistream.Resumer{Store: uistream.NewMemoryStore()},
		// makes the answers outlive their requests.
	})
	mux := http.NewServeMux()
	mux.Handle("/api/chat", handler)
	mux.Handle("/api/chat/", handler)

	body := `{"id":"chat-1","messages":[{"id":"u-1","role":"user","parts":[{"type":"text","text":"Hi!"}]}],"trigger":"submit-message"}`
	r := httptest.NewRequest(http.MethodPost, "/api/chat", strings.NewReader(body))
	r.Header.Set("Content-Type", "application/json")
	mux.ServeHTTP(httptest.NewRecorder(), r)

	// A page that reopens the chat gets its messages back.
	w := httptest.NewRecorder()
	mux.ServeHTTP(w, httptest.NewRequest(http.MethodGet, "/api/chat/chat-1/messages", nil))
	fmt.Println(w.Body.String())
	// Output:
	// [{"id":"u-1","role":"user","parts":[{"type":"text","text":"Hi!"}]},{"id":"msg-1","role":"assistant","parts":[{"type":"step-start"},{"type":"text","text":"Hello from the agent!","state":"done"}]}]
}
