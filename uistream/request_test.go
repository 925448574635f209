package uistream_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aisdkgo/ai"
	"github.com/aisdkgo/ai/aitest"
	"github.com/aisdkgo/ai/provider"
	"github.com/aisdkgo/ai/uistream"
)

func post(body string) *http.Request {
	r := httptest.NewRequest(http.MethodPost, "/api/chat", strings.NewReader(body))
	r.Header.Set("Content-Type", "application/json")
	return r
}

// The recorded requests and the messages the client ended up holding
// decode, and encode back to the same JSON.
func TestDecodeRecordedMessages(t *testing.T) {
	files, err := filepath.Glob("testdata/oracle/*.request.json")
	if err != nil {
		t.Fatal(err)
	}
	for _, file := range files {
		name := strings.TrimSuffix(filepath.Base(file), ".request.json")
		t.Run(name, func(t *testing.T) {
			body := readFile(t, name+".request.json")
			req, err := uistream.DecodeRequest(post(string(body)), unsignedRecordings)
			if err != nil {
				t.Fatal(err)
			}
			var raw struct {
				ID        string          `json:"id"`
				Messages  json.RawMessage `json:"messages"`
				Trigger   string          `json:"trigger"`
				MessageID string          `json:"messageId"`
			}
			if err := json.Unmarshal(body, &raw); err != nil {
				t.Fatal(err)
			}
			if req.ID != raw.ID || req.Trigger != raw.Trigger || req.MessageID != raw.MessageID {
				t.Errorf("decoded %q %q %q; want %q %q %q", req.ID, req.Trigger, req.MessageID, raw.ID, raw.Trigger, raw.MessageID)
			}
			roundTrip(t, req.Messages, raw.Messages)

			var client struct {
				Messages json.RawMessage `json:"messages"`
			}
			if err := json.Unmarshal(readFile(t, name+".client.json"), &client); err != nil {
				t.Fatal(err)
			}
			msgs, err := uistream.UnmarshalMessages(client.Messages)
			if err != nil {
				t.Fatalf("the client's messages: %v", err)
			}
			roundTrip(t, msgs, client.Messages)
		})
	}
}

func roundTrip(t *testing.T, msgs []uistream.Message, want json.RawMessage) {
	t.Helper()
	got, err := json.Marshal(msgs)
	if err != nil {
		t.Fatal(err)
	}
	if !jsonEqual(t, got, want) {
		t.Errorf("round trip\n got: %s\nwant: %s", got, want)
	}
}

