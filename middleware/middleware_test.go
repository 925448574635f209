package middleware_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/aisdkgo/ai"
	"github.com/aisdkgo/ai/aitest"
	"github.com/aisdkgo/ai/middleware"
	"github.com/aisdkgo/ai/provider"
)

// collect reads a model stream.
func collect(t *testing.T, res *provider.StreamResult, err error) ([]provider.StreamPart, error) {
	t.Helper()
	require.NoError(t, err)
	var parts []provider.StreamPart
	for p, err := range res.Stream {
		if err != nil {
			return parts, err
		}
		parts = append(parts, p)
	}
	return parts, nil
}

// generate runs a generation on model, streaming or not.
func generate(t *testing.T, model provider.LanguageModel, stream bool) *ai.GenerateTextResult {
	t.Helper()
	opts := ai.GenerateTextOptions{Model: model, Prompt: "hi"}
	if !stream {
		res, err := ai.GenerateText(context.Background(), opts)
		require.NoError(t, err)
		return res
	}
	sr, err := ai.StreamText(context.Background(), opts)
	require.NoError(t, err)
	res, err := sr.Wait()
	require.NoError(t, err)
	return res
}

func eachKind(t *testing.T, f func(t *testing.T, stream bool)) {
	for _, stream := range []bool{false, true} {
		t.Run(fmt.Sprintf("stream=%v", stream), func(t *testing.T) { f(t, stream) })
	}
}

// The first middleware sees a call first; the last is closest to the
// model.
func TestComposition(t *testing.T) {
	eachKind(t, func(t *testing.T, stream bool) {
		var mu sync.Mutex
		var log []string
		note := func(s string) {
			mu.Lock()
			log = append(log, s)
			mu.Unlock()
		}
		layer := func(name string, temp float64) middleware.Middleware {
			return middleware.New(middleware.Hooks{
				TransformParams: func(_ context.Context, kind middleware.CallKind, opts *provider.CallOptions) (*provider.CallOptions, error) {
					seen := "unset"
					if opts.Temperature != nil {
						seen = fmt.Sprint(*opts.Temperature)
					}
					note(fmt.Sprintf("%s transform %s (temperature %s)", name, kind, seen))
					o := *opts
					o.Temperature = &temp
					return &o, nil
				},
				WrapGenerate: func(ctx context.Context, next provider.LanguageModel, opts *provider.CallOptions) (*provider.GenerateResult, error) {
					note(name + " generate before")
					res, err := next.Generate(ctx, opts)
					note(name + " generate after")
					return res, err
				},
				WrapStream: func(ctx context.Context, next provider.LanguageModel, opts *provider.CallOptions) (*provider.StreamResult, error) {
					note(name + " stream before")
					res, err := next.Stream(ctx, opts)
					note(name + " stream after")
					return res, err
				},
			})
		}
		base := aitest.NewModel(aitest.Response{Content: []provider.Content{aitest.Text("ok")}})
		model := middleware.Wrap(base, layer("a", 0.1), nil, layer("b", 0.2))
		assert.Equal(t, "aitest", model.Provider())
		assert.Equal(t, "scripted", model.ModelID())
		res := generate(t, model, stream)
		assert.Equal(t, "ok", res.Text)
		kind := "generate"
		if stream {
			kind = "stream"
		}
		assert.Equal(t, []string{
			"a transform " + kind + " (temperature unset)",
			"a " + kind + " before",
			"b transform " + kind + " (temperature 0.1)",
			"b " + kind + " before",
			"b " + kind + " after",
			"a " + kind + " after",
		}, log)
		require.Len(t, base.Calls(), 1)
		assert.Equal(t, 0.2, *base.Calls()[0].Temperature, "the model receives the last transform")
	})
}

func TestTransformError(t *testing.T) {
	eachKind(t, func(t *testing.T, stream bool) {
		denied := errors.New("no calls today")
		base := aitest.NewModel(aitest.Response{Content: []provider.Content{aitest.Text("ok")}})
		model := middleware.Wrap(base, middleware.New(middleware.Hooks{
			TransformParams: func(context.Context, middleware.CallKind, *provider.CallOptions) (*provider.CallOptions, error) {
				return nil, denied
			},
		}))
		var err error
		if stream {
			_, err = model.Stream(context.Background(), &provider.CallOptions{})
		} else {
			_, err = model.Generate(context.Background(), &provider.CallOptions{})
		}
		assert.ErrorIs(t, err, denied)
		assert.Empty(t, base.Calls())
	})
}

