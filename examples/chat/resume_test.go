package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aisdkgo/ai/internal/redistest"
	"github.com/aisdkgo/ai/provider"
	"github.com/aisdkgo/ai/uistream"
	"github.com/aisdkgo/ai/uistream/redisstore"
)

// TestBrowserChatResume reloads the page in chromium while an answer
// streams: the answer goes on on the server, and the reloaded page gets
// the conversation back, resumes the answer from its start, follows the
// rest live, and the approval that ends it works as without a reload.
// Once with the streams in memory, once in Redis.
func TestBrowserChatResume(t *testing.T) {
	browser := os.Getenv("CHROMIUM")
	if browser == "" {
		browser = "/usr/bin/chromium"
	}
	if _, err := os.Stat(browser); err != nil {
		t.Skipf("no chromium at %s (set CHROMIUM to another path; .ci/run installs Debian's chromium package)", browser)
	}
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("node is needed to drive the browser (playwright-core); .ci/run installs the page's packages with npm")
	}
	web, err := filepath.Abs("web")
	if err != nil {
		t.Fatal(err)
	}
	for _, need := range []string{"dist/index.html", "node_modules/playwright-core/package.json"} {
		if _, err := os.Stat(filepath.Join(web, need)); err != nil {
			t.Skipf("the page is not built (%s is missing): run .ci/run, or: cd examples/chat/web && npm ci && npm run build", need)
		}
	}

	t.Run("Memory", func(t *testing.T) {
		browseResume(t, node, browser, web, uistream.NewMemoryStore())
	})
	t.Run("Redis", func(t *testing.T) {
		client := redistest.Client(t)
		browseResume(t, node, browser, web, redisstore.New(client, &redisstore.Options{Prefix: "chat-test-" + uistream.NewID()}))
	})
}