func TestDecodeRejects(t *testing.T) {
	user := `{"id":"u1","role":"user","parts":[{"type":"text","text":"hi"}]}`
	tool := func(fields string) string {
		return `{"messages":[` + user + `,{"id":"a1","role":"assistant","parts":[{"type":"tool-x","toolCallId":"c1",` + fields + `}]}]}`
	}
	for _, tc := range []struct {
		name, body, path string
	}{
		{"not JSON", `{"messages":`, ""},
		{"not an object", `[1]`, ""},
		{"no messages", `{"id":"chat"}`, "messages"},
		{"empty messages", `{"messages":[]}`, "messages"},
		{"messages not an array", `{"messages":{}}`, "messages"},
		{"message not an object", `{"messages":[1]}`, "messages[0]"},
		{"no id", `{"messages":[{"role":"user","parts":[{"type":"text","text":"hi"}]}]}`, "messages[0].id"},
		{"empty id", `{"messages":[{"id":"","role":"user","parts":[{"type":"text","text":"hi"}]}]}`, "messages[0].id"},
		{"long id", `{"messages":[{"id":"` + strings.Repeat("x", 2000) + `","role":"user","parts":[{"type":"text","text":"hi"}]}]}`, "messages[0].id"},
		{"bad role", `{"messages":[{"id":"u1","role":"tool","parts":[{"type":"text","text":"hi"}]}]}`, "messages[0].role"},
		{"user without parts", `{"messages":[{"id":"u1","role":"user","parts":[]}]}`, "messages[0].parts"},
		{"unknown part type", `{"messages":[{"id":"u1","role":"user","parts":[{"type":"image","url":"x"}]}]}`, "messages[0].parts[0].type"},
		{"text without text", `{"messages":[{"id":"u1","role":"user","parts":[{"type":"text"}]}]}`, "messages[0].parts[0].text"},
		{"text not a string", `{"messages":[{"id":"u1","role":"user","parts":[{"type":"text","text":5}]}]}`, "messages[0].parts[0].text"},
		{"bad text state", `{"messages":[{"id":"u1","role":"user","parts":[{"type":"text","text":"a","state":"x"}]}]}`, "messages[0].parts[0].state"},
		{"bad provider metadata", `{"messages":[{"id":"u1","role":"user","parts":[{"type":"text","text":"a","providerMetadata":{"x":1}}]}]}`, "messages[0].parts[0].providerMetadata"},
		{"file without url", `{"messages":[{"id":"u1","role":"user","parts":[{"type":"file","mediaType":"image/png"}]}]}`, "messages[0].parts[0].url"},
		{"file URL", `{"messages":[{"id":"u1","role":"user","parts":[{"type":"file","mediaType":"text/plain","url":"file:///etc/passwd"}]}]}`, "messages[0].parts[0].url"},
		{"file URL without host", `{"messages":[{"id":"u1","role":"user","parts":[{"type":"file","mediaType":"text/plain","url":"https:x"}]}]}`, "messages[0].parts[0].url"},
		{"data without name", `{"messages":[{"id":"u1","role":"user","parts":[{"type":"data-","data":1}]}]}`, "messages[0].parts[0].type"},
		{"tool without name", `{"messages":[` + user + `,{"id":"a1","role":"assistant","parts":[{"type":"tool-","toolCallId":"c1","state":"input-available","input":{}}]}]}`, "messages[1].parts[0].type"},
		{"tool without call id", `{"messages":[` + user + `,{"id":"a1","role":"assistant","parts":[{"type":"tool-x","state":"input-available","input":{}}]}]}`, "messages[1].parts[0].toolCallId"},
		{"unknown tool state", tool(`"state":"done","input":{}`), "messages[1].parts[0].state"},
		{"output in input-available", tool(`"state":"input-available","input":{},"output":1`), "messages[1].parts[0].output"},
		{"output-error without text", tool(`"state":"output-error","input":{}`), "messages[1].parts[0].errorText"},
		{"error text in output-available", tool(`"state":"output-available","input":{},"output":1,"errorText":"x"`), "messages[1].parts[0].errorText"},
		{"approval-requested without approval", tool(`"state":"approval-requested","input":{}`), "messages[1].parts[0].approval"},
		{"approval in input-available", tool(`"state":"input-available","input":{},"approval":{"id":"a"}`), "messages[1].parts[0].approval"},
		{"answered approval-requested", tool(`"state":"approval-requested","input":{},"approval":{"id":"a","approved":true}`), "messages[1].parts[0].approval.approved"},
		{"approval-responded without answer", tool(`"state":"approval-responded","input":{},"approval":{"id":"a"}`), "messages[1].parts[0].approval.approved"},
		{"output-denied approved", tool(`"state":"output-denied","input":{},"approval":{"id":"a","approved":true}`), "messages[1].parts[0].approval.approved"},
		{"output after denial", tool(`"state":"output-available","input":{},"output":1,"approval":{"id":"a","approved":false}`), "messages[1].parts[0].approval.approved"},
		{"approval without id", tool(`"state":"approval-requested","input":{},"approval":{}`), "messages[1].parts[0].approval.id"},
		{"reason before answer", tool(`"state":"approval-requested","input":{},"approval":{"id":"a","reason":"r"}`), "messages[1].parts[0].approval.reason"},
		{"dynamic true", `{"messages":[` + user + `,{"id":"a1","role":"assistant","parts":[{"type":"dynamic-tool","toolName":"x","dynamic":true,"toolCallId":"c1","state":"input-available","input":{}}]}]}`, "messages[1].parts[0].dynamic"},
		{"dynamic without name", `{"messages":[` + user + `,{"id":"a1","role":"assistant","parts":[{"type":"dynamic-tool","toolCallId":"c1","state":"input-available","input":{}}]}]}`, "messages[1].parts[0].toolName"},
		{"bad input encoding", tool(`"state":"input-streaming","inputEncoding":"xml"`), "messages[1].parts[0].inputEncoding"},
		{"steering with a tool part", `{"messages":[` + user + `,{"id":"a1","role":"assistant","parts":[{"type":"steering-message","id":"s","parts":[{"type":"step-start"}]}]}]}`, "messages[1].parts[0].parts[0].type"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := uistream.DecodeRequest(post(tc.body), nil)
			var re *uistream.RequestError
			if !errors.As(err, &re) {
				t.Fatalf("err = %v; want a *RequestError", err)
			}
			if re.Status != http.StatusBadRequest || re.Path != tc.path {
				t.Errorf("status %d path %q (%s); want 400 at %q", re.Status, re.Path, re.Message, tc.path)
			}
		})
	}
}