func TestPanicsBecomeErrors(t *testing.T) {
	base := func() *aitest.Model {
		return &aitest.Model{Respond: func(context.Context, int, *provider.CallOptions) (aitest.Response, error) {
			return aitest.Response{Content: []provider.Content{aitest.Text("ok")}}, nil
		}}
	}
	var pe *middleware.PanicError

	t.Run("generate", func(t *testing.T) {
		model := middleware.Wrap(base(), middleware.New(middleware.Hooks{
			WrapGenerate: func(context.Context, provider.LanguageModel, *provider.CallOptions) (*provider.GenerateResult, error) {
				panic("boom")
			},
		}))
		_, err := model.Generate(context.Background(), &provider.CallOptions{})
		require.ErrorAs(t, err, &pe)
		assert.Equal(t, "boom", pe.Value)
		assert.Contains(t, string(pe.Stack), "middleware_test")
		// Through the loop, it is the generation's error.
		_, err = ai.GenerateText(context.Background(), ai.GenerateTextOptions{Model: model, Prompt: "hi"})
		require.ErrorAs(t, err, &pe)
	})

	t.Run("stream start", func(t *testing.T) {
		model := middleware.Wrap(base(), middleware.New(middleware.Hooks{
			TransformParams: func(context.Context, middleware.CallKind, *provider.CallOptions) (*provider.CallOptions, error) {
				panic("transform")
			},
		}))
		_, err := model.Stream(context.Background(), &provider.CallOptions{})
		require.ErrorAs(t, err, &pe)
	})

	t.Run("while streaming", func(t *testing.T) {
		model := middleware.Wrap(base(), middleware.New(middleware.Hooks{
			WrapStream: func(ctx context.Context, next provider.LanguageModel, opts *provider.CallOptions) (*provider.StreamResult, error) {
				res, err := next.Stream(ctx, opts)
				if err != nil {
					return nil, err
				}
				inner := res.Stream
				res.Stream = func(yield func(provider.StreamPart, error) bool) {
					for p, err := range inner {
						if _, ok := p.(provider.TextDelta); ok {
							panic("mid-stream")
						}
						if !yield(p, err) {
							return
						}
					}
				}
				return res, nil
			},
		}))
		res, err := model.Stream(context.Background(), &provider.CallOptions{})
		parts, err := collect(t, res, err)
		require.ErrorAs(t, err, &pe)
		assert.Equal(t, "mid-stream", pe.Value)
		assert.Equal(t, []provider.StreamPart{provider.TextStart{ID: "text-0"}}, parts)

		// In a generation, the panic is the stream's error part.
		sr, err := ai.StreamText(context.Background(), ai.GenerateTextOptions{Model: model, Prompt: "hi"})
		require.NoError(t, err)
		var errs []error
		for p, err := range sr.Parts() {
			require.NoError(t, err)
			if e, ok := p.(ai.ErrorPart); ok {
				errs = append(errs, e.Err)
			}
		}
		require.Len(t, errs, 1)
		assert.ErrorAs(t, errs[0], &pe)
	})

	t.Run("when wrapping", func(t *testing.T) {
		model := middleware.Wrap(base(), func(provider.LanguageModel) provider.LanguageModel { panic("wrap") })
		_, err := model.Generate(context.Background(), &provider.CallOptions{})
		require.ErrorAs(t, err, &pe)
		assert.Equal(t, "scripted", model.ModelID())
	})

	t.Run("the reader's panic is not caught", func(t *testing.T) {
		model := middleware.Wrap(base(), middleware.New(middleware.Hooks{}))
		res, err := model.Stream(context.Background(), &provider.CallOptions{})
		require.NoError(t, err)
		assert.PanicsWithValue(t, "reader", func() {
			for range res.Stream {
				panic("reader")
			}
		})
	})
}

