package ai_test

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/aisdkgo/ai"
	"github.com/aisdkgo/ai/aitest"
	"github.com/aisdkgo/ai/provider"
)

// vectorOf is the embedding the test models give a value: its number.
func vectorOf(v string) []float64 {
	n, _ := strconv.Atoi(v)
	return []float64{float64(n), 1}
}

func numbered(n int) []string {
	vs := make([]string, n)
	for i := range vs {
		vs[i] = strconv.Itoa(i)
	}
	return vs
}

func answer(values []string) *provider.EmbedCallResult {
	res := &provider.EmbedCallResult{}
	for _, v := range values {
		res.Embeddings = append(res.Embeddings, vectorOf(v))
	}
	tokens := len(values)
	res.Usage.Tokens = &tokens
	return res
}

// rateLimited is a retryable error whose retry-after hint keeps tests fast.
func rateLimited() error {
	return &provider.APICallError{Message: "slow down", StatusCode: 429, Retryable: true,
		ResponseHeaders: provider.Header{"Retry-After-Ms": {"1"}}}
}

func TestEmbedManyBatchesByTheModelsMaximum(t *testing.T) {
	model := &aitest.EmbeddingModel{MaxPerCall: 10, Respond: func(_ context.Context, _ int, o *provider.EmbedCallOptions) (*provider.EmbedCallResult, error) {
		return answer(o.Values), nil
	}}
	values := numbered(25)
	res, err := ai.EmbedMany(t.Context(), ai.EmbedManyOptions{Model: model, Values: values})
	require.NoError(t, err)

	calls := model.Calls()
	require.Len(t, calls, 3)
	sizes := map[int]int{}
	for _, c := range calls {
		sizes[len(c.Values)]++
	}
	assert.Equal(t, map[int]int{10: 2, 5: 1}, sizes, "calls of at most 10 values")
	require.Len(t, res.Embeddings, 25)
	for i, e := range res.Embeddings {
		assert.Equal(t, vectorOf(values[i]), e, "embedding %d is in the order of the values", i)
	}
	assert.Equal(t, values, res.Values)
	require.NotNil(t, res.Usage.Tokens)
	assert.Equal(t, 25, *res.Usage.Tokens)
	assert.Len(t, res.Responses, 3)
}

func TestEmbedManyWithoutLimitMakesOneCall(t *testing.T) {
	model := &aitest.EmbeddingModel{}
	res, err := ai.EmbedMany(t.Context(), ai.EmbedManyOptions{Model: model, Values: []string{"rain in Paris", "sun in Rome", "rain in Rome"}})
	require.NoError(t, err)
	require.Len(t, model.Calls(), 1)
	near, err := ai.CosineSimilarity(res.Embeddings[0], res.Embeddings[2])
	require.NoError(t, err)
	far, err := ai.CosineSimilarity(res.Embeddings[0], res.Embeddings[1])
	require.NoError(t, err)
	assert.Greater(t, near, far)
}

func TestEmbedManyOfNothingCallsNoModel(t *testing.T) {
	model := &aitest.EmbeddingModel{MaxPerCall: 3}
	res, err := ai.EmbedMany(t.Context(), ai.EmbedManyOptions{Model: model})
	require.NoError(t, err)
	assert.Empty(t, model.Calls())
	assert.Empty(t, res.Embeddings)
	assert.Nil(t, res.Usage.Tokens)
}

func TestEmbedManyPassesTheSettings(t *testing.T) {
	model := &aitest.EmbeddingModel{MaxPerCall: 2}
	headers := provider.Header{"X-Trace": {"abc"}}
	po := ai.ProviderOptions{"aitest": {"taskType": "RETRIEVAL_QUERY"}}
	res, err := ai.EmbedMany(t.Context(), ai.EmbedManyOptions{Model: model, Values: []string{"a", "b", "c"}, Dimensions: 8,
		Headers: headers, ProviderOptions: po})
	require.NoError(t, err)
	for _, c := range model.Calls() {
		assert.Equal(t, 8, c.Dimensions)
		assert.Equal(t, headers, c.Headers)
		assert.Equal(t, po, c.ProviderOptions)
	}
	for _, e := range res.Embeddings {
		assert.Len(t, e, 8)
	}
}

// gatedModel blocks every call until the gate closes and records how many
// calls run at once.
type gatedModel struct {
	aitest.EmbeddingModel
	gate    chan struct{}
	started chan struct{}
	running atomic.Int32
	peak    atomic.Int32
}

