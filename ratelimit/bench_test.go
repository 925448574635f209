package ratelimit_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aisdkgo/ai"
	"github.com/aisdkgo/ai/middleware"
	"github.com/aisdkgo/ai/provider"
	"github.com/aisdkgo/ai/providers/openaicompat"
	"github.com/aisdkgo/ai/ratelimit"
)

// budgetServer is an OpenAI-compatible chat endpoint with a rate limit:
// at most requests calls and tokens tokens in each window (fixed windows
// from the start of a run). A call costs its messages' text at four bytes
// a token plus its max_tokens. A call beyond the budget gets a 429 with
// retry-after-ms; every response carries the x-ratelimit-* headers.
type budgetServer struct {
	requests, tokens int
	window, latency  time.Duration

	mu          sync.Mutex
	start       time.Time
	index       int64 // the current window
	usedReq     int
	usedTok     int
	rejected    int
	served      int
	lastAnswers time.Time
}

func (s *budgetServer) reset() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.start, s.index, s.usedReq, s.usedTok, s.rejected, s.served = time.Now(), 0, 0, 0, 0, 0
}

func (s *budgetServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	var body struct {
		Messages []struct {
			Content string `json:"content"`
		} `json:"messages"`
		MaxTokens int `json:"max_tokens"`
	}
	if err := json.NewDecoder(r.Body).Decode(&body); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	bytes := 0
	for _, m := range body.Messages {
		bytes += len(m.Content)
	}
	cost := (bytes+3)/4 + body.MaxTokens

	s.mu.Lock()
	now := time.Now()
	if i := int64(now.Sub(s.start) / s.window); i != s.index {
		s.index, s.usedReq, s.usedTok = i, 0, 0
	}
	end := s.start.Add(time.Duration(s.index+1) * s.window)
	ok := s.usedReq+1 <= s.requests && s.usedTok+cost <= s.tokens
	if ok {
		s.usedReq++
		s.usedTok += cost
	} else {
		s.rejected++
	}
	// The time to the window's end in whole milliseconds, rounded up.
	leftMs := int64((end.Sub(now) + time.Millisecond - 1) / time.Millisecond)
	h := w.Header()
	resetIn := fmt.Sprintf("%dms", leftMs)
	h.Set("x-ratelimit-limit-requests", fmt.Sprint(s.requests))
	h.Set("x-ratelimit-remaining-requests", fmt.Sprint(s.requests-s.usedReq))
	h.Set("x-ratelimit-reset-requests", resetIn)
	h.Set("x-ratelimit-limit-tokens", fmt.Sprint(s.tokens))
	h.Set("x-ratelimit-remaining-tokens", fmt.Sprint(s.tokens-s.usedTok))
	h.Set("x-ratelimit-reset-tokens", resetIn)
	s.mu.Unlock()

	if !ok {
		h.Set("retry-after-ms", strconv.FormatInt(leftMs, 10))
		h.Set("content-type", "application/json")
		w.WriteHeader(http.StatusTooManyRequests)
		fmt.Fprint(w, `{"error":{"message":"rate limit reached","type":"rate_limit_error"}}`)
		return
	}
	time.Sleep(s.latency) // the model's work
	s.mu.Lock()
	s.served++
	s.lastAnswers = time.Now()
	s.mu.Unlock()
	h.Set("content-type", "application/json")
	fmt.Fprintf(w, `{"id":"c","object":"chat.completion","created":0,"model":"m","choices":[{"index":0,"message":{"role":"assistant","content":"ok"},"finish_reason":"stop"}],"usage":{"prompt_tokens":%d,"completion_tokens":1,"total_tokens":%d}}`, cost-body.MaxTokens, cost-body.MaxTokens+1)
}

// benchPrompts are the prompts of the concurrent generations: costs from
// 50 to 300 tokens of text, plus max_tokens 50.
func benchPrompts(n int) []string {
	p := make([]string, n)
	for i := range p {
		p[i] = strings.Repeat("word ", 40+40*(i%6))
	}
	return p
}

// idealSchedule is the earliest end of the run: the calls, in order, fill
// each window's budget, and the last one's answer takes the latency.
func idealSchedule(s *budgetServer, prompts []string, maxTokens int) time.Duration {
	windows, req, tok := 0, 0, 0
	for _, p := range prompts {
		cost := (len(p)+3)/4 + maxTokens
		if req+1 > s.requests || tok+cost > s.tokens {
			windows++
			req, tok = 0, 0
		}
		req++
		tok += cost
	}
	return time.Duration(windows)*s.window + s.latency
}

