// Package providertest runs the ai package's loop end to end through the
// real provider packages, against httptest servers that speak each
// provider's wire protocol: tool search over deferred tools, retries, and
// streams that fail, break or are abandoned.
package providertest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"go.uber.org/goleak"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

// event is one server-sent event. OpenAI-style streams leave name empty
// and send data lines only; Anthropic names every event.
type event struct {
	name string
	data string
}

// reply is what the fake server answers to one request.
type reply struct {
	status int
	header http.Header
	// body is sent as application/json when events is nil.
	body string
	// events are sent as text/event-stream, one flush per event.
	events []event
	// done appends the "[DONE]" terminator of OpenAI-style streams.
	done bool
	// tail is written as it is after the events (and the terminator), for
	// example the beginning of an event that never ends.
	tail string
	// handle, when set, serves the request instead, for example to drop
	// the connection or to keep the client waiting for the answer.
	handle func(w http.ResponseWriter, r *http.Request)
	// encode, when set, renders each event (and the reply's content type
	// is contentType): binary framings such as AWS event streams.
	encode      func(ev event) []byte
	contentType string
	// then runs once the body or the events were sent and flushed, with
	// the request still open: it may wait for the client to go away or
	// drop the connection.
	then func(w http.ResponseWriter, r *http.Request)
}

// jsonReply is a 200 response with a JSON body.
func jsonReply(body string) reply { return reply{body: body} }

// errorReply is an error response with a JSON body and extra headers given
// as name/value pairs.
func errorReply(status int, body string, header ...string) reply {
	h := http.Header{}
	for i := 0; i+1 < len(header); i += 2 {
		h.Set(header[i], header[i+1])
	}
	return reply{status: status, header: h, body: body}
}

// request is a request the fake server received, decoded by its wire.
type request struct {
	body map[string]any
	// stream is the body's "stream" flag.
	stream bool
	// tools are the names of the declared tools, in order.
	tools []string
	// calls are the assistant tool calls in the prompt, in order.
	calls []wireCall
	// outputs are the tool results in the prompt, in order.
	outputs []wireOutput
}

// wireCall is a tool call as a wire format carries it; args is compact JSON.
type wireCall struct {
	id, name, args string
}

// wireOutput is a tool result sent back to the model.
type wireOutput struct {
	callID  string
	content string
	isError bool
}

// server is an httptest server that speaks one provider's wire protocol:
// it decodes each request with the wire, records it, and answers with what
// the script returns for it.
type server struct {
	*httptest.Server
	t      *testing.T
	wire   wire
	script func(n int, req *request) reply

	mu   sync.Mutex
	reqs []*request
}

func newServer(t *testing.T, w wire, script func(n int, req *request) reply) *server {
	t.Helper()
	s := &server{t: t, wire: w, script: script}
	s.Server = httptest.NewServer(http.HandlerFunc(s.serve))
	t.Cleanup(s.Close)
	return s
}

// replies returns a script that answers with the given replies in order and
// repeats the last one.
func replies(rs ...reply) func(int, *request) reply {
	return func(n int, _ *request) reply { return rs[min(n, len(rs)-1)] }
}

func (s *server) serve(w http.ResponseWriter, r *http.Request) {
	raw, err := io.ReadAll(r.Body)
	if err != nil {
		s.t.Errorf("reading the request body: %v", err)
		return
	}
	req := &request{}
	if err := json.Unmarshal(raw, &req.body); err != nil {
		s.t.Errorf("the request body is not a JSON object: %v\n%s", err, raw)
		http.Error(w, "bad request", http.StatusBadRequest)
		return
	}
	req.stream, _ = req.body["stream"].(bool)
	if us, ok := s.wire.(urlStreamer); ok {
		req.stream = r.URL.RequestURI() == us.requestURI(true)
	}
	if want := requestURI(s.wire, req.stream); r.Method != http.MethodPost || r.URL.RequestURI() != want {
		s.t.Errorf("%s %s, want POST %s", r.Method, r.URL.RequestURI(), want)
	}
	if err := s.wire.checkHeaders(r.Header); err != nil {
		s.t.Error(err)
	}
	if err := s.wire.decode(req); err != nil {
		s.t.Errorf("decoding the request: %v\n%s", err, raw)
	}
	s.mu.Lock()
	n := len(s.reqs)
	s.reqs = append(s.reqs, req)
	s.mu.Unlock()

	rp := s.script(n, req)
	if bw, ok := s.wire.(binaryWire); ok && rp.encode == nil {
		f := bw.framing()
		rp.encode, rp.contentType = f.encode, f.contentType
	}
	writeReply(w, r, rp)
}

