package bedrock_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	v4 "github.com/aws/aws-sdk-go-v2/aws/signer/v4"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/aisdkgo/ai/internal/eventstream"
	"github.com/aisdkgo/ai/internal/openaichat/replay"
	"github.com/aisdkgo/ai/provider"
	"github.com/aisdkgo/ai/providers/bedrock"
)

// verifySignature checks the SigV4 signature of r by signing the same
// request again, with the headers it says it signed and its date.
func verifySignature(t *testing.T, r *http.Request, body []byte, creds aws.Credentials, region string) {
	t.Helper()
	auth := r.Header.Get("Authorization")
	require.True(t, strings.HasPrefix(auth, "AWS4-HMAC-SHA256 "), "authorization %q", auth)
	_, signed, ok := strings.Cut(auth, "SignedHeaders=")
	require.True(t, ok)
	signed, _, _ = strings.Cut(signed, ",")
	when, err := time.Parse("20060102T150405Z", r.Header.Get("X-Amz-Date"))
	require.NoError(t, err)

	again, err := http.NewRequest(r.Method, "http://"+r.Host+r.URL.RequestURI(), bytes.NewReader(body))
	require.NoError(t, err)
	for _, name := range strings.Split(signed, ";") {
		if name != "host" {
			again.Header[http.CanonicalHeaderKey(name)] = r.Header.Values(name)
		}
	}
	sum := sha256.Sum256(body)
	require.NoError(t, v4.NewSigner().SignHTTP(context.Background(), creds, again, hex.EncodeToString(sum[:]), "bedrock", region, when))
	assert.Equal(t, again.Header.Get("Authorization"), auth, "signature")
}

func TestBedrockSigV4(t *testing.T) {
	t.Setenv("AWS_BEARER_TOKEN_BEDROCK", "")
	creds := aws.Credentials{AccessKeyID: "AKIDTEST", SecretAccessKey: "s3cr3t", SessionToken: "session-1"}
	var got *http.Request
	var body []byte
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ = io.ReadAll(r.Body)
		got = r
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, `{"output":{"message":{"role":"assistant","content":[{"text":"hi"}]}},"stopReason":"end_turn","usage":{"inputTokens":1,"outputTokens":1,"totalTokens":2}}`)
	}))
	defer srv.Close()
	p := bedrock.New(bedrock.WithBaseURL(srv.URL), bedrock.WithRegion("eu-west-3"),
		bedrock.WithCredentials(credentials.StaticCredentialsProvider{Value: creds}))
	res, err := p.Model("anthropic.claude-3-haiku-20240307-v1:0").Generate(context.Background(), &provider.CallOptions{Prompt: []provider.Message{user("hi")}})
	require.NoError(t, err)
	assert.Equal(t, "hi", res.Content[0].(provider.Text).Text)
	assert.Equal(t, "/model/anthropic.claude-3-haiku-20240307-v1%3A0/converse", got.URL.EscapedPath())
	assert.Equal(t, "session-1", got.Header.Get("X-Amz-Security-Token"))
	assert.Contains(t, got.Header.Get("Authorization"), "/eu-west-3/bedrock/aws4_request")
	verifySignature(t, got, body, creds, "eu-west-3")
}

func TestBedrockSettings(t *testing.T) {
	ctx := context.Background()
	call := &provider.CallOptions{Prompt: []provider.Message{user("hi")}}
	t.Run("missing region", func(t *testing.T) {
		t.Setenv("AWS_REGION", "")
		t.Setenv("AWS_DEFAULT_REGION", "")
		t.Setenv("AWS_CONFIG_FILE", t.TempDir()+"/none")
		t.Setenv("AWS_ENDPOINT_URL", "")
		t.Setenv("AWS_ENDPOINT_URL_BEDROCK_RUNTIME", "")
		_, err := bedrock.New(bedrock.WithAPIKey("k")).Model("m").Generate(ctx, call)
		var se *bedrock.SettingError
		require.ErrorAs(t, err, &se)
		assert.Equal(t, "region", se.Setting)
	})
	t.Run("missing credentials fail before sending", func(t *testing.T) {
		for _, v := range []string{"AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN", "AWS_PROFILE", "AWS_BEARER_TOKEN_BEDROCK",
			"AWS_WEB_IDENTITY_TOKEN_FILE", "AWS_CONTAINER_CREDENTIALS_FULL_URI", "AWS_CONTAINER_CREDENTIALS_RELATIVE_URI"} {
			t.Setenv(v, "")
		}
		t.Setenv("AWS_CONFIG_FILE", t.TempDir()+"/none")
		t.Setenv("AWS_SHARED_CREDENTIALS_FILE", t.TempDir()+"/none")
		t.Setenv("AWS_EC2_METADATA_DISABLED", "true")
		srv := replay.NewServer(t)
		_, err := bedrock.New(bedrock.WithRegion("us-east-1"), bedrock.WithBaseURL(srv.URL)).Model("m").Generate(ctx, call)
		var se *bedrock.SettingError
		require.ErrorAs(t, err, &se, "%v", err)
		assert.Equal(t, "credentials", se.Setting)
		assert.Empty(t, srv.Requests())
	})
	t.Run("endpoint by partition and api key from the environment", func(t *testing.T) {
		t.Setenv("AWS_BEARER_TOKEN_BEDROCK", " env-key ")
		t.Setenv("AWS_ENDPOINT_URL", "")
		t.Setenv("AWS_ENDPOINT_URL_BEDROCK_RUNTIME", "")
		srv := replay.NewServer(t, replay.JSON([]byte(`{"output":{"message":{"role":"assistant","content":[]}},"stopReason":"end_turn"}`)))
		rt := &redirect{srv: srv}
		_, err := bedrock.New(bedrock.WithRegion("cn-north-1"), bedrock.WithHTTPClient(&http.Client{Transport: rt})).Model("m").Generate(ctx, call)
		require.NoError(t, err)
		assert.Equal(t, "https://bedrock-runtime.cn-north-1.amazonaws.com.cn/model/m/converse", rt.urls[0])
		assert.Equal(t, "Bearer env-key", srv.Last(t).Header.Get("Authorization"))
	})
}