// BenchmarkRateLimited runs 50 concurrent generations against a server
// that allows 10 requests and 1,500 tokens each 200 ms, with the limiter
// and with retries alone (up to 20, honouring retry-after-ms), and
// reports the 429s the server sent, the generations that failed, the
// run's time (makespan, to the last answer) and that time over the ideal
// schedule's. Each run is bounded by runBound: a generation still going
// then fails with its context's deadline, so neither half can hang.
func BenchmarkRateLimited(b *testing.B) {
	const generations, maxTokens = 50, 50
	const runBound = 30 * time.Second
	prompts := benchPrompts(generations)
	for _, mode := range []string{"limiter", "retry-only"} {
		b.Run(mode, func(b *testing.B) {
			srv := &budgetServer{requests: 10, tokens: 1500, window: 200 * time.Millisecond, latency: 20 * time.Millisecond}
			ts := httptest.NewServer(srv)
			defer ts.Close()
			ideal := idealSchedule(srv, prompts, maxTokens)
			var rejected, failed int
			var ratio float64
			var makespan time.Duration
			for b.Loop() {
				base := openaicompat.New(openaicompat.WithBaseURL(ts.URL), openaicompat.WithName("bench"), openaicompat.WithAPIKey("k")).Model("m")
				model := base
				if mode == "limiter" {
					// The limiter's estimate counts what the server counts:
					// the messages' text and max_tokens.
					lim := ratelimit.New(ratelimit.Options{})
					model = middleware.Wrap(base, lim.Middleware())
				}
				srv.reset()
				ctx, cancel := context.WithTimeout(context.Background(), runBound)
				var wg sync.WaitGroup
				errs := make(chan error, generations)
				for _, p := range prompts {
					wg.Go(func() {
						_, err := ai.GenerateText(ctx, ai.GenerateTextOptions{
							Model: model, Prompt: p, MaxOutputTokens: new(maxTokens), MaxRetries: new(20),
						})
						if err != nil {
							errs <- err
						}
					})
				}
				wg.Wait()
				cancel()
				close(errs)
				for err := range errs {
					failed++
					b.Log(err)
				}
				srv.mu.Lock()
				rejected += srv.rejected
				makespan += srv.lastAnswers.Sub(srv.start)
				ratio += float64(srv.lastAnswers.Sub(srv.start)) / float64(ideal)
				srv.mu.Unlock()
			}
			b.ReportMetric(float64(rejected)/float64(b.N), "429s/op")
			b.ReportMetric(float64(failed)/float64(b.N), "failed/op")
			b.ReportMetric(float64(makespan.Milliseconds())/float64(b.N), "makespan-ms")
			b.ReportMetric(float64(ideal.Milliseconds()), "ideal-ms")
			b.ReportMetric(ratio/float64(b.N), "x-ideal")
		})
	}
}

// budgetServer's 429 tells, in retry-after-ms, a whole number of
// milliseconds no longer than the window: what a client's retry honours.
// (A wait the client cannot read makes it back off for seconds instead.)
func TestBudgetServerRetryAfter(t *testing.T) {
	srv := &budgetServer{requests: 1, tokens: 1000, window: 200 * time.Millisecond}
	ts := httptest.NewServer(srv)
	defer ts.Close()
	srv.reset()
	body := `{"messages":[{"content":"hello"}],"max_tokens":5}`
	for i, want := range []int{http.StatusOK, http.StatusTooManyRequests} {
		resp, err := http.Post(ts.URL, "application/json", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != want {
			t.Fatalf("call %d: status %d, want %d", i, resp.StatusCode, want)
		}
		if want != http.StatusTooManyRequests {
			continue
		}
		v := resp.Header.Get("retry-after-ms")
		ms, err := strconv.Atoi(v)
		if err != nil || ms < 0 || time.Duration(ms)*time.Millisecond > srv.window {
			t.Fatalf("retry-after-ms = %q, want whole milliseconds within the window", v)
		}
		if got, want := resp.Header.Get("x-ratelimit-reset-requests"), v+"ms"; got != want {
			t.Fatalf("x-ratelimit-reset-requests = %q, want %q", got, want)
		}
	}
}

// The default estimate counts what budgetServer counts for a
// one-message prompt.
func TestEstimateMatchesBudgetServer(t *testing.T) {
	p := benchPrompts(2)[1]
	got := ratelimit.EstimateTokens(&provider.CallOptions{
		Prompt:          []provider.Message{provider.UserMessage{Content: []provider.UserPart{provider.TextPart{Text: p}}}},
		MaxOutputTokens: new(50),
	})
	if want := (len(p)+3)/4 + 50; got != want {
		t.Fatalf("EstimateTokens = %d, want %d", got, want)
	}
}
