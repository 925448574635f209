// Command middleware wraps models with middleware: default settings for
// every call, reasoning extracted from <think> tags (as many local models
// write it), simulated streaming for a model that can only generate, a cap
// on concurrent calls, and a middleware of its own that logs each call.
//
// It runs on scripted models (no key, no network):
//
//	go run ./examples/middleware
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log"
	"os"
	"sync"

	"github.com/aisdkgo/ai"
	"github.com/aisdkgo/ai/aitest"
	"github.com/aisdkgo/ai/middleware"
	"github.com/aisdkgo/ai/provider"
)

// localModel streams like a local reasoning model: its thoughts come first,
// between <think> tags that arrive split across chunks.
func localModel() *aitest.Model {
	deltas := []string{"<thi", "nk>The user asks about ", "tomorrow.</th", "ink>It will ", "rain tomorrow."}
	chunks := []provider.StreamPart{provider.TextStart{ID: "t"}}
	for _, d := range deltas {
		chunks = append(chunks, provider.TextDelta{ID: "t", Delta: d})
	}
	chunks = append(chunks, provider.TextEnd{ID: "t"}, provider.Finish{FinishReason: aitest.Stop})
	return &aitest.Model{ModelName: "local-qwen", Respond: func(context.Context, int, *provider.CallOptions) (aitest.Response, error) {
		return aitest.Response{Chunks: chunks}, nil
	}}
}

// batchModel can only generate: its Stream fails.
type batchModel struct{ *aitest.Model }

func (batchModel) Stream(context.Context, *provider.CallOptions) (*provider.StreamResult, error) {
	return nil, errors.New("batch-model does not stream")
}

// logCalls is a middleware of our own: it prints each call's settings.
func logCalls(out io.Writer) middleware.Middleware {
	var mu sync.Mutex
	return middleware.New(middleware.Hooks{
		TransformParams: func(_ context.Context, kind middleware.CallKind, opts *provider.CallOptions) (*provider.CallOptions, error) {
			mu.Lock()
			defer mu.Unlock()
			fmt.Fprintf(out, "  [%s call, temperature %v, max tokens %v]\n", kind, *opts.Temperature, *opts.MaxOutputTokens)
			return opts, nil
		},
	})
}

func main() {
	if err := run(context.Background(), os.Stdout); err != nil {
		log.Fatal(err)
	}
}

func run(ctx context.Context, out io.Writer) error {
	defaults := middleware.DefaultSettings(provider.CallOptions{Temperature: new(0.6), MaxOutputTokens: new(512)})

	fmt.Fprintln(out, "A local model whose reasoning is in <think> tags, streamed:")
	local := middleware.Wrap(localModel(), defaults, logCalls(out), middleware.ExtractReasoning("think", nil))
	res, err := ai.StreamText(ctx, ai.GenerateTextOptions{Model: local, Prompt: "Will it rain tomorrow?"})
	if err != nil {
		return err
	}
	for p, err := range res.Parts() {
		if err != nil {
			return err
		}
		switch p := p.(type) {
		case ai.ReasoningDelta:
			fmt.Fprintf(out, "  reasoning: %q\n", p.Delta)
		case ai.TextDelta:
			fmt.Fprintf(out, "  text:      %q\n", p.Delta)
		}
	}

	fmt.Fprintln(out, "\nA model that only generates, streamed through SimulateStreaming:")
	batch := batchModel{aitest.NewModel(aitest.Response{Content: []provider.Content{aitest.Text("Sunny on Sunday.")}})}
	simulated := middleware.Wrap(batch, defaults, middleware.SimulateStreaming())
	res, err = ai.StreamText(ctx, ai.GenerateTextOptions{Model: simulated, Prompt: "And on Sunday?", MaxOutputTokens: new(64)})
	if err != nil {
		return err
	}
	for text, err := range res.TextStream() {
		if err != nil {
			return err
		}
		fmt.Fprintf(out, "  text: %q\n", text)
	}

	fmt.Fprintln(out, "\nTen calls at once through a cap of two:")
	capped := middleware.Wrap(localModel(), middleware.ExtractReasoning("think", nil), middleware.ConcurrencyLimit(2))
	var wg sync.WaitGroup
	answers := make([]string, 10)
	errs := make([]error, 10)
	for i := range answers {
		wg.Go(func() {
			res, err := ai.StreamText(ctx, ai.GenerateTextOptions{Model: capped, Prompt: "Rain?"})
			if err == nil {
				answers[i], err = res.Text()
			}
			errs[i] = err
		})
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return err
	}
	fmt.Fprintf(out, "  %d answers, the first: %q\n", len(answers), answers[0])
	return nil
}