func browseResume(t *testing.T, node, browser, web string, store uistream.StreamStore) {
	// The scripted model takes about three seconds for the first answer,
	// and holds its second call until the driver says the reloaded page
	// is there.
	model := &heldModel{LanguageModel: scriptedModel(75 * time.Millisecond), hold: 2, release: make(chan struct{})}
	srv := NewServer(model, filepath.Join(web, "dist"), []byte("resume test secret"), store)
	var once sync.Once
	mux := http.NewServeMux()
	mux.Handle("/", srv)
	mux.HandleFunc("POST /test/release", func(w http.ResponseWriter, _ *http.Request) {
		once.Do(func() { close(model.release) })
		w.WriteHeader(http.StatusNoContent)
	})
	ts := httptest.NewServer(mux) // on 127.0.0.1
	defer ts.Close()
	defer func() {
		once.Do(func() { close(model.release) })
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		if err := srv.Shutdown(ctx); err != nil {
			t.Errorf("the answers did not stop: %v", err)
		}
	}()

	shot := filepath.Join(t.TempDir(), "resume.png")
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, filepath.Join("e2e", "resume.mjs"), ts.URL, ts.URL+"/test/release", t.TempDir(), shot, browser)
	cmd.Dir = web
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("the driver failed: %v\n%s\n%s", err, out, stderr.String())
	}
	var res struct {
		Error         string  `json:"error"`
		ChatURL       string  `json:"chatURL"`
		BeforeReload  []shown `json:"beforeReload"`
		Resumed       []shown `json:"resumed"`
		AfterReload   []shown `json:"afterReload"`
		AfterApproval []shown `json:"afterApproval"`
		// After one more reload, once the approval's turn had ended.
		ReloadedAfterApproval []shown `json:"reloadedAfterApproval"`
		ConsoleErrors         []struct {
			Phase, Text string
		} `json:"consoleErrors"`
		Requests []struct {
			Phase, Method, Path string
		} `json:"requests"`
	}
	if err := json.Unmarshal(out, &res); err != nil {
		t.Fatalf("the driver's output: %v\n%s", err, out)
	}
	if res.Error != "" {
		t.Fatalf("the driver: %s\nbefore the reload: %+v\nresumed: %+v\nafter: %+v", res.Error, res.BeforeReload, res.Resumed, res.AfterReload)
	}
	for _, e := range res.ConsoleErrors {
		// The page that is reloaded may report its cut request; the
		// reloaded one must not log errors.
		if e.Phase != "first" {
			t.Errorf("the page logged an error (%s): %s", e.Phase, e.Text)
		}
	}

	w := weatherIn("Berlin")
	summary := fmt.Sprintf("It is %s and %d°C in Berlin.", w.Condition, w.Temperature)
	firstStep := []string{"step", "text:Let me find the tools I need.", "tool:toolSearch:output-available"}
	run := append(append([]string{}, firstStep...),
		"step", "tool:getWeather:output-available",
		"step", "text:"+summary+" I will email the team about it.",
	)
	before := res.BeforeReload
	if len(before) != 2 || before[0].Role != "user" || !reflect.DeepEqual(before[1].Parts, firstStep) {
		t.Fatalf("before the reload the page shows %+v; want the user's message and the first step %q", before, firstStep)
	}
	if r := res.Resumed; len(r) != 2 || r[0].ID != before[0].ID || r[1].ID != before[1].ID || !reflect.DeepEqual(r[1].Parts, firstStep) {
		t.Fatalf("the reloaded page shows %+v; want the same messages as before the reload %+v", r, before)
	}
	want := append(append([]string{}, run...), "tool:sendEmail:approval-requested")
	after := res.AfterReload
	if len(after) != 2 || after[1].ID != before[1].ID || !reflect.DeepEqual(after[1].Parts, want) {
		t.Fatalf("after the reload the page ends with %+v\nwant the assistant parts %q", after, want)
	}
	want = append(append([]string{}, run...), "tool:sendEmail:output-available", "step", "text:Done: the team has the forecast.")
	if a := res.AfterApproval; len(a) != 2 || a[1].ID != before[1].ID || !reflect.DeepEqual(a[1].Parts, want) {
		t.Fatalf("after the approval the page shows %+v\nwant the assistant parts %q", a, want)
	}
	if !reflect.DeepEqual(res.ReloadedAfterApproval, res.AfterApproval) {
		t.Errorf("reloaded after the approval, the page shows %+v\nwant what it showed before the reload %+v", res.ReloadedAfterApproval, res.AfterApproval)
	}

	// One generation: the reload neither stopped nor restarted it.
	if n := model.calls.Load(); n != 4 {
		t.Errorf("the model was called %d times; want 4 (three steps, then one after the approval)", n)
	}
	if sent := srv.Sent(); len(sent) != 1 || sent[0].Body != summary {
		t.Errorf("sent %+v; want one email", sent)
	}
	var posts, resumes int
	for _, r := range res.Requests {
		switch {
		case r.Method == http.MethodPost && r.Path == "/api/chat":
			posts++
		case r.Method == http.MethodGet && r.Phase == "reloaded" && r.Path == "/api/chat/"+chatParam(t, res.ChatURL)+"/stream":
			resumes++
		}
	}
	if posts != 2 || resumes != 1 {
		t.Errorf("the page posted %d turns and resumed %d times; want 2 and 1: %+v", posts, resumes, res.Requests)
	}
	png, err := os.ReadFile(shot)
	if err != nil || !bytes.HasPrefix(png, []byte("\x89PNG")) {
		t.Errorf("no screenshot at %s: %v", shot, err)
	}
	t.Logf("screenshot: %s", shot)
}

func chatParam(t *testing.T, pageURL string) string {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, pageURL, nil)
	if err != nil {
		t.Fatal(err)
	}
	id := req.URL.Query().Get("chat")
	if id == "" {
		t.Fatalf("the page's address %s names no chat", pageURL)
	}
	return id
}

// heldModel holds its hold-th call until release is closed.
type heldModel struct {
	provider.LanguageModel
	hold    int64
	release chan struct{}
	calls   atomic.Int64
}