func TestDefaultSettings(t *testing.T) {
	eachKind(t, func(t *testing.T, stream bool) {
		base := aitest.NewModel(aitest.Response{Content: []provider.Content{aitest.Text("ok")}})
		model := middleware.Wrap(base, middleware.DefaultSettings(provider.CallOptions{
			Temperature:     new(0.3),
			MaxOutputTokens: new(100),
			StopSequences:   []string{"END"},
			Headers:         provider.Header{"X-Team": {"search"}, "X-Trace": {"default"}},
			ProviderOptions: provider.ProviderOptions{"openai": {"store": false, "user": "default"}, "other": {"a": 1}},
		}))
		opts := ai.GenerateTextOptions{Model: model, Prompt: "hi",
			MaxOutputTokens: new(7),
			Headers:         provider.Header{"X-Trace": {"call"}},
			ProviderOptions: ai.ProviderOptions{"openai": {"user": "call"}, "anthropic": {"b": 2}},
		}
		var err error
		if stream {
			var sr *ai.StreamTextResult
			sr, err = ai.StreamText(context.Background(), opts)
			require.NoError(t, err)
			_, err = sr.Wait()
		} else {
			_, err = ai.GenerateText(context.Background(), opts)
		}
		require.NoError(t, err)
		require.Len(t, base.Calls(), 1)
		got := base.Calls()[0]
		assert.Equal(t, 0.3, *got.Temperature)
		assert.Equal(t, 7, *got.MaxOutputTokens, "the call's own value wins")
		assert.Equal(t, []string{"END"}, got.StopSequences)
		assert.Equal(t, provider.Header{"X-Team": {"search"}, "X-Trace": {"call"}}, got.Headers)
		assert.Equal(t, provider.ProviderOptions{
			"openai": {"store": false, "user": "call"}, "other": {"a": 1}, "anthropic": {"b": 2},
		}, got.ProviderOptions)
	})
}

func TestSimulateStreaming(t *testing.T) {
	// A model that can only generate.
	base := &generateOnly{aitest.NewModel(aitest.Response{
		Content: []provider.Content{
			provider.Reasoning{Text: "thinking"},
			aitest.Text("Hello"),
			aitest.Text(""),
			aitest.ToolCall("c1", "lookup", `{"q":"x"}`),
		},
		FinishReason: aitest.ToolCalls,
		Usage:        provider.Usage{OutputTokens: provider.OutputTokens{Total: new(3)}},
		Response:     &provider.ResponseInfo{ID: "r1", ModelID: "m1"},
	})}
	model := middleware.Wrap(base, middleware.SimulateStreaming())
	res, err := model.Stream(context.Background(), &provider.CallOptions{})
	parts, err := collect(t, res, err)
	require.NoError(t, err)
	assert.Equal(t, []provider.StreamPart{
		provider.StreamStart{},
		provider.ResponseMetadata{ID: "r1", ModelID: "m1"},
		provider.ReasoningStart{ID: "0"}, provider.ReasoningDelta{ID: "0", Delta: "thinking"}, provider.ReasoningEnd{ID: "0"},
		provider.TextStart{ID: "1"}, provider.TextDelta{ID: "1", Delta: "Hello"}, provider.TextEnd{ID: "1"},
		provider.ToolCall{ToolCallID: "c1", ToolName: "lookup", Input: `{"q":"x"}`},
		provider.Finish{FinishReason: aitest.ToolCalls, Usage: provider.Usage{OutputTokens: provider.OutputTokens{Total: new(3)}}},
	}, parts)
	assert.Equal(t, "r1", res.Response.ID)

	// Generate passes through.
	base2 := &generateOnly{aitest.NewModel(aitest.Response{Content: []provider.Content{aitest.Text("hi")}})}
	out := generate(t, middleware.Wrap(base2, middleware.SimulateStreaming()), false)
	assert.Equal(t, "hi", out.Text)
	base3 := &generateOnly{aitest.NewModel(aitest.Response{Content: []provider.Content{provider.Reasoning{Text: "r"}, aitest.Text("hi")}})}
	out = generate(t, middleware.Wrap(base3, middleware.SimulateStreaming()), true)
	assert.Equal(t, "hi", out.Text)
	assert.Equal(t, "r", out.Steps[0].ReasoningText())
}

type generateOnly struct{ *aitest.Model }

func (*generateOnly) Stream(context.Context, *provider.CallOptions) (*provider.StreamResult, error) {
	return nil, errors.New("this model cannot stream")
}

// gated is a model whose calls wait for a gate, counting how many are in
// flight.
type gated struct {
	inFlight, peak, calls atomic.Int32
	entered               chan struct{}
	gate                  chan struct{}
}

func (g *gated) Provider() string { return "gated" }
func (g *gated) ModelID() string  { return "gated" }

func (g *gated) enter() {
	g.calls.Add(1)
	n := g.inFlight.Add(1)
	for {
		p := g.peak.Load()
		if n <= p || g.peak.CompareAndSwap(p, n) {
			break
		}
	}
	g.entered <- struct{}{}
	<-g.gate
}

