package anthropic

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"regexp"

	"github.com/aisdkgo/ai/internal/httpx"
	"github.com/aisdkgo/ai/internal/sse"
	"github.com/aisdkgo/ai/provider"
)

// languageModel is a model of the Messages API. It holds no per-call state,
// so one value serves concurrent calls.
type languageModel struct {
	p       *Provider
	modelID string
}

// Provider returns "anthropic.messages".
func (m *languageModel) Provider() string { return "anthropic.messages" }

// ModelID returns the model id given to [Provider.Model].
func (m *languageModel) ModelID() string { return m.modelID }

var httpURL = regexp.MustCompile(`^https?://.*$`)

// SupportedURLs reports that images and PDFs given by http(s) URL are
// fetched by the API itself.
func (m *languageModel) SupportedURLs(context.Context) (map[string][]*regexp.Regexp, error) {
	return map[string][]*regexp.Regexp{
		"image/*":         {httpURL},
		"application/pdf": {httpURL},
	}, nil
}

// send prepares and posts a call. It returns the request and the response
// of a 2xx status.
func (m *languageModel) send(ctx context.Context, opts *provider.CallOptions, stream bool) (*request, *httpx.Response, error) {
	if opts == nil {
		opts = &provider.CallOptions{}
	}
	req, err := m.buildRequest(opts, stream)
	if err != nil {
		return nil, nil, err
	}
	headers, err := m.p.requestHeaders(http.Header(opts.Headers), req.betas)
	if err != nil {
		return nil, nil, err
	}
	resp, err := httpx.Post(ctx, httpx.Request{
		Client:       m.p.cfg.client,
		URL:          m.p.messagesURL(),
		Headers:      headers,
		Body:         req.body,
		ErrorMessage: errorMessage,
	})
	if err != nil {
		return nil, nil, err
	}
	return req, resp, nil
}

// Generate runs one non-streaming call.
func (m *languageModel) Generate(ctx context.Context, opts *provider.CallOptions) (*provider.GenerateResult, error) {
	req, r, err := m.send(ctx, opts, false)
	if err != nil {
		return nil, err
	}
	url := m.p.messagesURL()
	var wire messageResponse
	raw, err := r.ReadJSON(ctx, &wire)
	if err != nil {
		return nil, err
	}
	if wire.Type == "error" {
		// An error without a message; one with a message failed above.
		msg := "the response is an error"
		if wire.Error != nil && wire.Error.Type != "" {
			msg = wire.Error.Type
		}
		return nil, r.Fail(msg, false, raw, nil)
	}

	conv := newBlockConverter(req, m.p.cfg.newID)
	content, jsonAnswered := conv.generateContent(&wire, req.usesJSONTool)
	stop := ""
	if wire.StopReason != nil {
		stop = *wire.StopReason
	}
	var totals usageTotals
	var u wireUsage
	json.Unmarshal(wire.Usage, &u)
	totals.merge(u)
	return &provider.GenerateResult{
		Content:      content,
		FinishReason: finishReason(stop, jsonAnswered),
		Usage:        totals.usage(wire.Usage),
		Warnings:     req.warnings,
		ProviderMetadata: callMetadata{
			rawUsage:          toAny(wire.Usage),
			totals:            &totals,
			stopSequence:      wire.StopSequence,
			stopDetails:       wire.StopDetails,
			container:         wire.Container,
			contextManagement: wire.ContextManagement,
		}.metadata(),
		Request: &provider.RequestInfo{URL: url, Body: r.RequestBody},
		Response: &provider.ResponseInfo{
			ID:      wire.ID,
			ModelID: wire.Model,
			Headers: provider.Header(r.HTTP.Header),
			Body:    raw,
		},
	}, nil
}

// Stream runs one streaming call. Before it returns, it reads the response
// up to the first event that produces output: Anthropic may answer HTTP 200
// and then report an error (for example overload) as the first event, and
// such a call fails here with a [provider.APICallError] whose status and
// retryability follow the error's type (see [StreamError.Retryable])
// instead of starting a stream. A response that ends before any event fails
// here too. Errors later in the stream arrive as [provider.ErrorPart]
// values holding a [*StreamError].
//
// The returned stream must be ranged over (or ctx cancelled) to release the
// connection.
func (m *languageModel) Stream(ctx context.Context, opts *provider.CallOptions) (*provider.StreamResult, error) {
	req, r, err := m.send(ctx, opts, true)
	if err != nil {
		return nil, err
	}
	return m.readStream(ctx, req, r, opts != nil && opts.IncludeRawChunks)
}

// readStream reads a streaming response up to its first output and returns
// the stream of the rest.
func (m *languageModel) readStream(ctx context.Context, req *request, r *httpx.Response, includeRaw bool) (*provider.StreamResult, error) {
	url := m.p.messagesURL()
	st := newStreamState(req, includeRaw, m.p.cfg.newID)
	es := r.EventStream(ctx, sse.Reader{})
	next, stop := es.Next, es.Stop

	// Read up to the first output.
	var pending []provider.StreamPart
	done := false
	for {
		ev, err, ok := next()
		if !ok {
			done = true
			break
		}
		if err != nil {
			stop()
			return nil, err
		}
		parts, errFrame := st.process(ev.Data)
		if errFrame != nil && !hasOutput(pending) {
			stop()
			return nil, errorInResponse(*errFrame, url, r.RequestBody, r.HTTP.Header)
		}
		pending = append(pending, parts...)
		if hasOutput(parts) {
			break
		}
	}

	used := false
	stream := func(yield func(provider.StreamPart, error) bool) {
		if used {
			yield(nil, errors.New("anthropic: the stream was already consumed"))
			return
		}
		used = true
		defer stop()
		if !yield(provider.StreamStart{Warnings: req.warnings}, nil) {
			return
		}
		for _, p := range pending {
			if !yield(p, nil) {
				return
			}
		}
		pending = nil
		for !done {
			ev, err, ok := next()
			if !ok {
				break
			}
			if err != nil {
				yield(nil, err)
				return
			}
			parts, _ := st.process(ev.Data)
			for _, p := range parts {
				if !yield(p, nil) {
					return
				}
			}
		}
		for _, p := range st.end() {
			if !yield(p, nil) {
				return
			}
		}
	}
	return &provider.StreamResult{
		Stream:   stream,
		Request:  &provider.RequestInfo{URL: url, Body: r.RequestBody},
		Response: &provider.ResponseInfo{Headers: provider.Header(r.HTTP.Header)},
	}, nil
}

// hasOutput reports whether parts holds anything beside raw chunks.
func hasOutput(parts []provider.StreamPart) bool {
	for _, p := range parts {
		if _, raw := p.(provider.Raw); !raw {
			return true
		}
	}
	return false
}