func newGatedModel(max int, sequential bool) *gatedModel {
	m := &gatedModel{gate: make(chan struct{}), started: make(chan struct{}, 100)}
	m.MaxPerCall = max
	m.Sequential = sequential
	m.Respond = func(ctx context.Context, _ int, o *provider.EmbedCallOptions) (*provider.EmbedCallResult, error) {
		n := m.running.Add(1)
		defer m.running.Add(-1)
		for {
			p := m.peak.Load()
			if n <= p || m.peak.CompareAndSwap(p, n) {
				break
			}
		}
		m.started <- struct{}{}
		select {
		case <-m.gate:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
		return answer(o.Values), nil
	}
	return m
}

func TestEmbedManyBoundsParallelCalls(t *testing.T) {
	for _, tc := range []struct {
		name       string
		parallel   int
		sequential bool
		want       int32
	}{
		{"MaxParallelCalls 2", 2, false, 2},
		{"no bound", 0, false, 5},
		{"sequential model", 4, true, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := newGatedModel(2, tc.sequential)
			done := make(chan error, 1)
			var res *ai.EmbedManyResult
			go func() {
				var err error
				res, err = ai.EmbedMany(t.Context(), ai.EmbedManyOptions{Model: m, Values: numbered(10), MaxParallelCalls: tc.parallel})
				done <- err
			}()
			// The first calls block until the gate opens; wait until the
			// expected number has started.
			for range tc.want {
				<-m.started
			}
			close(m.gate)
			require.NoError(t, <-done)
			assert.Equal(t, tc.want, m.peak.Load(), "calls at once")
			assert.Len(t, m.Calls(), 5)
			for i, e := range res.Embeddings {
				assert.Equal(t, vectorOf(strconv.Itoa(i)), e)
			}
		})
	}
}

func TestEmbedManyRetriesEachCall(t *testing.T) {
	var mu sync.Mutex
	failed := map[string]bool{}
	model := &aitest.EmbeddingModel{MaxPerCall: 2, Respond: func(_ context.Context, _ int, o *provider.EmbedCallOptions) (*provider.EmbedCallResult, error) {
		mu.Lock()
		defer mu.Unlock()
		if o.Values[0] == "2" && !failed["2"] {
			failed["2"] = true
			return nil, rateLimited()
		}
		return answer(o.Values), nil
	}}
	res, err := ai.EmbedMany(t.Context(), ai.EmbedManyOptions{Model: model, Values: numbered(6)})
	require.NoError(t, err)
	assert.Len(t, model.Calls(), 4, "three calls and one retry")
	assert.Equal(t, vectorOf("2"), res.Embeddings[2])
}

func TestEmbedRetriesExhausted(t *testing.T) {
	model := &aitest.EmbeddingModel{Respond: func(context.Context, int, *provider.EmbedCallOptions) (*provider.EmbedCallResult, error) {
		return nil, rateLimited()
	}}
	_, err := ai.Embed(t.Context(), ai.EmbedOptions{Model: model, Value: "x", MaxRetries: new(1)})
	var retryErr *ai.RetryError
	require.ErrorAs(t, err, &retryErr)
	assert.Equal(t, "maxRetriesExceeded", retryErr.Reason)
	assert.Len(t, model.Calls(), 2)

	model = &aitest.EmbeddingModel{Respond: model.Respond}
	_, err = ai.Embed(t.Context(), ai.EmbedOptions{Model: model, Value: "x", MaxRetries: new(0)})
	var apiErr *provider.APICallError
	require.ErrorAs(t, err, &apiErr)
	assert.False(t, errors.As(err, &retryErr), "without retries the error is returned as it is")
	assert.Len(t, model.Calls(), 1)
}

func TestEmbedManyFailureCancelsTheOtherCalls(t *testing.T) {
	bad := &provider.APICallError{Message: "invalid input", StatusCode: 400}
	var entered, cancelled atomic.Int32
	model := &aitest.EmbeddingModel{MaxPerCall: 1, Respond: func(ctx context.Context, _ int, o *provider.EmbedCallOptions) (*provider.EmbedCallResult, error) {
		entered.Add(1)
		if o.Values[0] == "0" {
			return nil, bad
		}
		<-ctx.Done()
		cancelled.Add(1)
		return nil, ctx.Err()
	}}
	_, err := ai.EmbedMany(t.Context(), ai.EmbedManyOptions{Model: model, Values: numbered(4)})
	assert.Same(t, bad, err)
	assert.Equal(t, entered.Load()-1, cancelled.Load(), "every other call ended with the cancellation")
}

func TestEmbedManyCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	started := make(chan struct{}, 10)
	model := &aitest.EmbeddingModel{MaxPerCall: 1, Respond: func(ctx context.Context, _ int, _ *provider.EmbedCallOptions) (*provider.EmbedCallResult, error) {
		started <- struct{}{}
		<-ctx.Done()
		return nil, ctx.Err()
	}}
	done := make(chan error, 1)
	go func() {
		_, err := ai.EmbedMany(ctx, ai.EmbedManyOptions{Model: model, Values: numbered(3), MaxParallelCalls: 2})
		done <- err
	}()
	<-started
	<-started
	cancel()
	select {
	case err := <-done:
		assert.ErrorIs(t, err, context.Canceled)
	case <-time.After(10 * time.Second):
		t.Fatal("EmbedMany did not return after the cancellation")
	}
	assert.Len(t, model.Calls(), 2, "no call starts after the cancellation")
}

func TestEmbedManyCancelledWhileWaitingToRetry(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	model := &aitest.EmbeddingModel{Respond: func(context.Context, int, *provider.EmbedCallOptions) (*provider.EmbedCallResult, error) {
		cancel()
		return nil, &provider.APICallError{Message: "overloaded", StatusCode: 503, Retryable: true}
	}}
	_, err := ai.Embed(ctx, ai.EmbedOptions{Model: model, Value: "x"})
	assert.ErrorIs(t, err, context.Canceled)
	assert.Len(t, model.Calls(), 1)
}

func TestEmbedManyRejectsAWrongNumberOfEmbeddings(t *testing.T) {
	model := &aitest.EmbeddingModel{Respond: func(_ context.Context, _ int, o *provider.EmbedCallOptions) (*provider.EmbedCallResult, error) {
		return answer(o.Values[1:]), nil
	}}
	_, err := ai.EmbedMany(t.Context(), ai.EmbedManyOptions{Model: model, Values: numbered(3)})
	var invalid *provider.InvalidResponseDataError
	require.ErrorAs(t, err, &invalid)
	assert.Contains(t, invalid.Message, "expected 3 embeddings, received 2")

	model.Respond = func(context.Context, int, *provider.EmbedCallOptions) (*provider.EmbedCallResult, error) {
		return nil, nil
	}
	_, err = ai.Embed(t.Context(), ai.EmbedOptions{Model: model, Value: "x"})
	require.ErrorAs(t, err, &invalid)
}

func TestEmbedManyModelPanics(t *testing.T) {
	model := &aitest.EmbeddingModel{MaxPerCall: 1, Respond: func(_ context.Context, i int, o *provider.EmbedCallOptions) (*provider.EmbedCallResult, error) {
		if o.Values[0] == "1" {
			panic("boom")
		}
		return answer(o.Values), nil
	}}
	_, err := ai.EmbedMany(t.Context(), ai.EmbedManyOptions{Model: model, Values: numbered(3)})
	var panicErr *ai.CallbackPanicError
	require.ErrorAs(t, err, &panicErr)
	assert.Equal(t, "boom", panicErr.Panic)
}

func TestEmbedManyMergesUsageMetadataAndWarnings(t *testing.T) {
	model := &aitest.EmbeddingModel{MaxPerCall: 2, Sequential: true, Respond: func(_ context.Context, i int, o *provider.EmbedCallOptions) (*provider.EmbedCallResult, error) {
		res := answer(o.Values)
		res.Warnings = []provider.Warning{{Type: "other", Message: "call " + strconv.Itoa(i)}}
		res.ProviderMetadata = provider.ProviderMetadata{"aitest": {"call": i, "first": i == 0}}
		res.Response = &provider.ResponseInfo{ID: strconv.Itoa(i)}
		if i == 1 {
			res.Usage.Tokens = nil
		}
		return res, nil
	}}
	res, err := ai.EmbedMany(t.Context(), ai.EmbedManyOptions{Model: model, Values: numbered(3)})
	require.NoError(t, err)
	assert.Nil(t, res.Usage.Tokens, "a call without usage makes the total unknown")
	assert.Equal(t, []ai.Warning{{Type: "other", Message: "call 0"}, {Type: "other", Message: "call 1"}}, res.Warnings)
	assert.Equal(t, ai.ProviderMetadata{"aitest": {"call": 1, "first": false}}, res.ProviderMetadata)
	require.Len(t, res.Responses, 2)
	assert.Equal(t, "1", res.Responses[1].ID)
}

