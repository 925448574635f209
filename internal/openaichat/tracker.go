package openaichat

import (
	"slices"
	"strconv"
	"strings"

	"github.com/aisdkgo/ai/provider"
)

// toolDelta is one streamed fragment of a tool call.
type toolDelta struct {
	index *int
	id    string // blank ids are treated as absent
	typ   *string
	name  *string
	args  *string
	meta  provider.ProviderMetadata
}

// trackedCall is a tool call being assembled from fragments.
type trackedCall struct {
	id       string
	index    *int
	seq      int
	name     string
	args     strings.Builder
	shape    argShape
	finished bool
	meta     provider.ProviderMetadata
}

// toolTracker assembles streamed tool calls. Fragments are matched to calls
// by id, then by index, then (with neither) to the only unfinished call.
// Servers differ widely: some number every parallel call 0, some repeat ids,
// some send no ids at all. Calls are only completed when the stream ends,
// because an argument prefix that parses as JSON need not be the whole input.
type toolTracker struct {
	calls   []*trackedCall
	byID    map[string][]*trackedCall
	byIndex map[int][]*trackedCall
	usedIDs map[string]bool
	suffix  map[string]int
	newID   func() string
	emit    func(provider.StreamPart)
}

func newToolTracker(newID func() string, emit func(provider.StreamPart)) *toolTracker {
	return &toolTracker{
		byID:    map[string][]*trackedCall{},
		byIndex: map[int][]*trackedCall{},
		usedIDs: map[string]bool{},
		suffix:  map[string]int{},
		newID:   newID,
		emit:    emit,
	}
}

type resolution struct {
	kind int // resolveNew, resolveExisting or resolveAmbiguous
	call *trackedCall
}

const (
	resolveNew = iota
	resolveExisting
	resolveAmbiguous
)

// add processes one fragment. It returns an error for a fragment that starts
// a call without a usable name or with a type other than "function".
func (t *toolTracker) add(d toolDelta) error {
	blankName := d.name != nil && strings.TrimSpace(*d.name) == ""
	var name *string
	if d.name != nil && !blankName {
		name = d.name
	}
	explicitStart := name != nil && d.args != nil && startsStructured(*d.args)
	r := t.resolve(d.id, d.index, name, explicitStart)
	var call *trackedCall
	switch r.kind {
	case resolveAmbiguous:
		return nil
	case resolveNew:
		if blankName {
			return nil
		}
		if d.typ != nil && *d.typ != "function" {
			return &provider.InvalidResponseDataError{Message: "a streamed tool call has type " + strconv.Quote(*d.typ) + ", expected \"function\""}
		}
		if name == nil {
			return &provider.InvalidResponseDataError{Message: "a streamed tool call has no function name"}
		}
		call = &trackedCall{id: t.callID(d.id), index: d.index, seq: len(t.calls), name: *name, meta: d.meta}
		t.calls = append(t.calls, call)
		if d.id != "" {
			t.byID[d.id] = append(t.byID[d.id], call)
		}
		t.emit(provider.ToolInputStart{ID: call.id, ToolName: call.name})
		if d.args != nil && *d.args != "" {
			call.args.WriteString(*d.args)
			call.shape.add(*d.args)
			t.emit(provider.ToolInputDelta{ID: call.id, Delta: *d.args})
		}
	default:
		call = r.call
		if d.id != "" && !slices.Contains(t.byID[d.id], call) {
			t.byID[d.id] = append(t.byID[d.id], call)
		}
		if !call.finished && d.args != nil {
			call.args.WriteString(*d.args)
			call.shape.add(*d.args)
			t.emit(provider.ToolInputDelta{ID: call.id, Delta: *d.args})
		}
	}
	if d.index != nil && !slices.Contains(t.byIndex[*d.index], call) {
		t.byIndex[*d.index] = append(t.byIndex[*d.index], call)
		if call.index == nil {
			call.index = d.index
		}
	}
	return nil
}

func (t *toolTracker) resolve(id string, index *int, name *string, explicitStart bool) resolution {
	var indexed []*trackedCall
	hasIndexed := false
	if index != nil {
		indexed, hasIndexed = t.byIndex[*index]
	}
	matchingIndexed := filterByName(indexed, name)
	if id != "" {
		if withID, ok := t.byID[id]; ok {
			if index != nil {
				var both []*trackedCall
				for _, c := range matchingIndexed {
					if slices.Contains(withID, c) {
						both = append(both, c)
					}
				}
				if r := pick(both, explicitStart); r.kind != resolveNew {
					return r
				}
				if name != nil {
					return resolution{kind: resolveNew}
				}
				if hasIndexed {
					return resolution{kind: resolveAmbiguous}
				}
				return pick(withID, false)
			}
			if name != nil {
				return pick(filterByName(withID, name), explicitStart)
			}
			return pick(withID, false)
		}
		if len(matchingIndexed) > 0 {
			if explicitStart {
				return resolution{kind: resolveNew}
			}
			return pick(matchingIndexed, false)
		}
		return resolution{kind: resolveNew}
	}
	if hasIndexed {
		return pick(matchingIndexed, explicitStart)
	}
	if name != nil {
		return resolution{kind: resolveNew}
	}
	var unfinished []*trackedCall
	for _, c := range t.calls {
		if !c.finished {
			unfinished = append(unfinished, c)
		}
	}
	switch len(unfinished) {
	case 0:
		return resolution{kind: resolveNew}
	case 1:
		return resolution{kind: resolveExisting, call: unfinished[0]}
	}
	return resolution{kind: resolveAmbiguous}
}

