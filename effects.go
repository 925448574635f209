package ai

import (
	"context"
	"math/rand/v2"
	"sync"
	"time"

	"github.com/aisdkgo/ai/internal/effect"
	"github.com/aisdkgo/ai/provider"
)

// localEffects performs a generation's effects in this process: model calls
// with retries, tool executions on goroutines, the system clock and random
// ids.
type localEffects struct{}

func (localEffects) Generate(ctx context.Context, m provider.LanguageModel, opts *provider.CallOptions, rt effect.Retry) (*provider.GenerateResult, error) {
	return retry(ctx, rt, func(ctx context.Context) (res *provider.GenerateResult, err error) {
		defer func() {
			if v := recover(); v != nil {
				res, err = nil, &CallbackPanicError{Callback: "the model's Generate", Panic: v}
			}
		}()
		res, err = m.Generate(ctx, opts)
		if err == nil && res == nil {
			err = &provider.InvalidResponseDataError{Message: "the model returned no result"}
		}
		return res, err
	})
}

func (localEffects) Stream(ctx context.Context, m provider.LanguageModel, opts *provider.CallOptions, rt effect.Retry) (*provider.StreamResult, error) {
	return retry(ctx, rt, func(ctx context.Context) (res *provider.StreamResult, err error) {
		defer func() {
			if v := recover(); v != nil {
				res, err = nil, &CallbackPanicError{Callback: "the model's Stream", Panic: v}
			}
		}()
		res, err = m.Stream(ctx, opts)
		if err == nil && (res == nil || res.Stream == nil) {
			err = &provider.InvalidResponseDataError{Message: "the model returned no stream"}
		}
		return res, err
	})
}

func (localEffects) Invoke(ctx context.Context, _ effect.Call, local func(context.Context) (any, error)) (any, error) {
	return local(ctx)
}

func (localEffects) Parallel(ctx context.Context, n, limit int, task func(ctx context.Context, i int, started func())) {
	if n == 1 {
		task(ctx, 0, func() {})
		return
	}
	if limit <= 0 || limit > n {
		limit = n
	}
	sem := make(chan struct{}, limit)
	var wg sync.WaitGroup
	for i := range n {
		select {
		case sem <- struct{}{}:
		case <-ctx.Done():
		}
		if ctx.Err() != nil {
			break
		}
		wg.Add(1)
		start := make(chan struct{})
		var once sync.Once
		started := func() { once.Do(func() { close(start) }) }
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			defer started()
			task(ctx, i, started)
		}()
		// Starts are observed in call order.
		<-start
	}
	wg.Wait()
}

func (localEffects) Now() time.Time { return time.Now() }

func (localEffects) NewID() string { return randomID() }

// idEffects replaces the ids of other effects with GenerateTextOptions.GenerateID.
type idEffects struct {
	effect.Effects
	newID func() string
}

func (e idEffects) NewID() string { return e.newID() }

// randomID returns a new random id: "aitxt-" and 24 letters and digits,
// the form of the reference's response ids. Each id is drawn on its own.
// Each character takes six random bits, drawn ten at a time from a 64-bit
// value; the two values of six bits past the alphabet's 62 are drawn again,
// so every character is equally likely.
func randomID() string {
	const alphabet = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
	b := make([]byte, 0, len("aitxt-")+24)
	b = append(b, "aitxt-"...)
	for len(b) < cap(b) {
		for bits, n := rand.Uint64(), 0; n < 10 && len(b) < cap(b); bits, n = bits>>6, n+1 {
			if i := bits & 63; i < uint64(len(alphabet)) {
				b = append(b, alphabet[i])
			}
		}
	}
	return string(b)
}
