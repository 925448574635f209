package bedrock

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	v4 "github.com/aws/aws-sdk-go-v2/aws/signer/v4"
	"github.com/aws/aws-sdk-go-v2/config"

	"github.com/aisdkgo/ai/provider"
)

// Provider creates Amazon Bedrock language models. It is safe for
// concurrent use.
type Provider struct {
	region  string
	baseURL string
	apiKey  string
	creds   aws.CredentialsProvider
	headers http.Header
	client  *http.Client

	// The default AWS configuration, loaded on first use.
	mu     sync.Mutex
	loaded *aws.Config
}

// Option configures a [Provider].
type Option func(*Provider)

// WithRegion sets the AWS region, for example "us-east-1". Without it the
// AWS_REGION environment variable is read, then the region of the default
// AWS configuration (shared config files).
func WithRegion(region string) Option {
	return func(p *Provider) { p.region = region }
}

// WithBaseURL sets the Bedrock runtime endpoint, for example a VPC
// endpoint or a proxy. Without it the AWS_ENDPOINT_URL_BEDROCK_RUNTIME and
// AWS_ENDPOINT_URL environment variables are read, then
// https://bedrock-runtime.{region}.amazonaws.com (or the DNS suffix of the
// region's partition) is used. A trailing slash is removed.
func WithBaseURL(u string) Option {
	return func(p *Provider) { p.baseURL = strings.TrimRight(u, "/") }
}

// WithAPIKey authenticates with a Bedrock API key sent as a bearer token
// instead of SigV4 signing. Without it the AWS_BEARER_TOKEN_BEDROCK
// environment variable is read; when that is empty too, requests are
// signed with AWS credentials.
func WithAPIKey(key string) Option {
	return func(p *Provider) { p.apiKey = strings.TrimSpace(key) }
}

// WithCredentials sets the AWS credentials requests are signed with (for
// example credentials.NewStaticCredentialsProvider from
// github.com/aws/aws-sdk-go-v2/credentials). Without it the default
// credential chain of the AWS SDK is used (environment, shared files, SSO,
// container and instance roles).
func WithCredentials(c aws.CredentialsProvider) Option {
	return func(p *Provider) { p.creds = c }
}

// WithHeaders adds headers to every request; the headers of a call come
// after them.
func WithHeaders(h http.Header) Option {
	return func(p *Provider) { p.headers = h.Clone() }
}

// WithHTTPClient sets the client that sends requests; the default is
// http.DefaultClient. Signing wraps its transport.
func WithHTTPClient(c *http.Client) Option {
	return func(p *Provider) { p.client = c }
}

// New returns a provider configured by opts.
func New(opts ...Option) *Provider {
	p := &Provider{}
	for _, o := range opts {
		o(p)
	}
	return p
}

// Model returns the language model modelID (a model id such as
// "anthropic.claude-sonnet-4-5-20250929-v1:0", an inference profile id such
// as "us.anthropic.claude-sonnet-4-5-20250929-v1:0", or an ARN) reached
// through the Converse and ConverseStream APIs. Its provider name is
// "amazon-bedrock".
func (p *Provider) Model(modelID string) provider.LanguageModel {
	return &languageModel{p: p, modelID: modelID}
}

// userAgent identifies this package in requests; WithHeaders may replace it.
const userAgent = "aisdkgo-amazon-bedrock"

// SettingError reports a missing or invalid provider setting, such as the
// region or the credentials. It is not retryable.
type SettingError struct {
	// Setting names the setting.
	Setting string
	// Message says what is wrong and how to set it.
	Message string
	// Cause is the underlying error, if any.
	Cause error
}

// Error implements the error interface.
func (e *SettingError) Error() string { return e.Message }

// Unwrap returns e.Cause.
func (e *SettingError) Unwrap() error { return e.Cause }

// awsConfig loads the default AWS configuration once; a failure is not
// kept, so a later call tries again.
func (p *Provider) awsConfig(ctx context.Context) (*aws.Config, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.loaded != nil {
		return p.loaded, nil
	}
	cfg, err := config.LoadDefaultConfig(ctx)
	if err != nil {
		return nil, &SettingError{Setting: "credentials", Message: "loading the default AWS configuration: " + err.Error(), Cause: err}
	}
	p.loaded = &cfg
	return p.loaded, nil
}

// resolveRegion returns the region of the provider.
func (p *Provider) resolveRegion(ctx context.Context) (string, error) {
	if p.region != "" {
		return p.region, nil
	}
	if r := os.Getenv("AWS_REGION"); r != "" {
		return r, nil
	}
	if cfg, err := p.awsConfig(ctx); err == nil && cfg.Region != "" {
		return cfg.Region, nil
	}
	return "", &SettingError{Setting: "region", Message: "AWS region is missing: pass it with bedrock.WithRegion or set the AWS_REGION environment variable"}
}