func (g *gated) Generate(context.Context, *provider.CallOptions) (*provider.GenerateResult, error) {
	g.enter()
	defer g.inFlight.Add(-1)
	return &provider.GenerateResult{Content: []provider.Content{aitest.Text("ok")}, FinishReason: aitest.Stop}, nil
}

// Stream holds its call in flight until the stream is read to its end.
func (g *gated) Stream(context.Context, *provider.CallOptions) (*provider.StreamResult, error) {
	g.calls.Add(1)
	n := g.inFlight.Add(1)
	for {
		p := g.peak.Load()
		if n <= p || g.peak.CompareAndSwap(p, n) {
			break
		}
	}
	g.entered <- struct{}{}
	return &provider.StreamResult{Stream: func(yield func(provider.StreamPart, error) bool) {
		defer g.inFlight.Add(-1)
		<-g.gate
		yield(provider.Finish{FinishReason: aitest.Stop}, nil)
	}}, nil
}

func TestConcurrencyLimit(t *testing.T) {
	const limit, calls = 3, 100
	eachKind(t, func(t *testing.T, stream bool) {
		g := &gated{entered: make(chan struct{}, calls), gate: make(chan struct{})}
		model := middleware.Wrap(g, middleware.ConcurrencyLimit(limit))
		var wg sync.WaitGroup
		errs := make(chan error, calls)
		for range calls {
			wg.Go(func() {
				if stream {
					res, err := model.Stream(context.Background(), &provider.CallOptions{})
					if err == nil {
						_, err = collect(t, res, err)
					}
					errs <- err
					return
				}
				_, err := model.Generate(context.Background(), &provider.CallOptions{})
				errs <- err
			})
		}
		// The first calls fill the slots.
		for range limit {
			<-g.entered
		}
		assert.Equal(t, int32(limit), g.inFlight.Load())

		// A call whose context ends while it waits fails with the cause and
		// never reaches the model.
		ctx, cancel := context.WithCancelCause(context.Background())
		waited := make(chan error, 1)
		go func() {
			if stream {
				_, err := model.Stream(ctx, &provider.CallOptions{})
				waited <- err
				return
			}
			_, err := model.Generate(ctx, &provider.CallOptions{})
			waited <- err
		}()
		gone := errors.New("caller gone")
		cancel(gone)
		assert.ErrorIs(t, <-waited, gone)

		close(g.gate)
		wg.Wait()
		close(errs)
		for err := range errs {
			assert.NoError(t, err)
		}
		assert.Equal(t, int32(calls), g.calls.Load(), "the cancelled call never reached the model")
		assert.LessOrEqual(t, g.peak.Load(), int32(limit))
		assert.Equal(t, int32(0), g.inFlight.Load())
	})
}

