package providertest

import (
	"context"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/stretchr/testify/assert"
	"go.uber.org/goleak"

	"github.com/aisdkgo/ai"
	"github.com/aisdkgo/ai/provider"
	"github.com/aisdkgo/ai/providers/anthropic"
	"github.com/aisdkgo/ai/providers/azure"
	"github.com/aisdkgo/ai/providers/bedrock"
	"github.com/aisdkgo/ai/providers/google"
	"github.com/aisdkgo/ai/providers/openai"
	"github.com/aisdkgo/ai/providers/openaicompat"
)

// protocol is one wire protocol as the fault table drives it. Every field
// is needed; adding a protocol to the table is one literal in protocols.
type protocol struct {
	name string
	// path is the path requests are posted to, by mode.
	path func(stream bool) string
	// model returns the protocol's model sending to baseURL with client.
	model func(baseURL string, client *http.Client) provider.LanguageModel
	// respond renders a successful answer, as a JSON body or (stream) as
	// events.
	respond func(stream bool, t turn) reply
	// partial is the beginning of a streamed text answer up to and
	// including one text delta.
	partial func(id, text string) []event
	// errorBody is the protocol's error body for an HTTP status.
	errorBody func(status int, message string) string
	// errorFrame is an error reported as a stream event: a server error
	// when serverError is set, else an invalid request.
	errorFrame func(serverError bool, message string) event
	// binary, when set, is the protocol's binary stream framing; nil means
	// server-sent events.
	binary *binaryFraming
}

// binaryFraming is a stream framing other than server-sent events.
type binaryFraming struct {
	contentType string
	encode      func(ev event) []byte
	// longStart begins a message longer than the 16 MiB a message may hold.
	longStart []byte
}

// cutTail is the beginning of an event that never ends.
func (p protocol) cutTail() string {
	if p.binary != nil {
		whole := p.binary.encode(event{name: "contentBlockDelta", data: `{"contentBlockIndex":0,"delta":{"text":"never"}}`})
		return string(whole[:len(whole)/2])
	}
	return `data: {"type":"respon`
}

// frame renders one event of the protocol.
func (p protocol) frame(ev event) []byte {
	if p.binary != nil {
		return p.binary.encode(ev)
	}
	return []byte(frame(ev))
}

