package partialjson

import (
	"bytes"
	"encoding/json"
	"math"
	"strconv"
)

// Limits that keep hostile input cheap: past them a Parser reparses the
// whole text instead of following it byte by byte, and the reparsing
// itself has a budget.
const (
	maxDepth        = 512
	maxNumberLength = 400
)

// fallbackBudget bounds the bytes reparsed after the text left the JSON
// grammar; past it, a reparse happens only when the text doubled. (A
// variable so that tests can lower it.)
var fallbackBudget = 16 << 20

// Parser reads a JSON text piece by piece. After each [Parser.Write] its
// [Parser.State] and [Parser.Snapshot] are those [Parse] gives for the
// whole text so far, and Write reports whether the value changed.
//
// While the text follows the JSON grammar, each byte is looked at a fixed
// number of times and a snapshot shares the text instead of copying it.
// A text that leaves the grammar (or uses the few constructs whose repair
// the incremental path does not follow) is reparsed whole on each write,
// within a budget. The zero value is ready to use.
type Parser struct {
	buf []byte
	rep repairer
	sc  scanner

	mode  uint8
	state State

	// In fallback mode: the value of the last reparse, its canonical form
	// and the reparsing spent.
	fbJSON    []byte
	fbCanon   []byte
	fbSpent   int
	fbLast    int
	fbEntered bool
}

const (
	modeStrict   uint8 = iota // the text is a prefix of JSON
	modeTrailing              // a complete value followed by other text
	modeFallback              // anything else
)

// Snapshot is the value a [Parser] had at one moment. It shares the
// parser's text, which only grows, so taking one costs almost nothing;
// [Snapshot.JSON] copies it out.
type Snapshot struct {
	prefix []byte
	suffix []byte
}

// JSON returns the snapshot's JSON text, or nil when there was no value.
func (s Snapshot) JSON() []byte {
	if len(s.prefix) == 0 && len(s.suffix) == 0 {
		return nil
	}
	out := make([]byte, 0, len(s.prefix)+len(s.suffix))
	return append(append(out, s.prefix...), s.suffix...)
}

// Len returns the length of the snapshot's JSON text.
func (s Snapshot) Len() int { return len(s.prefix) + len(s.suffix) }

// Text returns the text written so far. It must not be modified.
func (p *Parser) Text() []byte { return p.buf }

// State returns how the text so far parses.
func (p *Parser) State() State { return p.state }

// Snapshot returns the current value.
func (p *Parser) Snapshot() Snapshot {
	switch {
	case p.state == Failed:
		return Snapshot{}
	case p.mode == modeFallback:
		return Snapshot{prefix: p.fbJSON}
	}
	n := p.rep.lastValid + 1
	return Snapshot{prefix: p.buf[:n:n], suffix: p.rep.appendClosers(nil, p.buf)}
}

// Write appends a piece of text and reports whether the value changed:
// appeared, or became different from the last value there was (a text
// that stops parsing keeps its last value for this comparison).
func (p *Parser) Write(delta string) bool {
	if len(p.rep.stack) == 0 {
		p.rep.init()
	}
	if delta == "" {
		return false
	}
	start := len(p.buf)
	p.buf = append(p.buf, delta...)
	changed := false
	for i := start; i < len(p.buf); i++ {
		if p.mode == modeStrict {
			// Plain string content is read in one go.
			if j := p.stringRun(i); j > i {
				changed = changed || !p.sc.isKey
				i = j - 1
				continue
			}
		}
		c := p.buf[i]
		p.rep.step(p.buf, i, c)
		switch p.mode {
		case modeStrict:
			switch p.sc.step(p.buf, i, c) {
			case stepChanged:
				changed = true
			case stepTrailing:
				p.mode = modeTrailing
			case stepLeave:
				p.mode = modeFallback
			}
		}
		if p.mode == modeFallback {
			break
		}
	}
	switch p.mode {
	case modeStrict:
		p.state = p.sc.state()
		return changed
	case modeTrailing:
		p.state = Repaired
		return changed
	}
	if !p.fbEntered {
		// Entering fallback: the value before this write is the base.
		p.fbEntered = true
		if before, state := Parse(p.buf[:start]); state != Failed {
			p.fbJSON = bytes.Clone(before)
			p.fbCanon = Canonical(p.fbJSON)
		}
	}
	return p.reparse()
}

