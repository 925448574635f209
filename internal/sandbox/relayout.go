package sandbox

import (
	"strings"
	"unicode/utf8"
)

// relayout returns gen, esbuild's whitespace-free output for input, with
// line breaks and spaces added so that each piece of code stands at the line
// of input it came from, one line up (input's first line is the wrapper's
// head, which shares the script's first line with the program's first line),
// and at its column where the output is not already past it. mappings is
// the source map's "mappings" field. It also returns the columns by which
// the first line is shifted.
//
// Whitespace between tokens changes nothing, except for a line break where
// the grammar forbids one: after return, throw, break, continue, yield and
// async, and before ++, -- and =>. There only spaces are added. Pieces that
// esbuild moved (hoisted declarations, lowered syntax) keep the position
// they have.
func relayout(input, gen, mappings string) (string, int) {
	lines := strings.Split(input, "\n")
	var out strings.Builder
	out.Grow(len(gen) + len(gen)/4)
	outLine, outCol := 1, 0 // position in out: 1-based line, 0-based column in code points
	shift := -1
	var cols columnCursor

	var (
		lineEnd   int
		cursor    int // byte offset in gen copied so far
		cursorCol int // UTF-16 column of cursor in the current output line
		srcLine   int
		srcCol    int
		genCol    int
		copyTo    func(int)
		vlqOK     = true
	)
	lineEnd = strings.IndexByte(gen, '\n')
	if lineEnd < 0 {
		lineEnd = len(gen)
	}
	copyTo = func(end int) {
		chunk := gen[cursor:end]
		out.WriteString(chunk)
		outCol += utf8.RuneCountInString(chunk)
		cursor = end
	}
	// byteAt returns the offset in gen of UTF-16 column col of the current
	// line, moving forward from the cursor.
	byteAt := func(col int) int {
		p, c := cursor, cursorCol
		for p < lineEnd && c < col {
			r, n := utf8.DecodeRuneInString(gen[p:])
			p += n
			c += utf16Len(r)
		}
		cursorCol = c
		return p
	}
	nextLine := func() {
		if lineEnd < len(gen) {
			copyTo(lineEnd)
			out.WriteByte('\n')
			outLine++
			outCol = 0
			cursor = lineEnd + 1
		}
		cursorCol = 0
		if i := strings.IndexByte(gen[cursor:], '\n'); i >= 0 {
			lineEnd = cursor + i
		} else {
			lineEnd = len(gen)
		}
	}

	for i := 0; i < len(mappings) && vlqOK; {
		switch mappings[i] {
		case ';':
			nextLine()
			genCol = 0
			i++
			continue
		case ',':
			i++
			continue
		}
		var fields [5]int
		n := 0
		for i < len(mappings) && mappings[i] != ',' && mappings[i] != ';' {
			v, next, ok := decodeVLQ(mappings, i)
			if !ok {
				vlqOK = false
				break
			}
			if n < len(fields) {
				fields[n] = v
			}
			n++
			i = next
		}
		if !vlqOK || n == 0 {
			break
		}
		genCol += fields[0]
		if n < 4 {
			continue
		}
		srcLine += fields[2]
		srcCol += fields[3]
		at := byteAt(genCol)
		if at < cursor {
			continue
		}
		copyTo(at)
		if srcLine < 1 || srcLine >= len(lines) {
			continue
		}
		target := srcLine
		if target > outLine && canBreak(out.String(), gen[cursor:]) {
			out.WriteString(strings.Repeat("\n", target-outLine))
			outLine, outCol = target, 0
		}
		if target != outLine {
			continue
		}
		col := cols.column(lines, srcLine, srcCol)
		if target == 1 {
			if shift < 0 {
				shift = max(outCol-col, 0)
			}
			col += shift
		}
		if col > outCol {
			out.WriteString(strings.Repeat(" ", col-outCol))
			outCol = col
		}
	}
	if !vlqOK {
		return gen, 0
	}
	copyTo(len(gen))
	return out.String(), max(shift, 0)
}

// canBreak reports whether a line break may stand between out and rest
// without changing the program.
func canBreak(out, rest string) bool {
	if strings.HasPrefix(rest, "++") || strings.HasPrefix(rest, "--") || strings.HasPrefix(rest, "=>") {
		return false
	}
	out = strings.TrimRight(out, " ")
	end := len(out)
	start := end
	for start > 0 && isIdentByte(out[start-1]) {
		start--
	}
	if start == end || (start > 0 && out[start-1] == '.') {
		return true
	}
	switch out[start:end] {
	case "return", "throw", "break", "continue", "yield", "async":
		return false
	}
	return true
}

func isIdentByte(c byte) bool {
	return c == '_' || c == '$' || c >= 0x80 || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9'
}

func utf16Len(r rune) int {
	if r >= 0x10000 {
		return 2
	}
	return 1
}

// columnCursor converts UTF-16 columns of input lines to code points, the
// unit the engine counts columns in. Successive columns of a line mostly
// grow, so it goes on from the last one instead of from the line's start.
type columnCursor struct {
	line, units, points, off int
}

func (c *columnCursor) column(lines []string, line, col int) int {
	if line != c.line || col < c.units {
		*c = columnCursor{line: line}
	}
	s := lines[line]
	for c.off < len(s) && c.units < col {
		r, n := utf8.DecodeRuneInString(s[c.off:])
		c.off += n
		c.units += utf16Len(r)
		c.points++
	}
	return c.points
}

const base64Digits = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"

var base64Values = func() (t [256]int8) {
	for i := range t {
		t[i] = -1
	}
	for i := range len(base64Digits) {
		t[base64Digits[i]] = int8(i)
	}
	return t
}()

// decodeVLQ decodes the base64 VLQ number of a source map starting at s[i].
func decodeVLQ(s string, i int) (v, next int, ok bool) {
	shift := 0
	for i < len(s) {
		d := base64Values[s[i]]
		if d < 0 || shift > 30 {
			return 0, i, false
		}
		i++
		v |= int(d&31) << shift
		shift += 5
		if d&32 == 0 {
			if v&1 != 0 {
				return -(v >> 1), i, true
			}
			return v >> 1, i, true
		}
	}
	return 0, i, false
}