// protocols are the protocols of the fault table.
func protocols() []protocol {
	return []protocol{
		{
			name: "openai-responses", path: fixedPath("/v1/responses"),
			model: func(u string, c *http.Client) provider.LanguageModel {
				return openai.New(openai.WithAPIKey("test-key"), openai.WithBaseURL(u+"/v1"), openai.WithHTTPClient(c)).Responses("gpt-4.1")
			},
			respond: responsesWire{}.respond, partial: responsesWire{}.partial, errorBody: openaiErrorBody,
			errorFrame: func(serverError bool, message string) event {
				code := "invalid_request_error"
				if serverError {
					code = "server_error"
				}
				return event{data: mustJSON(map[string]any{"type": "error", "sequence_number": 0, "code": code, "message": message, "param": nil})}
			},
		},
		{
			name: "azure-responses", path: fixedPath("/openai/deployments/gpt-4.1/responses"),
			model: func(u string, c *http.Client) provider.LanguageModel {
				return azure.New(azure.WithAPIKey("test-key"), azure.WithBaseURL(u+"/openai"), azure.WithDeploymentBasedURLs(true),
					azure.WithHTTPClient(c)).Responses("gpt-4.1")
			},
			respond: responsesWire{}.respond, partial: responsesWire{}.partial, errorBody: openaiErrorBody,
			errorFrame: func(serverError bool, message string) event {
				code := "invalid_request_error"
				if serverError {
					code = "server_error"
				}
				return event{data: mustJSON(map[string]any{"type": "error", "sequence_number": 0, "code": code, "message": message, "param": nil})}
			},
		},
		{
			name: "bedrock",
			path: func(stream bool) string {
				if stream {
					return "/model/" + bedrockModel + "/converse-stream"
				}
				return "/model/" + bedrockModel + "/converse"
			},
			model: func(u string, c *http.Client) provider.LanguageModel {
				return bedrock.New(bedrock.WithBaseURL(u), bedrock.WithRegion("us-east-1"), bedrock.WithHTTPClient(c),
					bedrock.WithCredentials(credentials.NewStaticCredentialsProvider("AKIDTEST", "secret", ""))).Model(bedrockModel)
			},
			respond: bedrockWire{}.respond, partial: bedrockWire{}.partial, errorBody: bedrockWire{}.errorBody,
			errorFrame: func(serverError bool, message string) event {
				kind := "validationException"
				if serverError {
					kind = "internalServerException"
				}
				return event{name: "exception:" + kind, data: mustJSON(map[string]any{"message": message})}
			},
			binary: bedrockFraming(),
		},
		{
			name: "openai-chat", path: fixedPath("/v1/chat/completions"),
			model: func(u string, c *http.Client) provider.LanguageModel {
				return openai.New(openai.WithAPIKey("test-key"), openai.WithBaseURL(u+"/v1"), openai.WithHTTPClient(c)).Chat("gpt-4.1")
			},
			respond: chatWire{}.respond, partial: chatWire{}.partial, errorBody: openaiErrorBody, errorFrame: chatErrorFrame,
		},
		{
			name: "openai-compatible", path: fixedPath("/v1/chat/completions"),
			model: func(u string, c *http.Client) provider.LanguageModel {
				return openaicompat.New(openaicompat.WithBaseURL(u+"/v1"), openaicompat.WithName("local"),
					openaicompat.WithIncludeUsage(true), openaicompat.WithHTTPClient(c)).Model("qwen3")
			},
			respond: chatWire{compat: true}.respond, partial: chatWire{compat: true}.partial, errorBody: openaiErrorBody, errorFrame: chatErrorFrame,
		},
		{
			name: "anthropic", path: fixedPath("/v1/messages"),
			model: func(u string, c *http.Client) provider.LanguageModel {
				return anthropic.New(anthropic.WithAPIKey("test-key"), anthropic.WithBaseURL(u+"/v1"), anthropic.WithHTTPClient(c)).Model("claude-sonnet-4-5")
			},
			respond: anthropicWire{}.respond, partial: anthropicWire{}.partial, errorBody: anthropicWire{}.errorBody,
			errorFrame: func(serverError bool, message string) event {
				kind := "invalid_request_error"
				if serverError {
					kind = "api_error"
				}
				return ev(map[string]any{"type": "error", "error": map[string]any{"type": kind, "message": message}})
			},
		},
		{
			name: "google",
			path: func(stream bool) string {
				if stream {
					return googleModelPath + ":streamGenerateContent"
				}
				return googleModelPath + ":generateContent"
			},
			model: func(u string, c *http.Client) provider.LanguageModel {
				return google.New(google.WithAPIKey("test-key"), google.WithBaseURL(u+"/v1beta"), google.WithHTTPClient(c)).Model(googleModel)
			},
			respond: googleWire{}.respond, partial: googleWire{}.partial, errorBody: googleWire{}.errorBody,
			errorFrame: func(serverError bool, message string) event {
				status := http.StatusBadRequest
				if serverError {
					status = http.StatusInternalServerError
				}
				return event{data: googleWire{}.errorBody(status, message)}
			},
		},
	}
}

// fixedPath is the path of a protocol that posts both modes to one path.
func fixedPath(p string) func(bool) string { return func(bool) string { return p } }

func chatErrorFrame(serverError bool, message string) event {
	e := map[string]any{"message": message, "type": "invalid_request_error", "param": nil, "code": nil}
	if serverError {
		e["type"] = "server_error"
	}
	return event{data: mustJSON(map[string]any{"error": e})}
}

// expect is what a fault must come to.
type expect struct {
	// attempts is how many requests the server must receive.
	attempts int
	// status and retryable describe the *provider.APICallError the call
	// must fail with; status 0 means the call fails with another error.
	status    int
	retryable bool
	// message is the API error's message, or a part of it after "~".
	message string
	// is is an error the failure must match with errors.Is.
	is error
	// finish is the finish reason of a call that ends without failing.
	finish ai.FinishReason
	// text is the text a failed or unfinished stream delivered first.
	text string
}

// faultEnv is what a row's reply may use.
type faultEnv struct {
	p      protocol
	stream bool
	// expire ends the call's context with context.DeadlineExceeded.
	expire func()
	// written counts the bytes a handler managed to send.
	written *atomic.Int64
}