func (m *heldModel) Stream(ctx context.Context, opts *provider.CallOptions) (*provider.StreamResult, error) {
	if m.calls.Add(1) == m.hold {
		select {
		case <-m.release:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	return m.LanguageModel.Stream(ctx, opts)
}

// TestChatAPIResume plays the page's part in Go with resumption on: a
// finished answer has nothing to resume and the messages route gives the
// chat back, an answer that streams can be resumed from its start, and
// the stop route ends it.
func TestChatAPIResume(t *testing.T) {
	model := &heldModel{LanguageModel: scriptedModel(0), hold: 4, release: make(chan struct{})}
	srv := NewServer(model, t.TempDir(), []byte("api test secret"), uistream.NewMemoryStore())
	ts := httptest.NewServer(srv)
	defer ts.Close()
	defer srv.Shutdown(context.Background())

	get := func(path string) (int, []byte) {
		t.Helper()
		resp, err := http.Get(ts.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var b bytes.Buffer
		b.ReadFrom(resp.Body)
		return resp.StatusCode, b.Bytes()
	}
	if status, _ := get("/api/chat/chat-1/stream"); status != http.StatusNoContent {
		t.Errorf("resuming a chat with no answer: %d; want 204", status)
	}

	user := uistream.Message{ID: "u1", Role: uistream.RoleUser, Parts: []uistream.Part{uistream.TextPart{Text: "What is the weather in Oslo? Email the team."}}}
	chunks := postChat(t, ts.URL, []uistream.Message{user})
	if got := chunks[len(chunks)-1]; got["type"] != "finish" || got["finishReason"] != "tool-calls" {
		t.Fatalf("the first turn ends with %v", got)
	}
	if status, _ := get("/api/chat/chat-1/stream"); status != http.StatusNoContent {
		t.Errorf("resuming a finished answer: %d; want 204", status)
	}
	status, body := get("/api/chat/chat-1/messages")
	var history []uistream.Message
	if err := json.Unmarshal(body, &history); status != http.StatusOK || err != nil || len(history) != 2 || history[0].ID != "u1" || history[1].ID != chunks[0]["messageId"] {
		t.Errorf("the chat is %d %s (%v); want the user's message and the answer", status, body, err)
	}

	// The approval's turn sends the email, then holds in its model call
	// (the fourth in all): it is resumed, then the stop route ends it.
	assistant := accumulate(t, chunks)
	last := assistant.Parts[len(assistant.Parts)-1].(uistream.ToolPart)
	last.State = uistream.ApprovalResponded
	last.Approval.Approved = new(true)
	assistant.Parts[len(assistant.Parts)-1] = last
	done := make(chan []map[string]any, 1)
	go func() { done <- postChat(t, ts.URL, []uistream.Message{user, assistant}) }()
	for model.calls.Load() < 4 {
		time.Sleep(time.Millisecond) // until the held call has begun
	}
	live, err := http.Get(ts.URL + "/api/chat/chat-1/stream")
	if err != nil {
		t.Fatal(err)
	}
	defer live.Body.Close()
	if live.StatusCode != http.StatusOK {
		t.Fatalf("resuming the answer that streams: %d", live.StatusCode)
	}
	resumed := make(chan []map[string]any, 1)
	go func() { resumed <- readStream(t, live.Body) }()
	resp, err := http.Post(ts.URL+"/api/chat/chat-1/stop", "application/json", nil)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusNoContent {
		t.Errorf("stop: %d", resp.StatusCode)
	}
	stopped := <-done
	if got := stopped[len(stopped)-1]; got["type"] != "abort" {
		t.Errorf("the stopped answer ends with %v; want an abort chunk", got)
	}
	if replay := <-resumed; !reflect.DeepEqual(replay, stopped) {
		t.Errorf("the resumed answer differs from the posted one:\n%v\n%v", replay, stopped)
	}
	if sent := srv.Sent(); len(sent) != 1 {
		t.Errorf("sent %+v; want the approved email before the stop", sent)
	}
}

// readStream reads the chunks of a stream.
func readStream(t *testing.T, body io.Reader) []map[string]any {
	var chunks []map[string]any
	sc := bufio.NewScanner(body)
	for sc.Scan() {
		data, ok := strings.CutPrefix(sc.Text(), "data: ")
		if !ok || data == "[DONE]" {
			continue
		}
		var m map[string]any
		if err := json.Unmarshal([]byte(data), &m); err != nil {
			t.Error(err)
			return nil
		}
		chunks = append(chunks, m)
	}
	return chunks
}
