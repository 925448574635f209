package google

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"regexp"
	"strings"

	"github.com/aisdkgo/ai/internal/httpx"
	"github.com/aisdkgo/ai/internal/sse"
	"github.com/aisdkgo/ai/provider"
)

// languageModel is a Gemini model. It holds no per-call state, so one value
// serves concurrent calls.
type languageModel struct {
	p       *Provider
	modelID string
	caps    capabilities
}

// Provider returns "google.generative-ai", or "google.vertex.chat" on
// Vertex AI.
func (m *languageModel) Provider() string {
	if m.p.cfg.vertex {
		return "google.vertex.chat"
	}
	return "google.generative-ai"
}

// ModelID returns the model id given to [Provider.Model].
func (m *languageModel) ModelID() string { return m.modelID }

var (
	filesAPIURL  = regexp.MustCompile(`^https://generativelanguage\.googleapis\.com/v1beta/files/.*$`)
	youtubeURL   = regexp.MustCompile(`^https://(?:www\.)?youtube\.com/watch\?v=[\w-]+(?:&[\w=&.-]*)?$`)
	youtuBeURL   = regexp.MustCompile(`^https://youtu\.be/[\w-]+(?:\?[\w=&.-]*)?$`)
	httpsURL     = regexp.MustCompile(`^https://.*$`)
	httpOrGCSURL = []*regexp.Regexp{regexp.MustCompile(`^https?://.*$`), regexp.MustCompile(`^gs://.*$`)}
	gemini20     = regexp.MustCompile(`(^|/)gemini-2\.0`)
	geminiPrefix = regexp.MustCompile(`(^|/)gemini-`)
)

// externalURLTypes are the media types Gemini fetches from public https
// URLs itself.
var externalURLTypes = []string{
	"text/html", "text/css", "text/plain", "text/xml", "text/csv", "text/rtf", "text/javascript",
	"application/json", "application/pdf",
	"image/bmp", "image/jpeg", "image/png", "image/webp",
	"video/mp4", "video/mpeg", "video/quicktime", "video/avi", "video/x-flv", "video/mpg", "video/webm", "video/wmv", "video/3gpp",
}

// SupportedURLs reports the file URLs the API reads itself: on the Gemini
// API its files, YouTube videos and, for Gemini models after 2.0, public
// https URLs of common document, image and video types; on Vertex AI any
// http(s) and gs:// URL.
func (m *languageModel) SupportedURLs(context.Context) (map[string][]*regexp.Regexp, error) {
	if m.p.cfg.vertex {
		return map[string][]*regexp.Regexp{"*": httpOrGCSURL}, nil
	}
	own := regexp.MustCompile("^" + regexp.QuoteMeta(m.p.cfg.baseURL) + "/files/.*$")
	out := map[string][]*regexp.Regexp{"*": {filesAPIURL, own, youtubeURL, youtuBeURL}}
	if geminiPrefix.MatchString(m.modelID) && !gemini20.MatchString(m.modelID) {
		for _, t := range externalURLTypes {
			out[t] = []*regexp.Regexp{httpsURL}
		}
	}
	return out, nil
}

// modelPath is the model's path below the API root.
func (m *languageModel) modelPath() string {
	if strings.Contains(m.modelID, "/") {
		return m.modelID
	}
	return "models/" + m.modelID
}

// sent is a successful response with what was sent.
type sent struct {
	resp    *httpx.Response
	url     string
	headers http.Header
}

// maxContinuations bounds the requests one long answer may be continued
// with (Gemini 4 long decode).
const maxContinuations = 32