// binaryWire is a wire whose streams are not server-sent events.
type binaryWire interface {
	framing() *binaryFraming
}

// writeReply sends rp as the answer to r.
func writeReply(w http.ResponseWriter, r *http.Request, rp reply) {
	if rp.handle != nil {
		rp.handle(w, r)
		return
	}
	for k, vs := range rp.header {
		w.Header()[k] = vs
	}
	status := rp.status
	if status == 0 {
		status = http.StatusOK
	}
	if rp.events == nil {
		if w.Header().Get("Content-Type") == "" {
			w.Header().Set("Content-Type", "application/json")
		}
		w.WriteHeader(status)
		_, _ = io.WriteString(w, rp.body)
		if rp.then != nil {
			w.(http.Flusher).Flush()
		}
	} else {
		contentType := "text/event-stream"
		if rp.encode != nil {
			contentType = rp.contentType
		}
		w.Header().Set("Content-Type", contentType)
		w.Header().Set("Cache-Control", "no-cache")
		w.WriteHeader(status)
		flusher := w.(http.Flusher)
		flusher.Flush()
		for _, ev := range rp.events {
			if rp.encode != nil {
				_, _ = w.Write(rp.encode(ev))
			} else {
				_, _ = io.WriteString(w, frame(ev))
			}
			flusher.Flush()
		}
		if rp.done {
			_, _ = io.WriteString(w, "data: [DONE]\n\n")
		}
		_, _ = io.WriteString(w, rp.tail)
		flusher.Flush()
	}
	if rp.then != nil {
		rp.then(w, r)
	}
}

// urlStreamer is a wire whose request URL, not its body, asks for a
// stream.
type urlStreamer interface {
	// requestURI returns the path and query of a request.
	requestURI(stream bool) string
}

// requestURI returns the path and query a wire's requests go to.
func requestURI(w wire, stream bool) string {
	if us, ok := w.(urlStreamer); ok {
		return us.requestURI(stream)
	}
	return w.path()
}

// frame renders one server-sent event.
func frame(ev event) string {
	var b bytes.Buffer
	if ev.name != "" {
		fmt.Fprintf(&b, "event: %s\n", ev.name)
	}
	fmt.Fprintf(&b, "data: %s\n\n", ev.data)
	return b.String()
}

// count returns how many requests were received.
func (s *server) count() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.reqs)
}

// dropConnection ends a response by closing the connection without
// finishing the chunked body, as a proxy or a crashed server would.
func dropConnection(http.ResponseWriter, *http.Request) {
	panic(http.ErrAbortHandler)
}

// waitForClient keeps the response open until the client goes away, and
// closes gone when it does. It gives up after a while so that a client that
// never leaves fails the test instead of hanging it.
func waitForClient(gone chan<- struct{}) func(http.ResponseWriter, *http.Request) {
	return func(_ http.ResponseWriter, r *http.Request) {
		select {
		case <-r.Context().Done():
			close(gone)
		case <-time.After(10 * time.Second):
		}
	}
}

// mustJSON renders v as compact JSON.
func mustJSON(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return string(b)
}

// compactJSON returns the compact form of a JSON text, or the text itself
// when it is not JSON.
func compactJSON(s string) string {
	var b bytes.Buffer
	if err := json.Compact(&b, []byte(s)); err != nil {
		return s
	}
	return b.String()
}