// stringRun skips the plain bytes of a string (neither quote, backslash
// nor control byte) from i, updating both machines as byte-wise reading
// would, and returns where the run ends.
func (p *Parser) stringRun(i int) int {
	sc := &p.sc
	if sc.tok != tString || sc.esc != 0 {
		return i
	}
	want := rString
	if sc.isKey {
		want = rObjectKey
	}
	if p.rep.top() != want {
		return i
	}
	j := i
	for j < len(p.buf) {
		c := p.buf[j]
		if c == '"' || c == '\\' || c < 0x20 {
			break
		}
		j++
	}
	if j > i && !sc.isKey {
		p.rep.lastValid = j - 1
	}
	return j
}

// reparse parses the whole text again, within the budget, and reports
// whether the value changed.
func (p *Parser) reparse() bool {
	if p.fbSpent > fallbackBudget && len(p.buf) < 2*p.fbLast {
		return false
	}
	p.fbSpent += len(p.buf)
	p.fbLast = len(p.buf)
	v, state := Parse(p.buf)
	if state == Successful {
		// The text may be reused by later writes: keep a copy.
		v = bytes.Clone(v)
	}
	p.state = state
	if state == Failed {
		// The last value stands; a later one is compared with it.
		return false
	}
	canon := Canonical(v)
	changed := !bytes.Equal(canon, p.fbCanon)
	p.fbJSON, p.fbCanon = v, canon
	return changed
}

// Canonical returns a form of a JSON value that is equal for equal
// values. Numbers compare as float64, as JavaScript reads them: numbers
// too large for a float64 read as null, as JavaScript writes Infinity.
func Canonical(v []byte) []byte {
	if v == nil {
		return nil
	}
	d := json.NewDecoder(bytes.NewReader(v))
	d.UseNumber()
	var x any
	if err := d.Decode(&x); err != nil {
		return v
	}
	b, err := json.Marshal(jsNumbers(x))
	if err != nil {
		return v
	}
	return b
}

func jsNumbers(x any) any {
	switch x := x.(type) {
	case json.Number:
		f, err := strconv.ParseFloat(string(x), 64)
		if err != nil && (math.IsInf(f, 0) || math.IsNaN(f)) {
			return nil
		}
		return f
	case map[string]any:
		for k, e := range x {
			x[k] = jsNumbers(e)
		}
	case []any:
		for i, e := range x {
			x[i] = jsNumbers(e)
		}
	}
	return x
}

// What one byte did to the value.
type stepResult uint8

const (
	stepSame     stepResult = iota
	stepChanged             // the value changed
	stepTrailing            // text after a complete value
	stepLeave               // the incremental path cannot follow
)

// Where the scanner is, between tokens.
type where uint8

const (
	wValue       where = iota // a value must come
	wArrayFirst               // a value or ']'
	wObjectFirst              // a key or '}'
	wKey                      // a key must come
	wColon                    // ':' must come
	wAfter                    // ',' or a closing bracket (or the end, at the root)
)

type token uint8

const (
	tNone token = iota
	tString
	tNumber
	tLiteral
)

// The states of a number, after the byte named.
type numState uint8

const (
	nMinus numState = iota
	nZero
	nInt
	nDot
	nFrac
	nExp
	nExpSign
	nExpDigits
)

type frame struct {
	object bool
	// The keys seen, as spans of the text; a map once there are many.
	spans []span
	keys  map[string]struct{}
}