func filterByName(calls []*trackedCall, name *string) []*trackedCall {
	if name == nil {
		return calls
	}
	var out []*trackedCall
	for _, c := range calls {
		if c.name == *name {
			out = append(out, c)
		}
	}
	return out
}

// pick chooses among candidate calls. A fragment that explicitly starts a
// new JSON value may only continue a call whose arguments are incomplete.
func pick(calls []*trackedCall, explicitStart bool) resolution {
	if len(calls) == 0 {
		return resolution{kind: resolveNew}
	}
	if !explicitStart {
		if len(calls) == 1 {
			return resolution{kind: resolveExisting, call: calls[0]}
		}
		return resolution{kind: resolveAmbiguous}
	}
	var open []*trackedCall
	for _, c := range calls {
		if !c.shape.complete() {
			open = append(open, c)
		}
	}
	switch len(open) {
	case 0:
		return resolution{kind: resolveNew}
	case 1:
		return resolution{kind: resolveExisting, call: open[0]}
	}
	return resolution{kind: resolveAmbiguous}
}

// callID returns the wire id, or a generated one when it is missing or
// already taken.
func (t *toolTracker) callID(wire string) string {
	if wire != "" && !t.usedIDs[wire] {
		t.usedIDs[wire] = true
		return wire
	}
	base := strings.TrimSpace(t.newID())
	if base == "" {
		base = "tool-call"
	}
	if !t.usedIDs[base] {
		t.usedIDs[base] = true
		return base
	}
	for n := max(t.suffix[base], 1); ; n++ {
		id := base + "-" + strconv.Itoa(n)
		if !t.usedIDs[id] {
			t.usedIDs[id] = true
			t.suffix[base] = n + 1
			return id
		}
	}
}

// finish completes every open call, in index order when all calls have an
// index and in arrival order otherwise.
func (t *toolTracker) finish() {
	calls := slices.Clone(t.calls)
	allIndexed := true
	for _, c := range calls {
		if c.index == nil {
			allIndexed = false
			break
		}
	}
	if allIndexed {
		slices.SortStableFunc(calls, func(a, b *trackedCall) int {
			if *a.index != *b.index {
				return *a.index - *b.index
			}
			return a.seq - b.seq
		})
	}
	for _, c := range calls {
		if c.finished {
			continue
		}
		c.finished = true
		t.emit(provider.ToolInputEnd{ID: c.id})
		t.emit(provider.ToolCall{ToolCallID: c.id, ToolName: c.name, Input: c.args.String(), ProviderMetadata: c.meta})
	}
}

func startsStructured(s string) bool {
	s = strings.TrimLeft(s, " \t\r\n")
	return s != "" && (s[0] == '{' || s[0] == '[')
}

// argShape follows the argument text far enough to know whether it holds
// one complete JSON object or array.
type argShape struct {
	state    int // 0 undetermined, 1 structured, 2 other
	stack    []byte
	inString bool
	escaped  bool
	done     bool
}

func (s *argShape) complete() bool { return s.state == 1 && s.done }

func (s *argShape) add(text string) {
	for i := 0; i < len(text); i++ {
		c := text[i]
		switch s.state {
		case 0:
			switch c {
			case ' ', '\t', '\r', '\n':
				continue
			case '{', '[':
				s.state = 1
				s.stack = append(s.stack, c)
			default:
				s.state = 2
			}
			continue
		case 2:
			return
		}
		if s.done {
			return
		}
		if s.inString {
			switch {
			case s.escaped:
				s.escaped = false
			case c == '\\':
				s.escaped = true
			case c == '"':
				s.inString = false
			}
			continue
		}
		switch c {
		case '"':
			s.inString = true
		case '{', '[':
			s.stack = append(s.stack, c)
		case '}', ']':
			open := byte('{')
			if c == ']' {
				open = '['
			}
			if len(s.stack) == 0 || s.stack[len(s.stack)-1] != open {
				s.state = 2
				return
			}
			s.stack = s.stack[:len(s.stack)-1]
			if len(s.stack) == 0 {
				s.done = true
			}
		}
	}
}
