package bm25

import (
	"bufio"
	"bytes"
	"compress/gzip"
	_ "embed"
	"strings"
	"sync"
)

//go:generate go run ./internal/wordnetgen -dir /tmp/wn/usr/share/wordnet -out related.txt.gz

// relatedData is the table of related stems that ./internal/wordnetgen
// draws from WordNet 3.0 (licence in WORDNET-LICENSE): a line per stem, the
// stem, a tab and its related stems separated by spaces.
//
//go:embed related.txt.gz
var relatedData []byte

// relatedWeight is what a word related to a request word in WordNet counts
// for, relative to the request word itself.
const relatedWeight = 0.2

// relatedMaxShare is the largest share of the catalog's tools (or one tool,
// if that is more) a related word may occur in and still be matched:
// commoner ones add little to the ranking (their idf is low) and much to
// the cost of a query.
const relatedMaxShare = 0.05

// relatedTable returns the related stems by stem, reading relatedData the
// first time.
var relatedTable = sync.OnceValue(func() map[string][]string {
	m, err := parseRelated(relatedData)
	if err != nil {
		// The table is part of the package; tests read it.
		panic("bm25: related.txt.gz: " + err.Error())
	}
	return m
})

func parseRelated(data []byte) (map[string][]string, error) {
	zr, err := gzip.NewReader(bytes.NewReader(data))
	if err != nil {
		return nil, err
	}
	m := map[string][]string{}
	sc := bufio.NewScanner(zr)
	for sc.Scan() {
		st, rest, _ := strings.Cut(sc.Text(), "\t")
		m[st] = strings.Fields(rest)
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	return m, zr.Close()
}
