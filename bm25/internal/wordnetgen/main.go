// Command wordnetgen writes the table of related words that package bm25
// embeds (related.txt.gz), from the WordNet 3.0 database files (Debian
// package wordnet-base):
//
//	cd /tmp && apt-get download wordnet-base && dpkg-deb -x wordnet-base_*.deb /tmp/wn
//	go run ./bm25/internal/wordnetgen -dir /tmp/wn/usr/share/wordnet -out bm25/related.txt.gz
//
// Words are reduced to their Snowball English stems, as bm25 reduces them.
// Only common words take part: single words of letters that occur in
// WordNet's sense-tagged corpus (a tag count above zero in the index
// files). For each such word and each of its most frequent senses (the
// first two of the index), the table relates its stem to the stems of the
// other common words of the same synset (synonyms), of the forms WordNet
// marks as derivationally related to it, and of the common words of the
// synsets one level more general (hypernyms). Each line is a stem, a tab
// and the related stems, separated by spaces and sorted; the lines are
// sorted, so the output depends only on the input.
package main

import (
	"bufio"
	"compress/gzip"
	"flag"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/kljensen/snowball/english"
)

var posFiles = map[byte]string{'n': "noun", 'v': "verb", 'a': "adj", 'r': "adv"}

func main() {
	dir := flag.String("dir", "/usr/share/wordnet", "directory of the WordNet database files (index.noun, data.noun...)")
	out := flag.String("out", "related.txt.gz", "output file (gzip-compressed text)")
	senses := flag.Int("senses", 2, "how many of a word's most frequent senses relate it")
	minTag := flag.Int("min-tagged", 1, "a word is common when its senses are tagged at least this often in WordNet's corpus")
	ptrs := flag.String("pointers", "@,@i", "pointer symbols (comma-separated) of the synsets whose words are related too: @ and @i are hypernyms")
	flag.Parse()
	if err := run(*dir, *out, *senses, *minTag, strings.Split(*ptrs, ",")); err != nil {
		fmt.Fprintln(os.Stderr, "wordnetgen:", err)
		os.Exit(1)
	}
}

// synset is one synset of a data file.
type synset struct {
	words []string
	ptrs  []pointer
}

// pointer is a relation from a synset (src 0) or one of its words (src,
// from 1) to a synset or one of its words (dst).
type pointer struct {
	symbol   string
	pos      byte
	offset   string
	src, dst int
}

// key names a synset: its part of speech and offset.
type key struct {
	pos    byte
	offset string
}

func run(dir, out string, senses, minTag int, ptrs []string) error {
	common := map[string]bool{}
	type entry struct {
		lemma string
		pos   byte
		offs  []string
	}
	var entries []entry
	synsets := map[key]*synset{}
	for _, pos := range []byte("nvar") {
		if err := readIndex(filepath.Join(dir, "index."+posFiles[pos]), func(lemma string, tagged int, offs []string) {
			if tagged >= minTag && plain(lemma) {
				common[lemma] = true
				entries = append(entries, entry{lemma, pos, offs})
			}
		}); err != nil {
			return err
		}
		if err := readData(filepath.Join(dir, "data."+posFiles[pos]), pos, synsets); err != nil {
			return err
		}
	}
	near := map[string]map[string]bool{} // by stem, the related stems
	relate := func(m map[string]map[string]bool, a, b string) {
		sa, sb := english.Stem(a, true), english.Stem(b, true)
		if sa == sb || !common[b] {
			return
		}
		if m[sa] == nil {
			m[sa] = map[string]bool{}
		}
		m[sa][sb] = true
	}
	for _, e := range entries {
		for _, off := range e.offs[:min(senses, len(e.offs))] {
			s := synsets[key{e.pos, off}]
			if s == nil {
				return fmt.Errorf("%s: synset %c %s missing", e.lemma, e.pos, off)
			}
			self := slices.Index(s.words, e.lemma) + 1
			for _, w := range s.words {
				relate(near, e.lemma, w)
			}
			for _, p := range s.ptrs {
				t := synsets[key{p.pos, p.offset}]
				if t == nil {
					return fmt.Errorf("%s: pointer to missing synset %c %s", e.lemma, p.pos, p.offset)
				}
				switch {
				case p.symbol == "+" && p.src == self && p.dst >= 1 && p.dst <= len(t.words):
					relate(near, e.lemma, t.words[p.dst-1])
					relate(near, t.words[p.dst-1], e.lemma)
				case slices.Contains(ptrs, p.symbol) && p.src == 0:
					for _, w := range t.words {
						relate(near, e.lemma, w)
					}
				}
			}
		}
	}
	keys := slices.Sorted(maps.Keys(near))
	f, err := os.Create(out)
	if err != nil {
		return err
	}
	zw, err := gzip.NewWriterLevel(f, gzip.BestCompression)
	if err != nil {
		return err
	}
	w := bufio.NewWriter(zw)
	list := func(m map[string]bool) string {
		l := make([]string, 0, len(m))
		for s := range m {
			l = append(l, s)
		}
		slices.Sort(l)
		return strings.Join(l, " ")
	}
	for _, s := range keys {
		fmt.Fprintf(w, "%s\t%s\n", s, list(near[s]))
	}
	if err := w.Flush(); err != nil {
		return err
	}
	if err := zw.Close(); err != nil {
		return err
	}
	return f.Close()
}

