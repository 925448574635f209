// Package sentences splits a search request into its sentences, the way
// the rankings that treat long requests differently (bm25's coverage
// ordering, semsearch's keyword-first fusion) both count them.
package sentences

import "strings"

// End reports whether q[i] ends a sentence: '?', '!', ';', a line break, or
// a full stop followed by a space or by the end of q.
func End(q string, i int) bool {
	c := q[i]
	return c == '?' || c == '!' || c == ';' || c == '\n' || c == '.' && (i+1 == len(q) || q[i+1] == ' ')
}

// Split returns the sentences of q, trimmed, empty ones left out.
func Split(q string) []string {
	var out []string
	start := 0
	for i := 0; i <= len(q); i++ {
		if i < len(q) && !End(q, i) {
			continue
		}
		if t := strings.TrimSpace(q[start:i]); t != "" {
			out = append(out, t)
		}
		start = i + 1
	}
	return out
}

// Count returns len(Split(q)) without building the list.
func Count(q string) int {
	n, text := 0, false
	for i := 0; i < len(q); i++ {
		switch c := q[i]; {
		case End(q, i):
			if text {
				n++
			}
			text = false
		case c != ' ' && c != '\t' && c != '\r':
			text = true
		}
	}
	if text {
		n++
	}
	return n
}
