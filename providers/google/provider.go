package google

import (
	"crypto/rand"
	"errors"
	"fmt"
	"net/http"
	"os"
	"regexp"
	"strings"

	"github.com/aisdkgo/ai/provider"
)

// DefaultBaseURL is the Gemini API root used when [WithBaseURL] gives none.
const DefaultBaseURL = "https://generativelanguage.googleapis.com/v1beta"

// vertexExpressBaseURL is the Vertex AI root of express mode (an API key,
// no project).
const vertexExpressBaseURL = "https://aiplatform.googleapis.com/v1/publishers/google"

// userAgent identifies this package in requests; it is appended to a
// User-Agent given with the headers.
const userAgent = "aisdkgo-google"

// Provider creates Gemini language and embedding models, on the Gemini API
// or on Vertex AI ([WithVertex]). Create one with [New]; it is safe for
// concurrent use.
type Provider struct {
	cfg config
}

type config struct {
	apiKey  string
	baseURL string
	headers http.Header
	client  *http.Client
	newID   func() string

	vertex          bool
	project         string
	location        string
	explicitBaseURL bool
}

// Option configures a [Provider].
type Option func(*config)

// WithAPIKey sets the API key, sent as the x-goog-api-key header. Without it
// the GOOGLE_GENERATIVE_AI_API_KEY environment variable is read at each call
// (GOOGLE_VERTEX_API_KEY with [WithVertex], where a key is optional).
func WithAPIKey(key string) Option {
	return func(c *config) { c.apiKey = key }
}

// WithBaseURL sets the API root, for example a proxy, or a Vertex AI
// endpoint together with [WithVertex]. Model paths are appended to it
// ("{baseURL}/models/gemini-2.5-flash:generateContent"). A trailing slash is
// removed.
func WithBaseURL(u string) Option {
	return func(c *config) {
		c.baseURL = strings.TrimRight(u, "/")
		c.explicitBaseURL = c.baseURL != ""
	}
}

// WithHeaders adds headers to every request. They are applied after the
// API key header, and the headers of a call are applied after them.
func WithHeaders(h http.Header) Option {
	return func(c *config) { c.headers = h.Clone() }
}

// WithHTTPClient sets the client that sends requests; the default is
// http.DefaultClient. On Vertex AI without an API key the client
// authenticates the requests, for example one made by
// golang.org/x/oauth2/google.DefaultClient with the
// "https://www.googleapis.com/auth/cloud-platform" scope.
func WithHTTPClient(client *http.Client) Option {
	return func(c *config) { c.client = client }
}

// WithVertex targets Vertex AI instead of the Gemini API: requests go to
// https://{location}-aiplatform.googleapis.com/v1beta1/projects/{project}/locations/{location}/publishers/google
// (aiplatform.googleapis.com for location "global"), unless [WithBaseURL]
// gives another root; the GOOGLE_VERTEX_PROJECT and GOOGLE_VERTEX_LOCATION
// environment variables stand in for empty arguments. Authentication comes
// from the HTTP client ([WithHTTPClient]) or from an express-mode API key
// ([WithAPIKey] or GOOGLE_VERTEX_API_KEY), with which requests go to
// express mode's root and the project and location are not used.
//
// Vertex models report the provider names "google.vertex.chat" and
// "google.vertex.embedding", read their provider options under
// "googleVertex", then "vertex", then "google", and write their metadata
// under "googleVertex" and "vertex". Function calls and responses are sent
// without ids, and function-call arguments may be streamed
// (streamFunctionCallArguments).
func WithVertex(project, location string) Option {
	return func(c *config) {
		c.vertex = true
		c.project = project
		c.location = location
	}
}

// New returns a provider configured by opts.
func New(opts ...Option) *Provider {
	var c config
	for _, o := range opts {
		o(&c)
	}
	if !c.vertex && c.baseURL == "" {
		c.baseURL = DefaultBaseURL
	}
	if c.newID == nil {
		c.newID = rand.Text
	}
	return &Provider{cfg: c}
}