type span struct{ start, end int }

// addKey records the key buf[start:end] and reports false when the
// object already has it.
func (f *frame) addKey(buf []byte, start, end int) bool {
	key := buf[start:end]
	if f.keys != nil {
		if _, dup := f.keys[string(key)]; dup {
			return false
		}
		f.keys[string(key)] = struct{}{}
		return true
	}
	for _, s := range f.spans {
		if string(buf[s.start:s.end]) == string(key) {
			return false
		}
	}
	if len(f.spans) < 16 {
		f.spans = append(f.spans, span{start, end})
		return true
	}
	f.keys = make(map[string]struct{}, 32)
	for _, s := range f.spans {
		f.keys[string(buf[s.start:s.end])] = struct{}{}
	}
	f.keys[string(key)] = struct{}{}
	f.spans = nil
	return true
}

// scanner follows the JSON grammar strictly and tells which bytes change
// the repaired value.
type scanner struct {
	stack []frame
	where where
	tok   token

	// strings
	isKey    bool
	esc      uint8 // 0, 1 after a backslash, 2..5 within \uXXXX
	keyStart int

	// numbers
	num      numState
	numStart int
	numVal   float64
	hasNum   bool

	// literals
	lit    string
	litPos int

	rooted bool // the root value shows in the repair
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

// state returns the parse state of the text so far.
func (s *scanner) state() State {
	if !s.rooted {
		return Failed
	}
	if len(s.stack) == 0 {
		switch s.tok {
		case tNone:
			if s.where == wAfter {
				return Successful
			}
		case tNumber:
			switch s.num {
			case nZero, nInt, nFrac, nExpDigits:
				return Successful
			}
		}
	}
	return Repaired
}

func (s *scanner) step(buf []byte, i int, c byte) stepResult {
	switch s.tok {
	case tString:
		return s.stringByte(buf, i, c)
	case tLiteral:
		if c != s.lit[s.litPos] {
			return stepLeave
		}
		s.litPos++
		if s.litPos == len(s.lit) {
			s.tok, s.where = tNone, wAfter
		}
		return stepSame
	case tNumber:
		r, done := s.numberByte(buf, i, c)
		if !done {
			return r
		}
		// The byte ends the number and is read as structure.
	}
	return s.structure(i, c)
}

func (s *scanner) stringByte(buf []byte, i int, c byte) stepResult {
	value := stepChanged
	if s.isKey {
		value = stepSame
	}
	switch {
	case s.esc == 1:
		switch c {
		case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
			s.esc = 0
			return value
		case 'u':
			s.esc = 2
			return stepSame
		}
		return stepLeave
	case s.esc >= 2:
		if !isHex(c) {
			return stepLeave
		}
		s.esc++
		if s.esc == 6 {
			s.esc = 0
			return value
		}
		return stepSame
	case c == '"':
		s.tok = tNone
		if !s.isKey {
			s.where = wAfter
			return stepSame
		}
		if !s.stack[len(s.stack)-1].addKey(buf, s.keyStart, i) {
			return stepLeave
		}
		s.where = wColon
		return stepSame
	case c == '\\':
		if s.isKey {
			// The reference's repair does not follow escapes in keys.
			return stepLeave
		}
		s.esc = 1
		return stepSame
	case c < 0x20:
		return stepLeave
	}
	return value
}

// numberByte reads a byte of a number; done reports that the byte is not
// part of it.
func (s *scanner) numberByte(buf []byte, i int, c byte) (stepResult, bool) {
	switch {
	case c >= '0' && c <= '9':
		switch s.num {
		case nMinus:
			if c == '0' {
				s.num = nZero
			} else {
				s.num = nInt
			}
		case nZero:
			return stepLeave, false
		case nDot:
			s.num = nFrac
		case nExp, nExpSign:
			s.num = nExpDigits
		}
		if i-s.numStart >= maxNumberLength {
			return stepLeave, false
		}
		f, _ := strconv.ParseFloat(string(buf[s.numStart:i+1]), 64)
		changed := !s.hasNum || f != s.numVal
		s.numVal, s.hasNum = f, true
		s.rootedIfTop()
		if changed {
			return stepChanged, false
		}
		return stepSame, false
	case c == '.':
		if s.num != nZero && s.num != nInt {
			return stepLeave, false
		}
		s.num = nDot
		return stepSame, false
	case c == 'e' || c == 'E':
		if s.num != nZero && s.num != nInt && s.num != nFrac {
			return stepLeave, false
		}
		s.num = nExp
		return stepSame, false
	case c == '-':
		if s.num != nExp {
			return stepLeave, false
		}
		s.num = nExpSign
		return stepSame, false
	case c == '+':
		// The reference's repair treats an explicit exponent sign in its
		// own way; reparse rather than follow it.
		return stepLeave, false
	}
	switch s.num {
	case nZero, nInt, nFrac, nExpDigits:
	default:
		return stepLeave, false
	}
	s.tok, s.where = tNone, wAfter
	return stepSame, true
}

func (s *scanner) rootedIfTop() {
	if len(s.stack) == 0 {
		s.rooted = true
	}
}

func (s *scanner) structure(i int, c byte) stepResult {
	if isSpace(c) {
		return stepSame
	}
	switch s.where {
	case wValue, wArrayFirst:
		if s.where == wArrayFirst && c == ']' {
			return s.close(false)
		}
		return s.valueStart(i, c)
	case wObjectFirst:
		if c == '}' {
			return s.close(true)
		}
		fallthrough
	case wKey:
		if c != '"' {
			return stepLeave
		}
		s.tok, s.isKey, s.esc, s.keyStart = tString, true, 0, i+1
		return stepSame
	case wColon:
		if c != ':' {
			return stepLeave
		}
		s.where = wValue
		return stepSame
	case wAfter:
		if len(s.stack) == 0 {
			return stepTrailing
		}
		object := s.stack[len(s.stack)-1].object
		switch {
		case c == ',' && object:
			s.where = wKey
		case c == ',':
			s.where = wValue
		case c == '}' && object, c == ']' && !object:
			return s.close(object)
		default:
			return stepLeave
		}
		return stepSame
	}
	return stepLeave
}

func (s *scanner) valueStart(i int, c byte) stepResult {
	switch c {
	case '"':
		s.tok, s.isKey, s.esc = tString, false, 0
	case '{', '[':
		if len(s.stack) >= maxDepth {
			return stepLeave
		}
		s.rootedIfTop()
		var spans []span
		if len(s.stack) < cap(s.stack) {
			spans = s.stack[:len(s.stack)+1][len(s.stack)].spans[:0]
		}
		s.stack = append(s.stack, frame{object: c == '{', spans: spans})
		if c == '{' {
			s.where = wObjectFirst
		} else {
			s.where = wArrayFirst
		}
		return stepChanged
	case 't', 'f', 'n':
		s.tok, s.litPos = tLiteral, 1
		switch c {
		case 't':
			s.lit = "true"
		case 'f':
			s.lit = "false"
		default:
			s.lit = "null"
		}
	case '-':
		s.tok, s.num, s.numStart, s.hasNum = tNumber, nMinus, i, false
		return stepSame
	default:
		if c < '0' || c > '9' {
			return stepLeave
		}
		s.tok, s.numStart, s.hasNum = tNumber, i, true
		s.num = nInt
		if c == '0' {
			s.num = nZero
		}
		s.numVal = float64(c - '0')
	}
	s.rootedIfTop()
	return stepChanged
}

func (s *scanner) close(object bool) stepResult {
	if s.stack[len(s.stack)-1].object != object {
		return stepLeave
	}
	s.stack = s.stack[:len(s.stack)-1]
	s.where = wAfter
	return stepSame
}