func TestDecodeLimitsAndTransport(t *testing.T) {
	check := func(name string, r *http.Request, opts *uistream.DecodeOptions, status int) {
		t.Helper()
		_, err := uistream.DecodeRequest(r, opts)
		var re *uistream.RequestError
		if !errors.As(err, &re) || re.Status != status {
			t.Errorf("%s: err = %v; want status %d", name, err, status)
		}
	}
	body := `{"messages":[{"id":"u1","role":"user","parts":[{"type":"text","text":"hi"},{"type":"step-start"}]}]}`
	check("too large", post(body), &uistream.DecodeOptions{MaxBytes: 20}, http.StatusRequestEntityTooLarge)
	check("too many parts", post(body), &uistream.DecodeOptions{MaxParts: 1}, http.StatusBadRequest)
	two := `{"messages":[{"id":"u1","role":"user","parts":[{"type":"text","text":"a"}]},{"id":"u2","role":"user","parts":[{"type":"text","text":"b"}]}]}`
	check("too many messages", post(two), &uistream.DecodeOptions{MaxMessages: 1}, http.StatusBadRequest)
	get := httptest.NewRequest(http.MethodGet, "/api/chat", nil)
	check("GET", get, nil, http.StatusMethodNotAllowed)
	form := post(body)
	form.Header.Set("Content-Type", "text/plain")
	check("text/plain", form, nil, http.StatusUnsupportedMediaType)
	bad := post("{\"messages\":[{\"id\":\"u1\",\"role\":\"user\",\"parts\":[{\"type\":\"text\",\"text\":\"\xff\"}]}]}")
	check("invalid UTF-8", bad, nil, http.StatusBadRequest)

	// Accepted file forms: data URLs, and provider references without a URL.
	for _, part := range []string{
		`{"type":"file","mediaType":"image/png","url":"data:image/png;base64,iVBORw0KGgo="}`,
		`{"type":"file","mediaType":"application/pdf","url":"","providerReference":{"openai":"file-1"}}`,
		`{"type":"file","mediaType":"image/png","url":"https://example.com/a.png","filename":"a.png"}`,
	} {
		if _, err := uistream.DecodeRequest(post(`{"messages":[{"id":"u1","role":"user","parts":[`+part+`]}]}`), nil); err != nil {
			t.Errorf("%s: %v", part, err)
		}
	}

	// Extra body fields are kept.
	req, err := uistream.DecodeRequest(post(`{"id":"c","model":"fast",`+body[1:]), nil)
	if err != nil {
		t.Fatal(err)
	}
	if string(req.Body["model"]) != `"fast"` {
		t.Errorf("Body = %v", req.Body)
	}
}

