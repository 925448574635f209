package main

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/aisdkgo/ai/uistream"
)

// turn posts the chat and folds the answer into the assistant message, as
// the page does; continued is the message the answer continues, if any.
func turn(t *testing.T, url string, msgs []uistream.Message, continued *uistream.Message) uistream.Message {
	t.Helper()
	body, err := json.Marshal(map[string]any{"id": "chat-script", "messages": msgs, "trigger": uistream.TriggerSubmit})
	if err != nil {
		t.Fatal(err)
	}
	resp, err := http.Post(url+"/api/chat", "application/json", bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("status %d", resp.StatusCode)
	}
	var last uistream.Message
	for m, err := range uistream.ReadMessage(uistream.ReadChunks(resp.Body), &uistream.ReadOptions{Message: continued}) {
		if err != nil {
			t.Fatal(err)
		}
		last = m
	}
	return last
}

// A script the model writes pauses at the email until the user approves
// it in the page, then finishes: the weather is fetched once and the email
// sent once.
func TestChatAPICodeMode(t *testing.T) {
	srv := NewServer(scriptedModel(0), t.TempDir(), []byte("script test secret"), nil)
	ts := httptest.NewServer(srv)
	defer ts.Close()

	user := uistream.Message{ID: "u1", Role: uistream.RoleUser, Parts: []uistream.Part{uistream.TextPart{Text: "Run a script: the weather in Oslo, emailed to the team."}}}
	assistant := turn(t, ts.URL, []uistream.Message{user}, nil)
	if n := len(srv.Sent()); n != 0 {
		t.Fatalf("%d emails sent before the approval", n)
	}
	var states []string
	pending := -1
	for i, p := range assistant.Parts {
		if tp, ok := p.(uistream.ToolPart); ok {
			states = append(states, tp.ToolName+":"+string(tp.State))
			if tp.State == uistream.ApprovalRequested {
				pending = i
			}
		}
	}
	want := "toolSearch:output-available code:output-available sendEmail:approval-requested"
	if strings.Join(states, " ") != want {
		t.Fatalf("the page shows the tools %q; want %q", strings.Join(states, " "), want)
	}
	p := assistant.Parts[pending].(uistream.ToolPart)
	p.State = uistream.ApprovalResponded
	p.Approval.Approved = new(true)
	assistant.Parts[pending] = p

	final := turn(t, ts.URL, []uistream.Message{user, assistant}, &assistant)
	if sent := srv.Sent(); len(sent) != 1 || sent[0].Subject != "Weather in Oslo" {
		t.Fatalf("sent %+v; want one email about Oslo", sent)
	}
	var text string
	for _, p := range final.Parts {
		if tp, ok := p.(uistream.TextPart); ok {
			text += tp.Text + "|"
		}
		if tp, ok := p.(uistream.ToolPart); ok && tp.ToolName == "code" {
			if !strings.Contains(string(tp.Output), `"sent":"sent to team@example.com"`) {
				t.Errorf("the code call's output is %s", tp.Output)
			}
		}
	}
	if !strings.Contains(text, "The script ran: the team has the forecast.") {
		t.Errorf("the page shows the texts %q", text)
	}
}

// TestBrowserChatCodeMode runs the script flow in chromium: the program
// the model wrote pauses at the email, the user approves the email call in
// the page, and the page shows the program's end and the answer.
func TestBrowserChatCodeMode(t *testing.T) {
	var srv *Server
	res, _ := drive(t, "script", func(dist string) http.Handler {
		srv = NewServer(scriptedModel(5*time.Millisecond), dist, []byte("browser script secret"), nil)
		return srv
	}, nil)
	run := []string{
		"step", "text:Let me find the tools I need.", "tool:toolSearch:output-available",
		"step", "text:I will run a script for that.", "tool:code:output-available",
	}
	want := append(append([]string{}, run...), "tool:sendEmail:approval-requested")
	before := res.BeforeApproval
	if len(before) != 2 || !reflect.DeepEqual(before[1].Parts, want) {
		t.Fatalf("before the approval the page shows %+v\nwant the assistant parts %q", before, want)
	}
	want = append(append([]string{}, run...), "tool:sendEmail:approval-responded", "step", "text:The script ran: the team has the forecast.")
	after := res.AfterApproval
	if len(after) != 2 || !reflect.DeepEqual(after[1].Parts, want) {
		t.Fatalf("after the approval the page shows %+v\nwant the assistant parts %q", after, want)
	}
	if sent := srv.Sent(); len(sent) != 1 || sent[0].Subject != "Weather in Berlin" {
		t.Errorf("sent %+v; want one email about Berlin", sent)
	}
}