// fault is a row of the fault table.
type fault struct {
	name string
	// streamOnly and generateOnly restrict the row to one mode.
	streamOnly, generateOnly bool
	reply                    func(e faultEnv) reply
	want                     func(stream bool) expect
	// check makes extra assertions.
	check func(t *testing.T, e faultEnv)
	// expireOnText expires the context of a stream when its first text
	// arrives.
	expireOnText bool
}

const (
	faultMessage = "The model is not available."
	htmlPage     = "<!DOCTYPE html>\n<html><head><title>502 Bad Gateway</title></head><body><h1>Bad Gateway</h1></body></html>\n"
	// longLine is more than the 16 MiB an event stream line may take.
	longLine = 17 << 20
)

func faults() []fault {
	fastRetry := http.Header{"Retry-After-Ms": {"1"}}
	httpError := func(status int, retryable bool, attempts int) fault {
		return fault{
			name: http.StatusText(status),
			reply: func(e faultEnv) reply {
				return reply{status: status, header: fastRetry, body: e.p.errorBody(status, faultMessage)}
			},
			want: func(bool) expect {
				return expect{attempts: attempts, status: status, retryable: retryable, message: faultMessage}
			},
		}
	}
	return []fault{
		{
			name: "empty 200 body",
			reply: func(e faultEnv) reply {
				if e.stream {
					return reply{events: []event{}}
				}
				return reply{body: ""}
			},
			want: func(bool) expect { return expect{attempts: 1, status: 200, message: "~empty"} },
		},
		{
			name: "HTML 200 body",
			reply: func(faultEnv) reply {
				return reply{header: http.Header{"Content-Type": {"text/html; charset=utf-8"}}, body: htmlPage}
			},
			want: func(bool) expect { return expect{attempts: 1, status: 200, message: "~text/html"} },
		},
		{
			name: "error JSON in a 200 body",
			reply: func(e faultEnv) reply {
				return reply{header: fastRetry, body: e.p.errorBody(http.StatusInternalServerError, faultMessage)}
			},
			want: func(bool) expect { return expect{attempts: 1, status: 200, message: faultMessage} },
		},
		{
			name: "server error as the first frame", streamOnly: true,
			reply: func(e faultEnv) reply {
				return reply{header: fastRetry, events: []event{e.p.errorFrame(true, faultMessage)}}
			},
			want: func(bool) expect { return expect{attempts: 3, status: 500, retryable: true, message: faultMessage} },
		},
		{
			name: "invalid request as the first frame", streamOnly: true,
			reply: func(e faultEnv) reply {
				return reply{header: fastRetry, events: []event{e.p.errorFrame(false, faultMessage)}}
			},
			want: func(bool) expect { return expect{attempts: 1, status: 400, message: faultMessage} },
		},
		{
			name: "connection dropped mid-body",
			reply: func(e faultEnv) reply {
				if e.stream {
					return reply{events: e.p.partial("resp_cut", partialText), then: dropConnection}
				}
				full := e.p.respond(false, helloTurn).body
				return reply{header: fastRetry, body: full[:len(full)/2], then: dropConnection}
			},
			want: func(stream bool) expect {
				if stream {
					// Output arrived: the call is not repeated.
					return expect{attempts: 1, status: 200, retryable: true, message: "~cut off", is: io.ErrUnexpectedEOF, text: partialText}
				}
				return expect{attempts: 3, status: 200, retryable: true, message: "~cut off", is: io.ErrUnexpectedEOF}
			},
		},
		{
			name: "body ends early",
			reply: func(e faultEnv) reply {
				if e.stream {
					// The last event stops in the middle of its data.
					return reply{events: e.p.partial("resp_cut", partialText), tail: e.p.cutTail()}
				}
				full := e.p.respond(false, helloTurn).body
				return reply{body: full[:len(full)/2]}
			},
			want: func(stream bool) expect {
				if stream {
					return expect{attempts: 1, finish: ai.FinishInterrupted, text: partialText}
				}
				return expect{attempts: 1, status: 200, message: "~not valid JSON"}
			},
		},
		{
			name: "over-long line", streamOnly: true,
			reply: func(e faultEnv) reply {
				return reply{header: fastRetry, handle: func(w http.ResponseWriter, r *http.Request) {
					start := []byte(`data: {"type":"`)
					w.Header().Set("Content-Type", "text/event-stream")
					if e.p.binary != nil {
						start = e.p.binary.longStart
						w.Header().Set("Content-Type", e.p.binary.contentType)
					}
					w.WriteHeader(http.StatusOK)
					chunk := []byte(strings.Repeat("x", 1<<20))
					n, _ := w.Write(start)
					e.written.Add(int64(n))
					for e.written.Load() < 4*longLine {
						n, err := w.Write(chunk)
						e.written.Add(int64(n))
						if err != nil {
							return
						}
					}
				}}
			},
			want: func(bool) expect { return expect{attempts: 1, status: 200, message: "~16 MiB"} },
			check: func(t *testing.T, e faultEnv) {
				// The reader stops at the limit; what the connection had
				// buffered by then may also have been sent.
				assert.Less(t, e.written.Load(), int64(2*longLine), "bytes the server sent")
			},
		},
		httpError(http.StatusTooManyRequests, true, 3),
		httpError(http.StatusInternalServerError, true, 3),
		httpError(http.StatusBadRequest, false, 1),
		httpError(http.StatusUnauthorized, false, 1),
		{
			name: "slow drip with a context deadline",
			reply: func(e faultEnv) reply {
				return reply{handle: func(w http.ResponseWriter, r *http.Request) {
					flusher := w.(http.Flusher)
					drip := " "
					if e.stream {
						w.Header().Set("Content-Type", "text/event-stream")
						if e.p.binary != nil {
							w.Header().Set("Content-Type", e.p.binary.contentType)
						}
						w.WriteHeader(http.StatusOK)
						for _, ev := range e.p.partial("resp_slow", partialText) {
							_, _ = w.Write(e.p.frame(ev))
						}
						drip = ": keep-alive\n\n"
						if e.p.binary != nil {
							// A message that grows by a byte a tick.
							whole := e.p.binary.encode(event{name: "contentBlockDelta", data: strings.Repeat(" ", 1<<20)})
							_, _ = w.Write(whole[:12])
							drip = " "
						}
					} else {
						w.Header().Set("Content-Type", "application/json")
						w.WriteHeader(http.StatusOK)
						_, _ = io.WriteString(w, "{")
					}
					flusher.Flush()
					if !e.stream {
						e.expire() // a stream expires once its text arrived
					}
					tick := time.NewTicker(5 * time.Millisecond)
					defer tick.Stop()
					for {
						select {
						case <-r.Context().Done():
							return
						case <-tick.C:
							if _, err := io.WriteString(w, drip); err != nil {
								return
							}
							flusher.Flush()
						}
					}
				}}
			},
			expireOnText: true,
			want: func(stream bool) expect {
				if stream {
					return expect{attempts: 1, is: context.DeadlineExceeded, text: partialText}
				}
				return expect{attempts: 1, is: context.DeadlineExceeded}
			},
		},
	}
}