func TestWriteError(t *testing.T) {
	rec := httptest.NewRecorder()
	_, err := uistream.DecodeRequest(post(`{"messages":[]}`), nil)
	uistream.WriteError(rec, err)
	if rec.Code != http.StatusBadRequest || rec.Header().Get("Content-Type") != "application/json" {
		t.Fatalf("status %d, content type %q", rec.Code, rec.Header().Get("Content-Type"))
	}
	var body struct {
		Error struct {
			Message string `json:"message"`
			Path    string `json:"path"`
		} `json:"error"`
	}
	if err := json.Unmarshal(rec.Body.Bytes(), &body); err != nil {
		t.Fatal(err)
	}
	if body.Error.Path != "messages" || body.Error.Message == "" {
		t.Errorf("body %s", rec.Body)
	}

	rec = httptest.NewRecorder()
	uistream.WriteError(rec, errors.New("database password is hunter2"))
	if rec.Code != http.StatusInternalServerError || strings.Contains(rec.Body.String(), "hunter2") {
		t.Errorf("status %d body %s", rec.Code, rec.Body)
	}
}

// fuzzHandler is a complete chat route on a scripted model.
func fuzzHandler(w http.ResponseWriter, r *http.Request) {
	req, err := uistream.DecodeRequest(r, nil)
	if err != nil {
		uistream.WriteError(w, err)
		return
	}
	tools := toolSearchTools()
	msgs, err := uistream.ConvertMessages(r.Context(), req.Messages, &uistream.ConvertOptions{Tools: tools})
	if err != nil {
		uistream.WriteError(w, &uistream.RequestError{Status: http.StatusBadRequest, Message: err.Error()})
		return
	}
	model := &aitest.Model{Respond: func(context.Context, int, *provider.CallOptions) (aitest.Response, error) {
		return aitest.Response{Content: []provider.Content{aitest.Text("ok")}}, nil
	}}
	res, err := ai.StreamText(r.Context(), ai.StreamTextOptions{Model: model, Tools: tools, Messages: msgs, StopWhen: ai.StepCountIs(3)})
	if err != nil {
		uistream.WriteError(w, err)
		return
	}
	uistream.Write(w, res.Parts(), &uistream.Options{OriginalMessages: req.Messages, MessageID: "m", Tools: tools})
}

func FuzzDecodeRequest(f *testing.F) {
	files, _ := filepath.Glob("testdata/oracle/*.request.json")
	for _, file := range files {
		body, err := os.ReadFile(file)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(body)
	}
	f.Add([]byte(`{"messages":[{"id":"u","role":"user","parts":[{"type":"file","mediaType":"image/png","url":"data:image/png;base64,AA=="}]}]}`))
	f.Add([]byte(`{"messages":[{"id":"u","role":"user","parts":[{"type":"text","text":"x"}]},{"id":"a","role":"assistant","parts":[{"type":"tool-getWeather","toolCallId":"c","state":"approval-responded","input":{},"approval":{"id":"x","approved":true}}]}]}`))
	f.Add([]byte(`{"messages":[{"id":"a","role":"assistant","parts":[{"type":"dynamic-tool","toolName":"t","toolCallId":"c","state":"output-error","errorText":"e","rawInput":"{"}]}]}`))
	f.Fuzz(func(t *testing.T, body []byte) {
		rec := httptest.NewRecorder()
		fuzzHandler(rec, post(string(body)))
		if rec.Code < 200 || rec.Code >= 500 {
			t.Fatalf("status %d for %q: %s", rec.Code, body, rec.Body)
		}
		if rec.Code >= 300 && rec.Code < 400 {
			t.Fatalf("status %d", rec.Code)
		}
		if rec.Code == http.StatusOK && !bytes.HasSuffix(rec.Body.Bytes(), []byte("data: [DONE]\n\n")) {
			t.Fatalf("the stream does not end with [DONE]: %q", rec.Body)
		}
	})
}

// unsignedRecordings decodes the recorded requests, which the reference
// made without approval secrets.
var unsignedRecordings = &uistream.DecodeOptions{InsecureAcceptUnsignedApprovals: true}