// plain reports whether a lemma is a single word of lower-case ASCII
// letters.
func plain(w string) bool {
	if len(w) < 2 {
		return false
	}
	for i := 0; i < len(w); i++ {
		if w[i] < 'a' || w[i] > 'z' {
			return false
		}
	}
	return true
}

// readIndex calls f with each lemma of an index file, its tag count and its
// synsets, most frequent sense first.
func readIndex(path string, f func(lemma string, tagged int, offs []string)) error {
	return eachLine(path, func(line string) error {
		fs := strings.Fields(line)
		if len(fs) < 6 {
			return fmt.Errorf("short index line %q", line)
		}
		pcnt, err := strconv.Atoi(fs[3])
		if err != nil || 4+pcnt+2 > len(fs) {
			return fmt.Errorf("bad index line %q", line)
		}
		tagged, err := strconv.Atoi(fs[5+pcnt])
		if err != nil {
			return fmt.Errorf("bad index line %q", line)
		}
		f(fs[0], tagged, fs[6+pcnt:])
		return nil
	})
}

// readData adds the synsets of a data file to synsets.
func readData(path string, pos byte, synsets map[key]*synset) error {
	return eachLine(path, func(line string) error {
		line, _, _ = strings.Cut(line, " | ")
		fs := strings.Fields(line)
		bad := fmt.Errorf("bad data line %q", line)
		if len(fs) < 4 {
			return bad
		}
		wcnt, err := strconv.ParseInt(fs[3], 16, 32)
		if err != nil || 4+2*int(wcnt)+1 > len(fs) {
			return bad
		}
		s := &synset{}
		for i := range int(wcnt) {
			w := strings.ToLower(fs[4+2*i])
			if j := strings.IndexByte(w, '('); j > 0 { // adjective markers: "(a)", "(p)", "(ip)"
				w = w[:j]
			}
			s.words = append(s.words, w)
		}
		i := 4 + 2*int(wcnt)
		pcnt, err := strconv.Atoi(fs[i])
		if err != nil || i+1+4*pcnt > len(fs) {
			return bad
		}
		for j := range pcnt {
			p := fs[i+1+4*j : i+5+4*j]
			st, err := strconv.ParseUint(p[3], 16, 16)
			if err != nil || len(p[2]) != 1 {
				return bad
			}
			ppos := p[2][0]
			if ppos == 's' {
				ppos = 'a'
			}
			s.ptrs = append(s.ptrs, pointer{symbol: p[0], pos: ppos, offset: p[1], src: int(st >> 8), dst: int(st & 0xff)})
		}
		synsets[key{pos, fs[0]}] = s
		return nil
	})
}

// eachLine calls f with each line of a WordNet file, the licence lines at
// its top (starting with two spaces) left out.
func eachLine(path string, f func(string) error) error {
	file, err := os.Open(path)
	if err != nil {
		return err
	}
	defer file.Close()
	r := bufio.NewReaderSize(file, 1<<16)
	for {
		line, err := r.ReadString('\n')
		if line = strings.TrimRight(line, "\r\n "); line != "" && !strings.HasPrefix(line, "  ") {
			if ferr := f(line); ferr != nil {
				return fmt.Errorf("%s: %w", path, ferr)
			}
		}
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
	}
}
