package aitest

import (
	"context"
	"hash/fnv"
	"math"
	"strings"
	"sync"
	"unicode"

	"github.com/aisdkgo/ai/provider"
)

// DefaultDimensions is the size of the vectors [HashEmbedding] makes for an
// [EmbeddingModel] without a Respond function.
const DefaultDimensions = 64

// EmbeddingModel is a scripted [provider.EmbeddingModel]. Without Respond it
// embeds each value with [HashEmbedding], so texts that share words get
// similar vectors, deterministically and without a network. It records
// every call and is safe for concurrent use.
type EmbeddingModel struct {
	// ProviderName and ModelName are reported by Provider and ModelID
	// ("aitest" and "hash-embedding" when empty).
	ProviderName string
	ModelName    string
	// MaxPerCall is reported by MaxEmbeddingsPerCall (0: no limit); calls
	// with more values fail as a real provider's would.
	MaxPerCall int
	// Sequential makes SupportsParallelCalls report false.
	Sequential bool
	// Dimensions is the vector size of the default embedding; 0 means
	// [DefaultDimensions].
	Dimensions int
	// Respond, when set, answers every call: it gets the call's index
	// (from 0, in the order calls arrive) and options.
	Respond func(ctx context.Context, call int, opts *provider.EmbedCallOptions) (*provider.EmbedCallResult, error)

	mu    sync.Mutex
	calls []provider.EmbedCallOptions
}

// Provider reports the provider name.
func (m *EmbeddingModel) Provider() string {
	if m.ProviderName == "" {
		return "aitest"
	}
	return m.ProviderName
}

// ModelID reports the model name.
func (m *EmbeddingModel) ModelID() string {
	if m.ModelName == "" {
		return "hash-embedding"
	}
	return m.ModelName
}

// MaxEmbeddingsPerCall returns MaxPerCall.
func (m *EmbeddingModel) MaxEmbeddingsPerCall() int { return m.MaxPerCall }

// SupportsParallelCalls returns !Sequential.
func (m *EmbeddingModel) SupportsParallelCalls() bool { return !m.Sequential }

// Calls returns the options of every call received so far, in order.
func (m *EmbeddingModel) Calls() []provider.EmbedCallOptions {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := make([]provider.EmbedCallOptions, len(m.calls))
	copy(out, m.calls)
	return out
}

// Embed answers one call.
func (m *EmbeddingModel) Embed(ctx context.Context, opts *provider.EmbedCallOptions) (*provider.EmbedCallResult, error) {
	m.mu.Lock()
	i := len(m.calls)
	c := *opts
	c.Values = append([]string(nil), opts.Values...)
	m.calls = append(m.calls, c)
	m.mu.Unlock()
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if m.MaxPerCall > 0 && len(opts.Values) > m.MaxPerCall {
		return nil, &provider.TooManyEmbeddingValuesError{Provider: m.Provider(), ModelID: m.ModelID(), Max: m.MaxPerCall, Count: len(opts.Values)}
	}
	if m.Respond != nil {
		return m.Respond(ctx, i, opts)
	}
	dims := m.Dimensions
	if opts.Dimensions > 0 {
		dims = opts.Dimensions
	}
	res := &provider.EmbedCallResult{}
	tokens := 0
	for _, v := range opts.Values {
		res.Embeddings = append(res.Embeddings, HashEmbedding(v, dims))
		tokens += len(words(v))
	}
	res.Usage.Tokens = &tokens
	return res, nil
}

// HashEmbedding is a deterministic stand-in for a real embedding: every
// lower-cased word of text (a run of letters and digits) adds one to a
// dimension chosen by hashing the word, and the vector is scaled to length
// 1 (all zeros for text without words). Texts that share words are similar;
// synonyms are not. dims <= 0 means [DefaultDimensions].
func HashEmbedding(text string, dims int) []float64 {
	if dims <= 0 {
		dims = DefaultDimensions
	}
	v := make([]float64, dims)
	for _, w := range words(text) {
		h := fnv.New32a()
		h.Write([]byte(w))
		v[h.Sum32()%uint32(dims)]++
	}
	var n float64
	for _, x := range v {
		n += x * x
	}
	if n > 0 {
		n = math.Sqrt(n)
		for i := range v {
			v[i] /= n
		}
	}
	return v
}

func words(text string) []string {
	return strings.FieldsFunc(strings.ToLower(text), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsNumber(r)
	})
}
