package uistream_test

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"iter"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/aisdkgo/ai"
	"github.com/aisdkgo/ai/provider"
	"github.com/aisdkgo/ai/uistream"
	"github.com/aisdkgo/ai/uistream/storetest"
)

func TestMemoryStream(t *testing.T) {
	var mu sync.Mutex
	now := time.Unix(1_000_000, 0)
	clock := func() time.Time {
		mu.Lock()
		defer mu.Unlock()
		return now
	}
	storetest.Run(t,
		func(*testing.T) uistream.StreamStore {
			m := uistream.NewMemoryStore()
			uistream.SetClock(m, clock)
			return m
		},
		func(_ *testing.T, _ uistream.StreamStore, _ string) {
			mu.Lock()
			now = now.Add(uistream.DefaultStreamTTL)
			mu.Unlock()
		})
}

// The bounds of a memory store: finished streams make room for new ones,
// active ones never do, and a write that does not fit fails.
func TestMemoryStoreBounds(t *testing.T) {
	ctx := context.Background()
	m := &uistream.MemoryStore{MaxStreams: 2, MaxBytes: 10, MaxChunks: 3}
	for _, id := range []string{"a", "b"} {
		if err := m.Create(ctx, id); err != nil {
			t.Fatal(err)
		}
	}
	if err := m.Create(ctx, "c"); !errors.Is(err, uistream.ErrStoreFull) {
		t.Fatalf("a third stream with two active ones: %v; want ErrStoreFull", err)
	}
	if err := m.Append(ctx, "a", []byte("12345678")); err != nil {
		t.Fatal(err)
	}
	if err := m.Append(ctx, "b", []byte("123")); !errors.Is(err, uistream.ErrStoreFull) {
		t.Fatalf("11 bytes in a store of 10: %v; want ErrStoreFull", err)
	}
	for range 3 {
		if err := m.Append(ctx, "b", []byte("")); err != nil {
			t.Fatal(err)
		}
	}
	if err := m.Append(ctx, "b", []byte("")); !errors.Is(err, uistream.ErrStoreFull) {
		t.Fatalf("a fourth chunk with MaxChunks 3: %v; want ErrStoreFull", err)
	}
	if err := m.Finish(ctx, "a"); err != nil {
		t.Fatal(err)
	}
	// The finished stream a makes room for c, and its bytes are freed.
	if err := m.Create(ctx, "c"); err != nil {
		t.Fatal(err)
	}
	if err := m.Append(ctx, "c", []byte("1234567890")); err != nil {
		t.Fatal(err)
	}
	for range m.Read(ctx, "a", 0) {
		// drained
	}
	if _, err := collect(m.Read(ctx, "a", 0)); !errors.Is(err, uistream.ErrStreamNotFound) {
		t.Errorf("the evicted stream reads with %v; want ErrStreamNotFound", err)
	}
}

func collect(seq iter.Seq2[[]byte, error]) ([]string, error) {
	var out []string
	for c, err := range seq {
		if err != nil {
			return out, err
		}
		out = append(out, string(c))
	}
	return out, nil
}

// gate is a tool that runs until it is released or cancelled.
type gate struct {
	started, release, cancelled chan struct{}
}

func newGate() *gate {
	return &gate{started: make(chan struct{}), release: make(chan struct{}), cancelled: make(chan struct{})}
}

func (g *gate) tools() ai.Tools {
	return ai.Tools{{Name: "slow", Tool: ai.NewTool(ai.ToolDef[struct{}, string]{
		Execute: func(ctx context.Context, _ struct{}, _ ai.ToolExecutionOptions) (string, error) {
			close(g.started)
			select {
			case <-g.release:
				return "finished", nil
			case <-ctx.Done():
				close(g.cancelled)
				return "", ctx.Err()
			}
		},
	})}}
}

// startGated starts a generation that calls the gate's tool, then answers.
func startGated(t *testing.T, r *uistream.Resumer, ctx context.Context, streamID string, g *gate) {
	t.Helper()
	tools := g.tools()
	err := r.Start(ctx, streamID, func(ctx context.Context) (iter.Seq2[ai.Part, error], error) {
		res, err := ai.StreamText(ctx, ai.StreamTextOptions{
			Model: scripted(
				step("r1", text("t1", "Working"), call("c1", "slow", `{}`, 1), finish(provider.FinishToolCalls)),
				step("r2", text("t2", "All ", "done."), finish(provider.FinishStop)),
			),
			Tools: tools, Prompt: "go", StopWhen: ai.StepCountIs(3),
		})
		if err != nil {
			return nil, err
		}
		return res.Parts(), nil
	}, &uistream.Options{MessageID: "m1", Tools: tools})
	if err != nil {
		t.Fatal(err)
	}
}

