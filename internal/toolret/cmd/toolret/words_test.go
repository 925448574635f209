package main

import (
	"context"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/aisdkgo/ai"
	"github.com/aisdkgo/ai/provider"
	"github.com/aisdkgo/ai/semsearch"
)

func cosine(a, b []float64) float64 {
	var ab, aa, bb float64
	for i := range a {
		ab += a[i] * b[i]
		aa += a[i] * a[i]
		bb += b[i] * b[i]
	}
	return ab / math.Sqrt(aa*bb)
}

// TestWordModelFormats reads the same vectors from a wink-embeddings JSON
// file and from a text file, and checks that texts sharing no word but
// close in meaning get close embeddings.
func TestWordModelFormats(t *testing.T) {
	for _, file := range []string{"testdata/words.json", "testdata/words.txt"} {
		t.Run(filepath.Ext(file), func(t *testing.T) {
			m, err := loadWordModel(file)
			if err != nil {
				t.Fatal(err)
			}
			if m.dims != 3 || len(m.vectors) != 6 {
				t.Fatalf("dims %d, %d words; want 3 and 6 (punctuation and capitalised words skipped)", m.dims, len(m.vectors))
			}
			if m.weights["the"] >= m.weights["price"] {
				t.Errorf("weight of the %v, of price %v: the most frequent word should weigh less", m.weights["the"], m.weights["price"])
			}
			res, err := m.Embed(context.Background(), &provider.EmbedCallOptions{Values: []string{"rain forecast", "weather", "stock price", "unknownword"}})
			if err != nil {
				t.Fatal(err)
			}
			e := res.Embeddings
			if near, far := cosine(e[0], e[1]), cosine(e[0], e[2]); near <= far {
				t.Errorf("cos(rain forecast, weather) %.3f <= cos(rain forecast, stock price) %.3f", near, far)
			}
			for _, x := range e[3] {
				if x != 0 {
					t.Fatalf("a text of unknown words embeds as %v, want zeros", e[3])
				}
			}
		})
	}
}

// TestWordModelSearch ranks a tool that shares no word with the request
// first through semsearch.
func TestWordModelSearch(t *testing.T) {
	m, err := loadWordModel("testdata/words.txt")
	if err != nil {
		t.Fatal(err)
	}
	s, err := semsearch.New(semsearch.Options{Model: m})
	if err != nil {
		t.Fatal(err)
	}
	got, err := s.Search(context.Background(), "will it rain", []ai.SearchCandidate{
		{Name: "stockPrice", Description: "The price of a stock."},
		{Name: "weather", Description: "The weather forecast."},
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) == 0 || got[0] != "weather" {
		t.Fatalf("got %v, want weather first", got)
	}
}

// TestWordModelErrors checks that malformed files are refused.
func TestWordModelErrors(t *testing.T) {
	dir := t.TempDir()
	for name, text := range map[string]string{
		"empty":       "",
		"ragged":      "a 1 2\nb 1\n",
		"notnumber":   "a 1 x\n",
		"jsondims":    `{"dimensions": 0, "vectors": {"a": [1]}}`,
		"jsonshort":   `{"dimensions": 3, "vectors": {"a": [1, 2]}}`,
		"jsonbroken":  `{"dimensions": 3, "vectors": {"a": [1, 2`,
		"nothingkept": "Paris 1 2\n",
	} {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
		if _, err := loadWordModel(p); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
	if _, err := embeddingModel("words:"); err == nil {
		t.Error("words: without a path: no error")
	}
}
