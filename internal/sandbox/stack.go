package sandbox

import (
	"strconv"
	"strings"
)

// Bounds of a rewritten stack.
const (
	maxStackFrames     = 32
	maxStackFrameBytes = 512
)

// normalizeStack turns the stack string of a guest exception into the frames
// of the program itself, each "    at <function> (code-mode.js:<line>:<col>)"
// with the program's own line and column, or "    at <function> (native)"
// for a built-in the program called. Frames of the prelude are dropped, and
// so are built-ins below the program's last frame (the prelude called
// them). shift is the number of columns the wrapper adds to the first line.
func normalizeStack(raw string, shift int) []string {
	type frame struct {
		text    string
		program bool
	}
	var frames []frame
	for line := range strings.SplitSeq(raw, "\n") {
		line = strings.TrimSpace(line)
		rest, ok := strings.CutPrefix(line, "at ")
		if !ok {
			continue
		}
		name, loc := rest, ""
		if i := strings.LastIndex(rest, " ("); i >= 0 && strings.HasSuffix(rest, ")") {
			name, loc = rest[:i], rest[i+2:len(rest)-1]
		}
		switch {
		case loc == "native":
			frames = append(frames, frame{text: "    at " + name + " (native)"})
		case strings.HasPrefix(loc, programFile+":"):
			l, c, ok := parseLineCol(loc[len(programFile)+1:])
			if !ok {
				continue
			}
			if l == 1 {
				c = max(c-shift, 1)
			}
			frames = append(frames, frame{
				text:    "    at " + name + " (" + programFile + ":" + strconv.Itoa(l) + ":" + strconv.Itoa(c) + ")",
				program: true,
			})
		}
	}
	last := -1
	for i, f := range frames {
		if f.program {
			last = i
		}
	}
	out := make([]string, 0, min(last+1, maxStackFrames))
	for _, f := range frames[:last+1] {
		if len(out) == maxStackFrames {
			break
		}
		out = append(out, truncateUTF8(f.text, maxStackFrameBytes))
	}
	return out
}

func parseLineCol(s string) (line, col int, ok bool) {
	ls, cs, found := strings.Cut(s, ":")
	if !found {
		return 0, 0, false
	}
	l, err1 := strconv.Atoi(ls)
	c, err2 := strconv.Atoi(cs)
	return l, c, err1 == nil && err2 == nil && l > 0 && c > 0
}

// truncateUTF8 returns s cut to at most n bytes, at a character boundary.
func truncateUTF8(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && n < len(s) && s[n]&0xc0 == 0x80 {
		n--
	}
	return s[:n]
}
