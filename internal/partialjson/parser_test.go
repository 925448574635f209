package partialjson

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

// naive is the reference behaviour computed the slow way: the whole text
// parsed again after every piece.
type naive struct {
	text  []byte
	canon []byte
}

func (n *naive) write(delta string) (changed bool, value []byte, state State) {
	n.text = append(n.text, delta...)
	value, state = Parse(n.text)
	if state == Failed {
		return false, nil, state
	}
	c := Canonical(value)
	changed = !bytes.Equal(c, n.canon)
	n.canon = c
	return changed, value, state
}

// checkAgainstNaive feeds pieces to a Parser and to the naive parser and
// compares state, value and change after every piece.
func checkAgainstNaive(t testing.TB, pieces []string) {
	t.Helper()
	var p Parser
	var n naive
	for k, piece := range pieces {
		gotChanged := p.Write(piece)
		wantChanged, want, wantState := n.write(piece)
		if piece == "" {
			wantChanged = false
		}
		got := p.Snapshot().JSON()
		if p.State() != wantState {
			t.Fatalf("after %q (piece %d of %q): state %s, want %s", n.text, k, pieces, p.State(), wantState)
		}
		if !bytes.Equal(Canonical(got), Canonical(want)) {
			t.Fatalf("after %q: value %q, want %q", n.text, got, want)
		}
		if gotChanged != wantChanged {
			t.Fatalf("after %q (piece %q): changed %v, want %v", n.text, piece, gotChanged, wantChanged)
		}
	}
}

func split(s string, size int) []string {
	var out []string
	for len(s) > 0 {
		n := min(size, len(s))
		out = append(out, s[:n])
		s = s[n:]
	}
	return out
}

var documents = []string{
	`{"name":"Ada","age":36,"tags":["math","engines"],"active":true,"spouse":null}`,
	`{"elements":[{"city":"Oslo","temp":-3.5},{"city":"Rome","temp":1.2e1}]}`,
	`{"price":1.0,"big":12345678901234567890,"small":1.05e-3,"zero":0.0,"neg":-0}`,
	`[1, -2.5e-3, 0, true, false, null, "x\n\"y\u00e9\ud83d\ude00"]`,
	`  {  "spaced" : [ 1 , 2 ] , "k" : "v" }  `,
	`{"a":1e+5,"b":2}`,
	`{"esc\"key":1}`,
	`{"a":1,"a":1,"b":2}`,
	`{"a":1} and then some text`,
	`{"a":"line` + "\n" + `break"}`,
	`"a root string"`,
	`-12.5e-2`,
	`{"a":[[[[[]]]]],"b":{"c":{"d":{}}}}`,
}

// TestParserAgainstNaive compares the incremental parser with reparsing
// the whole text, for every document split in pieces of several sizes.
func TestParserAgainstNaive(t *testing.T) {
	for _, d := range documents {
		for _, size := range []int{1, 2, 3, 5, 8, 13, 100} {
			checkAgainstNaive(t, split(d, size))
		}
	}
}

// TestParserChanges pins which pieces change the value.
func TestParserChanges(t *testing.T) {
	var p Parser
	steps := []struct {
		piece   string
		changed bool
		value   string
	}{
		{`{"pri`, true, `{}`},
		{`ce":`, false, `{}`},
		{`1`, true, `{"price":1}`},
		{`.`, false, `{"price":1}`},
		{`0`, false, `{"price":1}`},
		{`5`, true, `{"price":1.05}`},
		{`, "x": "a\`, true, `{"price":1.05,"x":"a"}`},
		{`u00`, false, `{"price":1.05,"x":"a"}`},
		{`e9"`, true, `{"price":1.05,"x":"aé"}`},
		{`, "t": tr`, true, `{"price":1.05,"x":"aé","t":true}`},
		{`ue}`, false, `{"price":1.05,"x":"aé","t":true}`},
	}
	for _, s := range steps {
		if got := p.Write(s.piece); got != s.changed {
			t.Errorf("Write(%q) changed = %v, want %v", s.piece, got, s.changed)
		}
		var want, got any
		_ = json.Unmarshal([]byte(s.value), &want)
		_ = json.Unmarshal(p.Snapshot().JSON(), &got)
		if fmt.Sprint(want) != fmt.Sprint(got) {
			t.Errorf("after %q: %s, want %s", s.piece, p.Snapshot().JSON(), s.value)
		}
	}
	if p.State() != Successful {
		t.Errorf("state %s, want successful", p.State())
	}
}

// TestParserSnapshotsAreStable checks that a snapshot keeps its value
// while the parser goes on.
func TestParserSnapshotsAreStable(t *testing.T) {
	var p Parser
	var snaps []Snapshot
	var want []string
	for _, piece := range split(documents[0], 3) {
		p.Write(piece)
		snaps = append(snaps, p.Snapshot())
		want = append(want, string(p.Snapshot().JSON()))
	}
	for i, s := range snaps {
		if got := string(s.JSON()); got != want[i] {
			t.Fatalf("snapshot %d is now %q, was %q", i, got, want[i])
		}
	}
}

// TestParserBoundsHostileInput checks that deep nesting and long numbers
// take the bounded path and still agree with the reference behaviour.
func TestParserBoundsHostileInput(t *testing.T) {
	checkAgainstNaive(t, split(strings.Repeat("[", 2000)+"1", 64))
	checkAgainstNaive(t, split("["+strings.Repeat("7", 5000), 50))
	// Past the budget, a text outside the grammar is reparsed only when it
	// doubled.
	defer func(b int) { fallbackBudget = b }(fallbackBudget)
	fallbackBudget = 256 << 10
	var p Parser
	p.Write(`{"a":1,"a":"`)
	piece := strings.Repeat("x", 1024)
	for range 4000 {
		p.Write(piece)
	}
	if p.fbSpent > fallbackBudget+2*len(p.Text())+len(piece) {
		t.Fatalf("reparsed %d bytes", p.fbSpent)
	}
}

func FuzzParser(f *testing.F) {
	for _, d := range documents {
		f.Add([]byte(d), uint8(3))
	}
	f.Add([]byte(`{"a":[1,2,{"b":"c\u00`), uint8(1))
	f.Add([]byte("\xff\xfe{\"a\x00\":1}"), uint8(2))
	f.Fuzz(func(t *testing.T, data []byte, size uint8) {
		s := int(size%16) + 1
		// Arbitrary bytes never panic, and the incremental parser agrees
		// with reparsing the whole text.
		checkAgainstNaive(t, split(string(data), s))
		if !json.Valid(data) {
			return
		}
		// Every prefix of a JSON text that shows a value parses. (The
		// reference's repair does not follow an escaped quote inside a
		// key, so texts with one are left out.)
		if bytes.Contains(data, []byte(`\"`)) {
			return
		}
		for i := range len(data) + 1 {
			prefix := data[:i]
			v, state := Parse(prefix)
			trimmed := bytes.TrimLeft(prefix, " \t\r\n")
			if len(trimmed) == 0 || string(trimmed) == "-" {
				continue
			}
			if state == Failed || !json.Valid(v) {
				t.Fatalf("prefix %q of %q does not parse (%s, %q)", prefix, data, state, v)
			}
		}
		if _, state := Parse(data); state != Successful {
			t.Fatalf("%q: state %s", data, state)
		}
	})
}