func TestEmbed(t *testing.T) {
	model := &aitest.EmbeddingModel{Dimensions: 16}
	res, err := ai.Embed(t.Context(), ai.EmbedOptions{Model: model, Value: "sunny day"})
	require.NoError(t, err)
	assert.Equal(t, "sunny day", res.Value)
	assert.Equal(t, aitest.HashEmbedding("sunny day", 16), res.Embedding)
	require.NotNil(t, res.Usage.Tokens)
	assert.Equal(t, 2, *res.Usage.Tokens)
}

func TestEmbedInvalidOptions(t *testing.T) {
	model := &aitest.EmbeddingModel{}
	for name, opts := range map[string]ai.EmbedManyOptions{
		"Model":            {Values: []string{"a"}},
		"Dimensions":       {Model: model, Values: []string{"a"}, Dimensions: -1},
		"MaxParallelCalls": {Model: model, Values: []string{"a"}, MaxParallelCalls: -2},
		"MaxRetries":       {Model: model, Values: []string{"a"}, MaxRetries: new(-1)},
	} {
		_, err := ai.EmbedMany(t.Context(), opts)
		var invalid *ai.InvalidArgumentError
		if assert.ErrorAs(t, err, &invalid, name) {
			assert.Equal(t, name, invalid.Parameter)
		}
	}
	assert.Empty(t, model.Calls())
}

func TestCosineSimilarity(t *testing.T) {
	for _, tc := range []struct {
		a, b []float64
		want float64
	}{
		{[]float64{1, 0}, []float64{1, 0}, 1},
		{[]float64{1, 0}, []float64{0, 2}, 0},
		{[]float64{1, 1}, []float64{-2, -2}, -1},
		{[]float64{3, 4}, []float64{4, 3}, 24.0 / 25},
		{[]float64{0, 0}, []float64{1, 2}, 0},
		{nil, nil, 0},
	} {
		got, err := ai.CosineSimilarity(tc.a, tc.b)
		require.NoError(t, err)
		assert.InDelta(t, tc.want, got, 1e-12, "%v · %v", tc.a, tc.b)
	}
	_, err := ai.CosineSimilarity([]float64{1}, []float64{1, 2})
	var invalid *ai.InvalidArgumentError
	assert.ErrorAs(t, err, &invalid)
}

func ExampleEmbedMany() {
	// aitest.EmbeddingModel embeds texts by their words; a real model
	// (openai, google, openaicompat) also captures meaning.
	model := &aitest.EmbeddingModel{MaxPerCall: 2}
	res, err := ai.EmbedMany(context.Background(), ai.EmbedManyOptions{
		Model:  model,
		Values: []string{"heavy rain in Bangalore", "stock prices fell", "rain expected tomorrow"},
	})
	if err != nil {
		panic(err)
	}
	query, err := ai.Embed(context.Background(), ai.EmbedOptions{Model: model, Value: "will it rain"})
	if err != nil {
		panic(err)
	}
	for i, e := range res.Embeddings {
		s, _ := ai.CosineSimilarity(query.Embedding, e)
		fmt.Printf("%.2f %s\n", s, res.Values[i])
	}
	fmt.Println("model calls:", len(model.Calls()))
	// Output:
	// 0.29 heavy rain in Bangalore
	// 0.00 stock prices fell
	// 0.33 rain expected tomorrow
	// model calls: 3
}

func ExampleCosineSimilarity() {
	s, err := ai.CosineSimilarity([]float64{1, 2, 3}, []float64{2, 4, 6})
	if err != nil {
		panic(err)
	}
	fmt.Printf("%.2f\n", s)
	// Output: 1.00
}

func ExampleEmbed() {
	res, err := ai.Embed(context.Background(), ai.EmbedOptions{
		Model: &aitest.EmbeddingModel{Dimensions: 8},
		Value: "sunny day",
	})
	if err != nil {
		panic(err)
	}
	fmt.Println(len(res.Embedding), *res.Usage.Tokens)
	// Output: 8 2
}