// send prepares and posts a call.
func (m *languageModel) send(ctx context.Context, opts *provider.CallOptions, stream bool) (*request, *sent, error) {
	if opts == nil {
		opts = &provider.CallOptions{}
	}
	req, err := m.buildRequest(opts, stream)
	if err != nil {
		return nil, nil, err
	}
	headers, root, err := m.p.requestHeaders(http.Header(opts.Headers))
	if err != nil {
		return nil, nil, err
	}
	for k, vs := range req.headers {
		headers[k] = vs
	}
	url := root + "/" + m.modelPath() + ":generateContent"
	if stream {
		url = root + "/" + m.modelPath() + ":streamGenerateContent?alt=sse"
	}
	s, err := m.post(ctx, req, url, headers)
	if err != nil {
		return nil, nil, err
	}
	return req, s, nil
}

// post sends the request body (again, for a continuation).
func (m *languageModel) post(ctx context.Context, req *request, url string, headers http.Header) (*sent, error) {
	resp, err := httpx.Post(ctx, httpx.Request{
		Client:       m.p.cfg.client,
		URL:          url,
		Headers:      headers,
		Body:         req.body,
		ErrorMessage: errorMessage,
	})
	if err != nil {
		return nil, addRetryHint(err)
	}
	return &sent{resp: resp, url: url, headers: headers}, nil
}

// continuation returns the token to continue a candidate with, when it
// stopped at the per-request cap with budget left.
func continuation(c *wireCandidate) string {
	if c.FinishReason == "CONTINUATION" && c.ContinuationToken != nil {
		return *c.ContinuationToken
	}
	return ""
}

// Generate runs one generateContent call. An error reported in a
// successful response fails the call like an error status would. An answer
// that stops at the per-request cap with budget left (finish reason
// CONTINUATION) is continued with further requests, whose content is
// appended and whose usage is added up.
func (m *languageModel) Generate(ctx context.Context, opts *provider.CallOptions) (*provider.GenerateResult, error) {
	req, s, err := m.send(ctx, opts, false)
	if err != nil {
		return nil, err
	}
	conv := &responseConverter{m: m, req: req}
	var (
		content    []provider.Content
		usageSum   json.RawMessage
		groundings []any
		firstInput *int
	)
	for hop := 0; ; hop++ {
		var wire wireResponse
		raw, err := s.resp.ReadJSON(ctx, &wire)
		if err != nil {
			return nil, err
		}
		if wire.Error != nil {
			return nil, apiError(*wire.Error, s.url, s.resp.RequestBody, s.resp.HTTP.Header, raw)
		}
		var cand wireCandidate
		if len(wire.Candidates) > 0 {
			cand = wire.Candidates[0]
		}
		groundings = append(groundings, anyJSON(cand.GroundingMetadata))
		if hop == 0 {
			var u usage
			if !isNull(wire.UsageMetadata) {
				_ = json.Unmarshal(wire.UsageMetadata, &u)
			}
			firstInput = u.PromptTokenCount
		}
		usageSum = addUsage(usageSum, wire.UsageMetadata)
		var parts []wirePart
		if cand.Content != nil {
			parts = cand.Content.Parts
		}
		got, err := conv.generateContent(parts)
		if err != nil {
			return nil, err
		}
		for _, src := range conv.sources(cand.GroundingMetadata, nil) {
			got = append(got, src)
		}
		content = append(content, got...)
		if token := continuation(&cand); token != "" && hop < maxContinuations {
			req.body.ContinuationToken = token
			if s, err = m.post(ctx, req, s.url, s.headers); err != nil {
				return nil, err
			}
			continue
		}
		block := blockReason(wire.PromptFeedback)
		finish := provider.FinishReason{Unified: mapFinishReason(cand.FinishReason, hasClientCalls(content)), Raw: cand.FinishReason}
		if cand.FinishReason == "" && block != "" {
			finish = provider.FinishReason{Unified: provider.FinishContentFilter, Raw: block}
		}
		meta := callMetadata{
			promptFeedback:     wire.PromptFeedback,
			groundingMetadata:  cand.GroundingMetadata,
			urlContextMetadata: cand.URLContextMetadata,
			safetyRatings:      cand.SafetyRatings,
			usageMetadata:      usageSum,
			finishMessage:      cand.FinishMessage,
			continuationToken:  cand.ContinuationToken,
			headers:            s.resp.HTTP.Header,
		}
		payload := meta.payload()
		if hop > 0 {
			payload["groundingMetadataPerRequest"] = groundings
			if firstInput != nil {
				payload["initialPromptTokenCount"] = *firstInput
			}
		}
		return &provider.GenerateResult{
			Content:          content,
			FinishReason:     finish,
			Usage:            convertUsage(usageSum),
			Warnings:         req.warnings,
			ProviderMetadata: m.p.metadata(payload),
			Request:          &provider.RequestInfo{URL: s.url, Body: s.resp.RequestBody},
			Response: &provider.ResponseInfo{
				ID:      wire.ResponseID,
				ModelID: wire.ModelVersion,
				Headers: provider.Header(s.resp.HTTP.Header),
				Body:    raw,
			},
		}, nil
	}
}