// TestFaults runs every fault against every protocol, with GenerateText
// and StreamText. Its rows run one at a time, so that each can check that
// it left no goroutine behind.
func TestFaults(t *testing.T) {
	for _, p := range protocols() {
		for _, f := range faults() {
			for _, stream := range []bool{false, true} {
				if (stream && f.generateOnly) || (!stream && f.streamOnly) {
					continue
				}
				t.Run(p.name+"/"+f.name+"/"+mode(stream), func(t *testing.T) {
					runFault(t, p, f, stream)
				})
			}
		}
	}
}

func runFault(t *testing.T, p protocol, f fault, stream bool) {
	before := goleak.IgnoreCurrent()
	ctx, expire := expiringContext(t.Context())
	defer expire()
	env := faultEnv{p: p, stream: stream, expire: expire, written: new(atomic.Int64)}
	rp := f.reply(env)
	if p.binary != nil {
		rp.encode, rp.contentType = p.binary.encode, p.binary.contentType
	}
	srv := newFaultServer(t, p.path(stream), rp)
	transport := &http.Transport{}
	client := &http.Client{Transport: transport}

	opts := ai.GenerateTextOptions{Model: p.model(srv.URL, client), Prompt: "Say hello."}
	// A generous bound that only stops a hung row.
	bounded, cancel := context.WithTimeout(ctx, testTimeout)
	defer cancel()
	var onPart func(ai.Part)
	if f.expireOnText {
		onPart = func(p ai.Part) {
			if _, ok := p.(ai.TextDelta); ok {
				expire()
			}
		}
	}
	o := generateWith(bounded, t, stream, opts, onPart)
	want := f.want(stream)

	assert.Equal(t, want.attempts, srv.attempts(), "attempts")
	assert.NoError(t, o.iterErr, "the stream's iteration")
	if stream {
		assert.Equal(t, want.text, o.streamedText(), "streamed text")
	}
	var failure error
	switch {
	case !stream:
		failure = o.err
	case want.status != 0:
		// The failure is the stream's error part.
		errs := o.errorParts()
		if assert.Len(t, errs, 1, "error parts") {
			failure = errs[0]
		}
	default:
		failure = o.err
	}
	if want.status == 0 && want.is == nil {
		assert.NoError(t, failure)
		assert.Empty(t, o.errorParts())
		if assert.NotNil(t, o.res) {
			assert.Equal(t, want.finish, o.res.FinishReason)
			assert.Equal(t, want.text, o.res.Text)
		}
	} else {
		checkFailure(t, failure, want)
	}
	if f.check != nil {
		f.check(t, env)
	}

	// Nothing may keep a connection or a goroutine once the call returned.
	cancel()
	expire()
	transport.CloseIdleConnections()
	srv.waitClosed(t)
	srv.Close()
	goleak.VerifyNone(t, before)
}

