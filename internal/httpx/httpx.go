// Package httpx holds the HTTP plumbing the providers share: JSON requests,
// API errors and server-sent event streams.
//
// Every way a response can fail becomes one kind of error here, the same for
// every provider:
//
//   - an error status is a [provider.APICallError] with that status,
//     retryable for 408, 409, 429 and 5xx;
//   - a lost connection before the answer is a retryable APICallError
//     without status;
//   - a 2xx body that is cut off while it is read is a retryable
//     APICallError with the response's status and the read error as its
//     cause;
//   - a 2xx body that is not what the protocol says (empty, an HTML page,
//     invalid JSON, an error object, a stream without any event, a stream
//     line over the limit) is an APICallError with the response's status
//     that is not retryable: sending the same request again gets the same
//     answer. Except for an error object (whose message it takes), its
//     cause is a [provider.InvalidResponseDataError] with the data;
//   - when the context ends, its cause is returned.
package httpx

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"iter"
	"mime"
	"net/http"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/aisdkgo/ai/internal/sse"
	"github.com/aisdkgo/ai/provider"
)

// maxErrorBody bounds how much of an error response is read.
const maxErrorBody = 1 << 20

// MaxBody bounds a non-streaming response body.
const MaxBody = 256 << 20

// maxHead bounds how much of a stream is kept to report what arrived when it
// holds no event.
const maxHead = 64 << 10

// Request is one JSON POST request.
type Request struct {
	// Client sends the request; nil means http.DefaultClient.
	Client *http.Client
	// URL is the full request URL.
	URL string
	// Headers are sent with the request; Content-Type is set to JSON.
	Headers http.Header
	// Body is marshalled as the JSON request body.
	Body any
	// ErrorMessage extracts a message from an error response body; it
	// returns "" when the body is not in the provider's error format.
	ErrorMessage func(body []byte) string
}

// Response is a 2xx answer to a request sent with [Post]. Its body is read
// with [Response.ReadJSON] or [Response.Events], which close it.
type Response struct {
	// HTTP is the response.
	HTTP *http.Response
	// URL and RequestBody are the request's.
	URL         string
	RequestBody []byte
	// ErrorMessage is the request's; it finds errors in 2xx bodies.
	ErrorMessage func(body []byte) string
}

// errorIn returns the message of an error in the provider's error format,
// or "".
func (r *Response) errorIn(body []byte) string {
	if r.ErrorMessage == nil || len(body) == 0 {
		return ""
	}
	return r.ErrorMessage(body)
}