// Stream runs one streamGenerateContent call. Before it returns, it reads
// the response up to the first chunk that produces output: an error
// reported as the first chunk fails the call with a
// [*provider.APICallError] (its status taken from the error's code), a
// response that is not an event stream or holds no event fails it with a
// [*provider.InvalidResponseDataError]. Errors later in the stream arrive as
// [provider.ErrorPart] values and finish the stream with
// [provider.FinishError]; a stream that ends without a finish reason
// finishes with [provider.FinishInterrupted].
//
// The returned stream must be ranged over (or ctx cancelled) to release the
// connection.
func (m *languageModel) Stream(ctx context.Context, opts *provider.CallOptions) (*provider.StreamResult, error) {
	req, s, err := m.send(ctx, opts, true)
	if err != nil {
		return nil, err
	}
	st := newStreamState(m, req, opts != nil && opts.IncludeRawChunks, s.resp.HTTP.Header, s.url, s.resp.RequestBody)
	es := s.resp.EventStream(ctx, sse.Reader{})
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
			return nil, apiError(*errFrame, s.url, s.resp.RequestBody, s.resp.HTTP.Header, []byte(ev.Data))
		}
		pending = append(pending, parts...)
		if hasOutput(parts) {
			break
		}
	}

	used := false
	stream := func(yield func(provider.StreamPart, error) bool) {
		if used {
			yield(nil, errors.New("google: the stream was already consumed"))
			return
		}
		used = true
		defer func() { stop() }()
		if !yield(provider.StreamStart{Warnings: req.warnings}, nil) {
			return
		}
		for _, p := range pending {
			if !yield(p, nil) {
				return
			}
		}
		pending = nil
		for {
			if !done {
				ev, err, ok := next()
				if !ok {
					done = true
					continue
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
				continue
			}
			// A long answer that reached the per-request cap goes on in a
			// new request.
			if st.pending == "" || st.hops >= maxContinuations {
				break
			}
			req.body.ContinuationToken = st.pending
			st.pending = ""
			st.hops++
			s2, err := m.post(ctx, req, s.url, s.headers)
			if err != nil {
				if ctx.Err() != nil {
					yield(nil, context.Cause(ctx))
					return
				}
				if !yield(provider.ErrorPart{Err: err}, nil) {
					return
				}
				break
			}
			stop()
			s = s2
			es = s.resp.EventStream(ctx, sse.Reader{})
			next, stop = es.Next, es.Stop
			done = false
			st.continued()
		}
		for _, p := range st.end() {
			if !yield(p, nil) {
				return
			}
		}
	}
	return &provider.StreamResult{
		Stream:   stream,
		Request:  &provider.RequestInfo{URL: s.url, Body: s.resp.RequestBody},
		Response: &provider.ResponseInfo{Headers: provider.Header(s.resp.HTTP.Header)},
	}, nil
}

// hasOutput reports whether parts holds anything beside raw chunks and
// response metadata.
func hasOutput(parts []provider.StreamPart) bool {
	for _, p := range parts {
		switch p.(type) {
		case provider.Raw, provider.ResponseMetadata:
		default:
			return true
		}
	}
	return false
}