// get reads the stream a GET answers; stopAt, when set, ends the read
// (the client goes away) after the first chunk containing it.
func get(t *testing.T, url, stopAt string) (status int, chunks []map[string]any) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		data, ok := strings.CutPrefix(sc.Text(), "data: ")
		if !ok || data == "[DONE]" {
			continue
		}
		var m map[string]any
		if err := json.Unmarshal([]byte(data), &m); err != nil {
			t.Fatal(err)
		}
		chunks = append(chunks, m)
		if stopAt != "" && strings.Contains(data, stopAt) {
			break
		}
	}
	return resp.StatusCode, chunks
}

func texts(chunks []map[string]any) string {
	var b strings.Builder
	for _, c := range chunks {
		if c["type"] == "text-delta" {
			b.WriteString(c["delta"].(string))
		}
	}
	return b.String()
}

// A generation started through a Resumer outlives its client: the client
// goes away in the middle, the tool goes on, and a client that comes back
// gets the whole stream from the start.
func TestResumerOutlivesClient(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	finished := make(chan error, 1)
	r := &uistream.Resumer{Store: uistream.NewMemoryStore(), OnFinish: func(_ string, err error) { finished <- err }}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		r.Serve(w, req, req.URL.Query().Get("stream"))
	}))
	defer srv.Close()
	defer http.DefaultClient.CloseIdleConnections()

	g := newGate()
	reqCtx, cancelReq := context.WithCancel(context.Background())
	startGated(t, r, reqCtx, "s1", g)
	cancelReq() // the request that started it ends

	status, first := get(t, srv.URL+"?stream=s1", `"tool-input-available"`)
	if status != http.StatusOK || first[0]["type"] != "start" || first[0]["messageId"] != "m1" {
		t.Fatalf("status %d, chunks %v", status, first)
	}
	<-g.started
	close(g.release) // the tool finishes after its client went away
	if err := <-finished; err != nil {
		t.Fatalf("the generation ended with %v", err)
	}
	select {
	case <-g.cancelled:
		t.Fatal("the tool was cancelled when its client went away")
	default:
	}

	_, all := get(t, srv.URL+"?stream=s1", "")
	if all[0]["type"] != "start" || all[len(all)-1]["type"] != "finish" {
		t.Fatalf("the replay runs from %v to %v", all[0], all[len(all)-1])
	}
	if got := texts(all); got != "WorkingAll done." {
		t.Errorf("the replay's text is %q", got)
	}
	if len(find(all, "tool-output-available")) != 1 {
		t.Errorf("the replay has no tool output: %v", types(all))
	}

	for _, q := range []string{"", "?stream=unknown"} {
		if status, chunks := get(t, srv.URL+q, ""); status != http.StatusNoContent || len(chunks) != 0 {
			t.Errorf("GET %q: %d %v; want 204", q, status, chunks)
		}
	}
	if err := r.Shutdown(context.Background()); err != nil {
		t.Fatal(err)
	}
}

// Stop ends a running generation: its tool is cancelled and the stream
// ends with an abort chunk, for the client that reads it live and for one
// that comes later.
func TestResumerStop(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	store := uistream.NewMemoryStore()
	finished := make(chan struct{})
	r := &uistream.Resumer{Store: store, MaxActive: 1, OnFinish: func(string, error) { close(finished) }}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		r.Serve(w, req, "s1")
	}))
	defer srv.Close()
	defer http.DefaultClient.CloseIdleConnections()

	g := newGate()
	startGated(t, r, context.Background(), "s1", g)
	err := r.Start(context.Background(), "s2", func(context.Context) (iter.Seq2[ai.Part, error], error) {
		t.Error("a generation beyond MaxActive started")
		return nil, errors.New("no")
	}, nil)
	if !errors.Is(err, uistream.ErrTooManyStreams) {
		t.Errorf("a second stream with MaxActive 1: %v; want ErrTooManyStreams", err)
	}

	live := make(chan []map[string]any, 1)
	go func() {
		_, chunks := get(t, srv.URL, "")
		live <- chunks
	}()
	<-g.started
	// A Resumer of another server that shares the store stops it.
	other := &uistream.Resumer{Store: store}
	if err := other.Stop(context.Background(), "s1"); err != nil {
		t.Fatal(err)
	}
	<-g.cancelled
	<-finished
	chunks := <-live
	if last := chunks[len(chunks)-1]; last["type"] != "abort" {
		t.Errorf("the stopped stream ends with %v; want an abort chunk", last)
	}
	if _, again := get(t, srv.URL, ""); len(again) != len(chunks) {
		t.Errorf("the replay has %d chunks, the live stream %d", len(again), len(chunks))
	}
	if err := r.Shutdown(context.Background()); err != nil {
		t.Fatal(err)
	}
}