// Post sends r and returns the response of a 2xx status. Any other status
// becomes a *provider.APICallError; a transport failure becomes a retryable
// one unless ctx ended, in which case ctx's cause is returned. The caller
// reads (or closes) the response body.
func Post(ctx context.Context, r Request) (*Response, error) {
	body, err := json.Marshal(r.Body)
	if err != nil {
		return nil, err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, r.URL, bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	for k, vs := range r.Headers {
		for _, v := range vs {
			req.Header.Add(k, v)
		}
	}
	req.Header.Set("Content-Type", "application/json")
	client := r.Client
	if client == nil {
		client = http.DefaultClient
	}
	resp, err := client.Do(req)
	if err != nil {
		if ctx.Err() != nil {
			return nil, context.Cause(ctx)
		}
		return nil, &provider.APICallError{
			Message:     err.Error(),
			URL:         r.URL,
			RequestBody: body,
			Retryable:   true,
			Cause:       err,
		}
	}
	if resp.StatusCode >= 200 && resp.StatusCode < 300 {
		return &Response{HTTP: resp, URL: r.URL, RequestBody: body, ErrorMessage: r.ErrorMessage}, nil
	}
	defer resp.Body.Close()
	respBody, _ := io.ReadAll(io.LimitReader(resp.Body, maxErrorBody))
	if ctx.Err() != nil {
		// The call was cancelled while the error body arrived.
		return nil, context.Cause(ctx)
	}
	msg := ""
	if len(respBody) > 0 && r.ErrorMessage != nil {
		msg = r.ErrorMessage(respBody)
	}
	if msg == "" {
		msg = http.StatusText(resp.StatusCode)
	}
	return nil, &provider.APICallError{
		Message:         msg,
		URL:             r.URL,
		StatusCode:      resp.StatusCode,
		RequestBody:     body,
		ResponseHeaders: provider.Header(resp.Header),
		ResponseBody:    respBody,
		Retryable:       provider.IsRetryableStatus(resp.StatusCode),
	}
}

// Fail returns an API error about the response: message says what went
// wrong, body is the offending data (if any) and cause the underlying error.
func (r *Response) Fail(message string, retryable bool, body []byte, cause error) *provider.APICallError {
	return &provider.APICallError{
		Message:         message,
		URL:             r.URL,
		StatusCode:      r.HTTP.StatusCode,
		RequestBody:     r.RequestBody,
		ResponseHeaders: provider.Header(r.HTTP.Header),
		ResponseBody:    body,
		Retryable:       retryable,
		Cause:           cause,
	}
}

// ReadJSON reads the whole body, closes it and decodes it into v. It
// returns the raw bytes as well. A body that is cut off is a retryable
// error; an empty body, one in the provider's error format and one that is
// not JSON are not retryable (the last with a
// *provider.InvalidResponseDataError as its cause).
func (r *Response) ReadJSON(ctx context.Context, v any) ([]byte, error) {
	defer r.HTTP.Body.Close()
	data, err := r.readBody()
	if err != nil {
		if ctx.Err() != nil {
			return nil, context.Cause(ctx)
		}
		return nil, r.Fail(fmt.Sprintf("the response body was cut off after %d bytes: %v", len(data), err), true, nil, err)
	}
	if len(data) > MaxBody {
		return nil, r.Fail(fmt.Sprintf("the response body is larger than %d MiB", MaxBody>>20), false, nil, nil)
	}
	if len(bytes.TrimSpace(data)) == 0 {
		return nil, r.invalid("the response body is empty", data)
	}
	if msg := r.errorIn(data); msg != "" {
		return nil, r.Fail(msg, false, data, nil)
	}
	if err := json.Unmarshal(data, v); err != nil {
		if invalid, ok := errors.AsType[*provider.InvalidResponseDataError](err); ok {
			// A value the response type refuses.
			return data, r.Fail("invalid response: "+invalid.Message, false, data, &provider.InvalidResponseDataError{Data: data, Message: invalid.Message})
		}
		invalid := &provider.InvalidResponseDataError{Data: data, Message: err.Error()}
		msg := "the response body is not valid JSON: " + err.Error()
		if ct := r.mediaType(); ct != "" && ct != "application/json" && !strings.HasSuffix(ct, "+json") {
			msg = fmt.Sprintf("the response is not JSON (Content-Type %q): %s", r.HTTP.Header.Get("Content-Type"), snippet(data))
		}
		return data, r.Fail(msg, false, data, invalid)
	}
	return data, nil
}

// readBody reads the whole body, at most MaxBody+1 bytes of it. A body of
// known length is read into one slice of that size; any other is gathered
// by io.ReadAll, which copies what it gathered into one slice of the final
// size. Either way the body is held once when decoding starts: the bytes
// are decoded in place and kept as the result's raw body.
func (r *Response) readBody() ([]byte, error) {
	body := io.LimitReader(r.HTTP.Body, MaxBody+1)
	n := r.HTTP.ContentLength
	if n <= 0 || n > MaxBody {
		return io.ReadAll(body)
	}
	data := make([]byte, n)
	if got, err := io.ReadFull(body, data); err != nil {
		// Fewer bytes than announced (io.ErrUnexpectedEOF when the reader
		// itself saw a clean end): the body was cut off.
		return data[:got], err
	}
	// The transport stops at the announced length; read on anyway, to see
	// the end (or an error) of a body that is not framed by it.
	var probe [1]byte
	switch m, err := body.Read(probe[:]); {
	case m > 0:
		rest, err := io.ReadAll(body)
		return append(append(data, probe[0]), rest...), err
	case err != nil && err != io.EOF:
		return data, err
	}
	return data, nil
}

func (r *Response) mediaType() string {
	mt, _, _ := mime.ParseMediaType(r.HTTP.Header.Get("Content-Type"))
	return mt
}

// Events yields the events of the response body as rd reads them, skipping
// "[DONE]" terminators and a final event that was cut off inside its data,
// and closes the body when iteration ends (also when the consumer stops
// early, and when ctx ends). The sequence ends with an error when the body
// breaks (retryable), holds no event at all, or has a line that rd does not
// accept (neither retryable), and with ctx's cause when ctx ends.
func (r *Response) Events(ctx context.Context, rd sse.Reader) iter.Seq2[sse.Event, error] {
	return func(yield func(sse.Event, error) bool) {
		s := r.EventStream(ctx, rd)
		defer s.Stop()
		for {
			ev, err, ok := s.Next()
			if !ok || !yield(ev, err) || err != nil {
				return
			}
		}
	}
}

// EventStream reads the events of a response one at a time on the
// caller's goroutine; see [Response.EventStream].
type EventStream struct {
	r      *Response
	ctx    context.Context
	rd     sse.Reader
	dec    *sse.Decoder
	head   *headRecorder
	events int
	// unwatch stops closing the body when ctx ends.
	unwatch func() bool
	done    bool
}

// EventStream returns the events of the response body with the rules of
// [Response.Events], pulled with [EventStream.Next]. No goroutine reads
// ahead: an EventStream that is dropped without Stop holds nothing but the
// body, which is closed when ctx ends.
func (r *Response) EventStream(ctx context.Context, rd sse.Reader) *EventStream {
	body := r.HTTP.Body
	head := &headRecorder{r: body}
	return &EventStream{
		r: r, ctx: ctx, rd: rd, head: head,
		dec:     rd.NewDecoder(head),
		unwatch: context.AfterFunc(ctx, func() { body.Close() }),
	}
}

// Next returns the next event, or an error that ends the stream; ok is
// false once the stream has ended. The body is closed when the stream ends.
func (s *EventStream) Next() (ev sse.Event, err error, ok bool) {
	for !s.done {
		ev, err := s.dec.Next()
		switch {
		case err == io.EOF:
			s.Stop()
			if s.ctx.Err() != nil {
				return sse.Event{}, context.Cause(s.ctx), true
			}
			if s.events == 0 {
				return sse.Event{}, s.r.noEvents(s.head.buf), true
			}
			return sse.Event{}, nil, false
		case err != nil:
			s.Stop()
			return sse.Event{}, s.r.streamError(s.ctx, err, s.rd), true
		case ev.Data == "[DONE]" || (ev.Partial && !json.Valid([]byte(ev.Data))):
			continue
		}
		s.events++
		return ev, nil, true
	}
	return sse.Event{}, nil, false
}

// Stop ends the stream and closes the body. It may be called more than
// once.
func (s *EventStream) Stop() {
	if s.done {
		return
	}
	s.done = true
	s.unwatch()
	s.r.HTTP.Body.Close()
}

// streamError turns an error reading the stream into the error that ends
// it.
func (r *Response) streamError(ctx context.Context, err error, rd sse.Reader) error {
	if ctx.Err() != nil {
		return context.Cause(ctx)
	}
	if errors.Is(err, sse.ErrLineTooLong) {
		limit := rd.MaxLine
		if limit <= 0 {
			limit = sse.DefaultMaxLine
		}
		return r.invalid(fmt.Sprintf("a line of the event stream is longer than %s", size(limit)), nil)
	}
	return r.Fail("the response stream was cut off: "+err.Error(), true, nil, err)
}

// noEvents is the error of a stream that ended without any event; head is
// the beginning of what arrived instead.
func (r *Response) noEvents(head []byte) error {
	if len(bytes.TrimSpace(head)) == 0 {
		return r.invalid("the response body is empty", head)
	}
	if msg := r.errorIn(head); msg != "" {
		return r.Fail(msg, false, head, nil)
	}
	if r.mediaType() != "text/event-stream" {
		return r.invalid(fmt.Sprintf("the response is not an event stream (Content-Type %q): %s",
			r.HTTP.Header.Get("Content-Type"), snippet(head)), head)
	}
	return r.invalid("the response stream ended without any event: "+snippet(head), head)
}

// invalid is the error of a 2xx body that is not what the protocol sends:
// not retryable, with a *provider.InvalidResponseDataError holding the
// offending data as its cause.
func (r *Response) invalid(message string, data []byte) *provider.APICallError {
	return r.Fail(message, false, data, &provider.InvalidResponseDataError{Data: data, Message: message})
}

// size renders a byte count for messages.
func size(n int) string {
	if n >= 1<<20 && n%(1<<20) == 0 {
		return fmt.Sprintf("%d MiB", n>>20)
	}
	return fmt.Sprintf("%d bytes", n)
}

// headRecorder keeps the first maxHead bytes read through it.
type headRecorder struct {
	r   io.Reader
	buf []byte
}

func (h *headRecorder) Read(p []byte) (int, error) {
	n, err := h.r.Read(p)
	if room := maxHead - len(h.buf); room > 0 {
		h.buf = append(h.buf, p[:min(n, room)]...)
	}
	return n, err
}

// snippet returns the beginning of data for an error message, with control
// characters and invalid UTF-8 replaced.
func snippet(data []byte) string {
	const max = 200
	var b strings.Builder
	for i, w := 0, 0; i < len(data); i += w {
		c, size := utf8.DecodeRune(data[i:])
		w = size
		if b.Len() >= max {
			b.WriteString("…")
			break
		}
		switch {
		case c == utf8.RuneError && size == 1:
			b.WriteRune(unicode.ReplacementChar)
		case c == '\n' || c == '\r' || c == '\t':
			b.WriteByte(' ')
		case unicode.IsControl(c):
			b.WriteRune(unicode.ReplacementChar)
		default:
			b.WriteRune(c)
		}
	}
	return strings.TrimSpace(b.String())
}

// Vector is a JSON array of numbers in a response, such as an embedding.
// A null, for the array or for one of its numbers, fails decoding with a
// *provider.InvalidResponseDataError (which [Response.ReadJSON] reports as
// such) instead of becoming nil or 0.
type Vector []float64

// UnmarshalJSON implements json.Unmarshaler.
func (v *Vector) UnmarshalJSON(data []byte) error {
	// An array of numbers holds no letter n but in a null.
	if bytes.Contains(data, []byte("null")) {
		return &provider.InvalidResponseDataError{Data: data, Message: "a vector holds null where a number belongs"}
	}
	var f []float64
	if err := json.Unmarshal(data, &f); err != nil {
		return err
	}
	*v = f
	return nil
}