// streamServer answers with the given event-stream messages.
func streamServer(t *testing.T, body ...[]byte) *bedrock.Provider {
	t.Helper()
	srv := replay.NewServer(t, replay.Response{Status: 200,
		Header: http.Header{"Content-Type": {"application/vnd.amazon.eventstream"}}, Body: bytes.Join(body, nil)})
	return bedrock.New(bedrock.WithBaseURL(srv.URL), bedrock.WithAPIKey("k"))
}

func ev(eventType, payload string) []byte { return eventstream.Event(eventType, []byte(payload)) }

func collect(t *testing.T, p *bedrock.Provider) ([]provider.StreamPart, error) {
	t.Helper()
	res, err := p.Model("amazon.nova-lite-v1:0").Stream(context.Background(), &provider.CallOptions{Prompt: []provider.Message{user("hi")}})
	require.NoError(t, err)
	var parts []provider.StreamPart
	for part, err := range res.Stream {
		if err != nil {
			return parts, err
		}
		parts = append(parts, part)
	}
	return parts, nil
}

func TestBedrockStreamFailures(t *testing.T) {
	start := ev("messageStart", `{"role":"assistant"}`)
	text := ev("contentBlockDelta", `{"contentBlockIndex":0,"delta":{"text":"Hel"}}`)

	t.Run("exception after output is an error part", func(t *testing.T) {
		parts, err := collect(t, streamServer(t, start, text,
			eventstream.Exception("modelStreamErrorException", []byte(`{"message":"model failed"}`))))
		require.NoError(t, err)
		errs := replay.Of[provider.ErrorPart](parts)
		require.Len(t, errs, 1)
		var api *provider.APICallError
		require.ErrorAs(t, errs[0].Err, &api)
		assert.Equal(t, 424, api.StatusCode)
		assert.True(t, api.Retryable)
		assert.Equal(t, "model failed", api.Message)
		fin := replay.Of[provider.Finish](parts)
		require.Len(t, fin, 1)
		assert.Equal(t, provider.FinishError, fin[0].FinishReason.Unified)
	})
	t.Run("corrupt message ends the stream with an error", func(t *testing.T) {
		bad := bytes.Clone(text)
		bad[len(bad)-6] ^= 0xff
		parts, err := collect(t, streamServer(t, start, bad))
		var api *provider.APICallError
		require.ErrorAs(t, err, &api)
		assert.False(t, api.Retryable)
		assert.Contains(t, api.Message, "checksum")
		assert.Empty(t, replay.Of[provider.Finish](parts))
	})
	t.Run("stream without messageStop is interrupted", func(t *testing.T) {
		parts, err := collect(t, streamServer(t, start, text, ev("contentBlockStop", `{"contentBlockIndex":0}`)))
		require.NoError(t, err)
		assert.Equal(t, "Hel", replay.Text(parts))
		fin := replay.Of[provider.Finish](parts)
		require.Len(t, fin, 1)
		assert.Equal(t, provider.FinishInterrupted, fin[0].FinishReason.Unified)
	})
	t.Run("invalid event payload is an error part", func(t *testing.T) {
		parts, err := collect(t, streamServer(t, start, ev("contentBlockDelta", `{"contentBlockIndex":"zero"}`),
			ev("messageStop", `{"stopReason":"end_turn"}`)))
		require.NoError(t, err)
		var inv *provider.InvalidResponseDataError
		errs := replay.Of[provider.ErrorPart](parts)
		require.Len(t, errs, 1)
		assert.True(t, errors.As(errs[0].Err, &inv))
	})
	t.Run("raw chunks", func(t *testing.T) {
		p := streamServer(t, start, text, ev("messageStop", `{"stopReason":"end_turn"}`))
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		res, err := p.Model("m").Stream(ctx, &provider.CallOptions{Prompt: []provider.Message{user("hi")}, IncludeRawChunks: true})
		require.NoError(t, err)
		var raws []string
		for part, err := range res.Stream {
			require.NoError(t, err)
			if r, ok := part.(provider.Raw); ok {
				raws = append(raws, string(r.RawValue))
			}
		}
		assert.Equal(t, []string{`{"messageStart":{"role":"assistant"}}`, `{"contentBlockDelta":{"contentBlockIndex":0,"delta":{"text":"Hel"}}}`,
			`{"messageStop":{"stopReason":"end_turn"}}`}, raws)
	})
	t.Run("cancelling the context ends the stream", func(t *testing.T) {
		gone := make(chan struct{})
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/vnd.amazon.eventstream")
			_, _ = w.Write(append(bytes.Clone(start), text...))
			w.(http.Flusher).Flush()
			<-r.Context().Done()
			close(gone)
		}))
		defer srv.Close()
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		res, err := bedrock.New(bedrock.WithBaseURL(srv.URL), bedrock.WithAPIKey("k")).Model("m").
			Stream(ctx, &provider.CallOptions{Prompt: []provider.Message{user("hi")}})
		require.NoError(t, err)
		var last error
		for part, err := range res.Stream {
			if _, ok := part.(provider.TextDelta); ok {
				cancel()
			}
			last = err
		}
		require.ErrorIs(t, last, context.Canceled)
		<-gone
	})
}