// checkFailure checks the error a call failed with.
func checkFailure(t *testing.T, err error, want expect) {
	t.Helper()
	if !assert.Error(t, err) {
		return
	}
	if want.is != nil {
		assert.ErrorIs(t, err, want.is)
	}
	if want.status == 0 {
		return
	}
	var apiErr *provider.APICallError
	if !assert.ErrorAs(t, err, &apiErr, "%T: %v", err, err) {
		return
	}
	assert.Equal(t, want.status, apiErr.StatusCode, "status: %v", apiErr)
	assert.Equal(t, want.retryable, apiErr.Retryable, "retryable: %v", apiErr)
	if part, ok := strings.CutPrefix(want.message, "~"); ok {
		assert.Contains(t, apiErr.Message, part)
	} else {
		assert.Equal(t, want.message, apiErr.Message)
	}
	var retryErr *ai.RetryError
	if want.attempts > 1 && assert.ErrorAs(t, err, &retryErr) {
		assert.Len(t, retryErr.Errors, want.attempts)
	}
}

// expiringContext returns a context whose Err becomes
// context.DeadlineExceeded when expire is called: a deadline that passes at a
// chosen event instead of at a time that load could outrun.
func expiringContext(parent context.Context) (context.Context, func()) {
	c := &expiring{Context: parent, done: make(chan struct{})}
	return c, func() { c.once.Do(func() { close(c.done) }) }
}

type expiring struct {
	context.Context
	done chan struct{}
	once sync.Once
}

func (c *expiring) Done() <-chan struct{} { return c.done }

func (c *expiring) Err() error {
	select {
	case <-c.done:
		return context.DeadlineExceeded
	default:
		return nil
	}
}

// faultServer answers every request with one reply and tracks its
// connections.
type faultServer struct {
	*httptest.Server
	n       atomic.Int32
	mu      sync.Mutex
	open    map[net.Conn]bool
	changed chan struct{}
}

func newFaultServer(t *testing.T, path string, rp reply) *faultServer {
	s := &faultServer{open: map[net.Conn]bool{}, changed: make(chan struct{}, 1)}
	s.Server = httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		s.n.Add(1)
		if r.URL.Path != path {
			t.Errorf("request to %s, want %s", r.URL.Path, path)
		}
		writeReply(w, r, rp)
	}))
	s.Config.ConnState = func(c net.Conn, st http.ConnState) {
		s.mu.Lock()
		switch st {
		case http.StateClosed, http.StateHijacked:
			delete(s.open, c)
		default:
			s.open[c] = true
		}
		s.mu.Unlock()
		select {
		case s.changed <- struct{}{}:
		default:
		}
	}
	s.Start()
	t.Cleanup(s.Close)
	return s
}

func (s *faultServer) attempts() int { return int(s.n.Load()) }

// waitClosed waits until the server has no open connection: the client
// closed every connection it did not keep idle, and its idle ones were
// closed.
func (s *faultServer) waitClosed(t *testing.T) {
	t.Helper()
	giveUp := time.After(testTimeout)
	for {
		s.mu.Lock()
		n := len(s.open)
		s.mu.Unlock()
		if n == 0 {
			return
		}
		select {
		case <-s.changed:
		case <-giveUp:
			t.Errorf("%d connections still open", n)
			return
		}
	}
}