// A stream's slot is freed when its reader stops early, and when its
// context ends even if it is never read.
func TestConcurrencyLimitReleasesStreams(t *testing.T) {
	base := aitest.NewModel()
	base.Respond = func(context.Context, int, *provider.CallOptions) (aitest.Response, error) {
		return aitest.Response{Content: []provider.Content{aitest.Text("a"), aitest.Text("b")}}, nil
	}
	model := middleware.Wrap(base, middleware.ConcurrencyLimit(1))
	for range 3 {
		res, err := model.Stream(context.Background(), &provider.CallOptions{})
		require.NoError(t, err)
		for range res.Stream {
			break
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	_, err := model.Stream(ctx, &provider.CallOptions{})
	require.NoError(t, err)
	cancel() // never read
	res, err := model.Generate(context.Background(), &provider.CallOptions{})
	require.NoError(t, err)
	assert.Equal(t, "a", res.Content[0].(provider.Text).Text)
	assert.Panics(t, func() { middleware.ConcurrencyLimit(0) })
}

func TestExtractReasoningGenerate(t *testing.T) {
	cases := []struct {
		name, in, text, reasoning string
		opts                      *middleware.ReasoningOptions
		unchanged                 bool
	}{
		{name: "one section", in: "<think>plan</think>answer", text: "answer", reasoning: "plan"},
		{name: "text around", in: "a<think>r</think>b", text: "a\nb", reasoning: "r"},
		{name: "two sections", in: "<think>r1</think>a<think>r2</think>b", text: "a\nb", reasoning: "r1\nr2"},
		{name: "unclosed", in: "a<think>still thinking", text: "a", reasoning: "still thinking"},
		{name: "no tags", in: "plain", unchanged: true},
		{name: "starts in reasoning", in: "plan</think>answer", text: "answer", reasoning: "plan", opts: &middleware.ReasoningOptions{StartWithReasoning: true}},
		{name: "custom delimiters", in: "<|channel>thought\nx<channel|>y", text: "y", reasoning: "x",
			opts: &middleware.ReasoningOptions{Opening: "<|channel>thought\n", Closing: "<channel|>", Separator: " "}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			base := aitest.NewModel(aitest.Response{Content: []provider.Content{aitest.Text(c.in), aitest.ToolCall("c1", "x", `{}`)}})
			model := middleware.Wrap(base, middleware.ExtractReasoning("think", c.opts))
			res, err := model.Generate(context.Background(), &provider.CallOptions{})
			require.NoError(t, err)
			if c.unchanged {
				assert.Equal(t, []provider.Content{aitest.Text(c.in), aitest.ToolCall("c1", "x", `{}`)}, res.Content)
				return
			}
			assert.Equal(t, []provider.Content{provider.Reasoning{Text: c.reasoning}, aitest.Text(c.text), aitest.ToolCall("c1", "x", `{}`)}, res.Content)
		})
	}
	assert.Panics(t, func() { middleware.ExtractReasoning("", nil) })
}

func deltas(id string, pieces ...string) []provider.StreamPart {
	parts := []provider.StreamPart{provider.TextStart{ID: id}}
	for _, p := range pieces {
		parts = append(parts, provider.TextDelta{ID: id, Delta: p})
	}
	return append(parts, provider.TextEnd{ID: id})
}

func TestExtractReasoningStream(t *testing.T) {
	chunks := append(deltas("t", "<th", "ink>pl", "an</thi", "nk>ans", "wer"), provider.Finish{FinishReason: aitest.Stop})
	base := aitest.NewModel(aitest.Response{Chunks: chunks})
	model := middleware.Wrap(base, middleware.ExtractReasoning("think", nil))
	res, err := model.Stream(context.Background(), &provider.CallOptions{})
	parts, err := collect(t, res, err)
	require.NoError(t, err)
	assert.Equal(t, []provider.StreamPart{
		provider.ReasoningStart{ID: "reasoning-0"},
		provider.ReasoningDelta{ID: "reasoning-0", Delta: "pl"},
		provider.ReasoningDelta{ID: "reasoning-0", Delta: "an"},
		provider.ReasoningEnd{ID: "reasoning-0"},
		provider.TextStart{ID: "t"},
		provider.TextDelta{ID: "t", Delta: "ans"},
		provider.TextDelta{ID: "t", Delta: "wer"},
		provider.TextEnd{ID: "t"},
		provider.Finish{FinishReason: aitest.Stop},
	}, parts)

	// A '<' that starts no tag is text after all.
	base = aitest.NewModel(aitest.Response{Chunks: append(deltas("t", "a <", "b"), provider.Finish{FinishReason: aitest.Stop})})
	res, err = middleware.Wrap(base, middleware.ExtractReasoning("think", nil)).Stream(context.Background(), &provider.CallOptions{})
	parts, err = collect(t, res, err)
	require.NoError(t, err)
	assert.Equal(t, []provider.StreamPart{
		provider.TextStart{ID: "t"}, provider.TextDelta{ID: "t", Delta: "a "}, provider.TextDelta{ID: "t", Delta: "<b"},
		provider.TextEnd{ID: "t"}, provider.Finish{FinishReason: aitest.Stop},
	}, parts)
}

// However a text is split into deltas, the stream yields the text and
// reasoning that Generate extracts from it.
func TestExtractReasoningSplits(t *testing.T) {
	inputs := []string{
		"<think>plan</think>answer",
		"a<think>r</think>b<think></think>c",
		"<think>r1</think><think>r2</think>x",
		"x<think>never closed",
		"no tags < > </ at all",
		"<think></think>",
		"<thinking>not a tag</thinking>",
	}
	for _, opts := range []*middleware.ReasoningOptions{nil, {StartWithReasoning: true}} {
		for _, in := range inputs {
			gen := middleware.Wrap(aitest.NewModel(aitest.Response{Content: []provider.Content{aitest.Text(in)}}), middleware.ExtractReasoning("think", opts))
			want := generate(t, gen, false)
			for i := 0; i <= len(in); i++ {
				for j := i; j <= len(in); j++ {
					chunks := append(deltas("t", in[:i], in[i:j], in[j:]), provider.Finish{FinishReason: aitest.Stop})
					st := middleware.Wrap(aitest.NewModel(aitest.Response{Chunks: chunks}), middleware.ExtractReasoning("think", opts))
					got := generate(t, st, true)
					require.Equal(t, want.Text, got.Text, "text of %q split at %d, %d", in, i, j)
					require.Equal(t, want.Steps[0].ReasoningText(), got.Steps[0].ReasoningText(), "reasoning of %q split at %d, %d", in, i, j)
				}
			}
		}
	}
}

func ExampleWrap() {
	// A local model that writes its reasoning between <think> tags.
	local := aitest.NewModel(aitest.Response{Content: []provider.Content{aitest.Text("<think>The user greets me.</think>Hello!")}})
	model := middleware.Wrap(local,
		middleware.DefaultSettings(provider.CallOptions{Temperature: new(0.2)}),
		middleware.ExtractReasoning("think", nil),
		middleware.ConcurrencyLimit(2),
	)
	res, err := ai.GenerateText(context.Background(), ai.GenerateTextOptions{Model: model, Prompt: "Hi"})
	if err != nil {
		panic(err)
	}
	fmt.Println("reasoning:", res.Steps[0].ReasoningText())
	fmt.Println("text:", res.Text)
	fmt.Println("temperature:", *local.Calls()[0].Temperature)
	// Output:
	// reasoning: The user greets me.
	// text: Hello!
	// temperature: 0.2
}

func ExampleNew() {
	// A middleware that logs every call and counts its text.
	logCalls := middleware.New(middleware.Hooks{
		WrapGenerate: func(ctx context.Context, next provider.LanguageModel, opts *provider.CallOptions) (*provider.GenerateResult, error) {
			res, err := next.Generate(ctx, opts)
			if err == nil {
				n := 0
				for _, c := range res.Content {
					if t, ok := c.(provider.Text); ok {
						n += len(strings.Fields(t.Text))
					}
				}
				fmt.Printf("%s answered with %d words\n", next.ModelID(), n)
			}
			return res, err
		},
	})
	model := middleware.Wrap(aitest.NewModel(aitest.Response{Content: []provider.Content{aitest.Text("It will rain.")}}), logCalls)
	if _, err := ai.GenerateText(context.Background(), ai.GenerateTextOptions{Model: model, Prompt: "Weather?"}); err != nil {
		panic(err)
	}
	// Output:
	// scripted answered with 3 words
}

// stubbornModel streams text and goes on after it was told to stop.
type stubbornModel struct{}

func (stubbornModel) Provider() string { return "test" }
func (stubbornModel) ModelID() string  { return "stubborn" }
func (stubbornModel) Generate(context.Context, *provider.CallOptions) (*provider.GenerateResult, error) {
	return nil, errors.New("not used")
}
func (stubbornModel) Stream(context.Context, *provider.CallOptions) (*provider.StreamResult, error) {
	return &provider.StreamResult{Stream: func(yield func(provider.StreamPart, error) bool) {
		yield(provider.TextStart{ID: "t"}, nil)
		for range 5 {
			yield(provider.TextDelta{ID: "t", Delta: "x"}, nil) // the result is ignored
		}
		yield(provider.TextEnd{ID: "t"}, nil)
		yield(provider.Finish{FinishReason: provider.FinishReason{Unified: provider.FinishStop}}, nil)
	}}, nil
}

// TestWrappedStreamsIgnoreAModelThatGoesOn: a reader that stops early is
// not handed parts a misbehaving model yields after that, and the
// middleware does not panic (the models are built without Wrap's guard).
func TestWrappedStreamsIgnoreAModelThatGoesOn(t *testing.T) {
	for name, mw := range map[string]middleware.Middleware{
		"reasoning":   middleware.ExtractReasoning("think", nil),
		"concurrency": middleware.ConcurrencyLimit(1),
	} {
		res, err := mw(stubbornModel{}).Stream(context.Background(), &provider.CallOptions{})
		if err != nil {
			t.Fatal(name, err)
		}
		n := 0
		for _, err := range res.Stream {
			if err != nil {
				t.Fatal(name, err)
			}
			n++
			if n == 2 {
				break
			}
		}
		if n != 2 {
			t.Errorf("%s: read %d parts", name, n)
		}
	}
}