// Model returns the language model modelID, for example "gemini-2.5-flash"
// or "gemini-3-pro-preview". A model id containing a slash is used as the
// model's path ("tunedModels/my-model"). The model also implements
// [provider.URLSupporter].
func (p *Provider) Model(modelID string) provider.LanguageModel {
	return &languageModel{p: p, modelID: modelID, caps: capabilitiesOf(modelID)}
}

// Embedding returns the embedding model modelID, for example
// "gemini-embedding-001" (or, on Vertex AI, "text-embedding-005").
func (p *Provider) Embedding(modelID string) provider.EmbeddingModel {
	if p.cfg.vertex {
		return &vertexEmbeddingModel{p: p, modelID: modelID}
	}
	return &embeddingModel{p: p, modelID: modelID}
}

var dnsLabel = regexp.MustCompile(`^[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?$`)

// root returns the API root of a call, loading the Vertex settings.
func (p *Provider) root(key string) (string, error) {
	if !p.cfg.vertex || p.cfg.explicitBaseURL {
		return p.cfg.baseURL, nil
	}
	if key != "" {
		return vertexExpressBaseURL, nil
	}
	project, location := p.cfg.project, p.cfg.location
	if project == "" {
		project = os.Getenv("GOOGLE_VERTEX_PROJECT")
	}
	if location == "" {
		location = os.Getenv("GOOGLE_VERTEX_LOCATION")
	}
	if project == "" || location == "" {
		return "", errors.New("google: the Vertex project and location are missing: pass them to google.WithVertex, set GOOGLE_VERTEX_PROJECT and GOOGLE_VERTEX_LOCATION, or give the endpoint with google.WithBaseURL")
	}
	if !dnsLabel.MatchString(location) {
		return "", fmt.Errorf("google: invalid Vertex location %q: expected a single DNS label; use WithBaseURL for custom endpoints", location)
	}
	host := location + "-aiplatform.googleapis.com"
	switch location {
	case "global":
		host = "aiplatform.googleapis.com"
	case "eu", "us":
		host = "aiplatform." + location + ".rep.googleapis.com"
	}
	return "https://" + host + "/v1beta1/projects/" + project + "/locations/" + location + "/publishers/google", nil
}

// requestHeaders returns the headers and API root of one request.
func (p *Provider) requestHeaders(call http.Header) (http.Header, string, error) {
	key := p.cfg.apiKey
	if key == "" {
		if p.cfg.vertex {
			key = os.Getenv("GOOGLE_VERTEX_API_KEY")
		} else {
			key = os.Getenv("GOOGLE_GENERATIVE_AI_API_KEY")
		}
	}
	if key == "" && !p.cfg.vertex {
		return nil, "", &provider.LoadAPIKeyError{Message: "Google Generative AI API key is missing: pass it with google.WithAPIKey or set the GOOGLE_GENERATIVE_AI_API_KEY environment variable"}
	}
	root, err := p.root(key)
	if err != nil {
		return nil, "", err
	}
	h := http.Header{}
	if key != "" {
		h.Set("x-goog-api-key", key)
	}
	for k, vs := range p.cfg.headers {
		h[http.CanonicalHeaderKey(k)] = append([]string(nil), vs...)
	}
	for k, vs := range call {
		h[http.CanonicalHeaderKey(k)] = append([]string(nil), vs...)
	}
	if ua := h.Get("User-Agent"); ua != "" {
		h.Set("User-Agent", ua+" "+userAgent)
	} else {
		h.Set("User-Agent", userAgent)
	}
	return h, root, nil
}

// optionKeys are the provider option keys read, first present wins, and
// metadataKeys the keys metadata is written under.
func (p *Provider) optionKeys() []string {
	if p.cfg.vertex {
		return []string{"googleVertex", "vertex", "google"}
	}
	return []string{"google"}
}

func (p *Provider) metadataKeys() []string {
	if p.cfg.vertex {
		return []string{"googleVertex", "vertex"}
	}
	return []string{"google"}
}

// metadata wraps a payload under the metadata keys.
func (p *Provider) metadata(payload map[string]any) provider.ProviderMetadata {
	md := provider.ProviderMetadata{}
	for _, k := range p.metadataKeys() {
		md[k] = payload
	}
	return md
}