// partitionSuffixes are the DNS suffixes of the AWS partitions other than
// the commercial one, by region prefix.
var partitionSuffixes = []struct{ prefix, suffix string }{
	{"cn-", "amazonaws.com.cn"},
	{"us-iso-", "c2s.ic.gov"},
	{"us-isob-", "sc2s.sgov.gov"},
	{"eu-isoe-", "cloud.adc-e.uk"},
	{"us-isof-", "csp.hci.ic.gov"},
	{"eusc-", "amazonaws.eu"},
}

// endpoint returns the runtime base URL.
func (p *Provider) endpoint(ctx context.Context) (string, error) {
	for _, u := range []string{p.baseURL, os.Getenv("AWS_ENDPOINT_URL_BEDROCK_RUNTIME"), os.Getenv("AWS_ENDPOINT_URL")} {
		if u != "" {
			return strings.TrimRight(u, "/"), nil
		}
	}
	region, err := p.resolveRegion(ctx)
	if err != nil {
		return "", err
	}
	suffix := "amazonaws.com"
	for _, ps := range partitionSuffixes {
		if strings.HasPrefix(region, ps.prefix) {
			suffix = ps.suffix
			break
		}
	}
	return "https://bedrock-runtime." + region + "." + suffix, nil
}

// session is what one call needs to send a request: the URL prefix, the
// headers and a client that authenticates.
type session struct {
	base    string
	headers http.Header
	client  *http.Client
}

// session resolves the endpoint and the authentication of one call. Its
// errors are *SettingError values, returned before anything is sent.
func (p *Provider) session(ctx context.Context) (*session, error) {
	base, err := p.endpoint(ctx)
	if err != nil {
		return nil, err
	}
	h := http.Header{}
	h.Set("User-Agent", userAgent)
	for k, vs := range p.headers {
		h[http.CanonicalHeaderKey(k)] = append([]string(nil), vs...)
	}
	key := p.apiKey
	if key == "" {
		key = strings.TrimSpace(os.Getenv("AWS_BEARER_TOKEN_BEDROCK"))
	}
	client := p.client
	if client == nil {
		client = http.DefaultClient
	}
	if key != "" {
		h.Set("Authorization", "Bearer "+key)
		return &session{base: base, headers: h, client: client}, nil
	}
	region, err := p.resolveRegion(ctx)
	if err != nil {
		return nil, err
	}
	creds := p.creds
	if creds == nil {
		cfg, err := p.awsConfig(ctx)
		if err != nil {
			return nil, err
		}
		creds = cfg.Credentials
	}
	if creds == nil {
		return nil, &SettingError{Setting: "credentials", Message: noCredentials}
	}
	c, err := creds.Retrieve(ctx)
	if err != nil {
		if ctx.Err() != nil {
			return nil, context.Cause(ctx)
		}
		return nil, &SettingError{Setting: "credentials", Message: noCredentials + ": " + err.Error(), Cause: err}
	}
	signed := *client
	base2 := client.Transport
	if base2 == nil {
		base2 = http.DefaultTransport
	}
	signed.Transport = &signer{base: base2, creds: c, region: region, signer: v4.NewSigner()}
	return &session{base: base, headers: h, client: &signed}, nil
}

const noCredentials = "AWS credentials are missing: set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY (or another source of the default AWS credential chain), pass bedrock.WithCredentials, or use a Bedrock API key (bedrock.WithAPIKey or AWS_BEARER_TOKEN_BEDROCK)"

// signer signs requests with AWS Signature Version 4 for the "bedrock"
// service.
type signer struct {
	base   http.RoundTripper
	creds  aws.Credentials
	region string
	signer *v4.Signer
	// now is the signing time; nil means time.Now.
	now func() time.Time
}

// RoundTrip signs a copy of r and sends it.
func (s *signer) RoundTrip(r *http.Request) (*http.Response, error) {
	var body []byte
	if r.Body != nil && r.Body != http.NoBody {
		b, err := io.ReadAll(r.Body)
		_ = r.Body.Close()
		if err != nil {
			return nil, fmt.Errorf("bedrock: reading the request body to sign it: %w", err)
		}
		body = b
	}
	sum := sha256.Sum256(body)
	out := r.Clone(r.Context())
	out.Body = io.NopCloser(bytes.NewReader(body))
	out.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(body)), nil }
	out.ContentLength = int64(len(body))
	now := time.Now
	if s.now != nil {
		now = s.now
	}
	if err := s.signer.SignHTTP(r.Context(), s.creds, out, hex.EncodeToString(sum[:]), "bedrock", s.region, now()); err != nil {
		return nil, fmt.Errorf("bedrock: signing the request: %w", err)
	}
	return s.base.RoundTrip(out)
}
