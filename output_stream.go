package ai

import (
	"bytes"
	"encoding/json"
	"slices"
	"strings"

	"github.com/aisdkgo/ai/internal/partialjson"
)

// reparseBudget bounds the bytes the outputs that reparse the whole text
// on each delta (choices, and arrays whose text is not of the usual form)
// spend per step; past it they reparse only when the text doubled.
const reparseBudget = 16 << 20

// outputFilter is the output's view of one streaming step, placed between
// the step's text parts and the reader. The text deltas of the step's
// first text block are held back until the partial output changes; then
// they are emitted as one delta, followed by the new [PartialOutput] and,
// for an array, an [OutputElement] for each element that completed.
type outputFilter struct {
	ss   *streamStep
	spec *outputSpec

	first    string
	hasFirst bool
	held     strings.Builder
	meta     ProviderMetadata

	parser  partialjson.Parser        // object and JSON outputs
	scanner *partialjson.ArrayScanner // array outputs, until the text takes another form
	text    []byte                    // the block's text, for the outputs that reparse it

	published     bool
	lastPublished []byte // the canonical JSON of the last partial value
	spent, last   int    // reparsing budget
}

// newOutputFilter returns the filter of a streaming step, or nil when the
// output has no partial values.
func newOutputFilter(ss *streamStep) *outputFilter {
	spec, _ := ss.st.r.opts.Output.(*outputSpec)
	if spec == nil || spec.kind == "text" {
		return nil
	}
	f := &outputFilter{ss: ss, spec: spec}
	if spec.kind == "array" {
		f.scanner = &partialjson.ArrayScanner{Check: func(elem []byte) partialjson.Verdict {
			if parseJSON(elem) != nil {
				return partialjson.NotJSON
			}
			if spec.schema.validate(spec.schema.nullsAsAbsent(elem)) != nil {
				return partialjson.Rejected
			}
			return partialjson.Accepted
		}}
	}
	return f
}

// emitText hands a text part to the reader, through the output filter
// when the step has one. It reports false when the reader stopped.
func (ss *streamStep) emitText(p Part) bool {
	if ss.filter == nil {
		return ss.st.emit(p)
	}
	return ss.filter.part(p)
}

// flushText emits the text deltas still held back, before the step ends.
func (ss *streamStep) flushText() bool {
	if ss.filter == nil {
		return true
	}
	return ss.filter.flush()
}

func (f *outputFilter) emit(p Part) bool { return f.ss.st.emit(p) }

func (f *outputFilter) flush() bool {
	if f.held.Len() == 0 {
		return true
	}
	d := TextDelta{ID: f.first, Delta: f.held.String(), ProviderMetadata: f.meta}
	f.held.Reset()
	return f.emit(d)
}

func (f *outputFilter) isFirst(id string) bool {
	if !f.hasFirst {
		f.first, f.hasFirst = id, true
	}
	return id == f.first
}

func (f *outputFilter) part(p Part) bool {
	switch p := p.(type) {
	case TextStart:
		f.isFirst(p.ID)
	case TextEnd:
		if f.isFirst(p.ID) && !f.flush() {
			return false
		}
	case TextDelta:
		if !f.isFirst(p.ID) {
			break
		}
		f.held.WriteString(p.Delta)
		if p.ProviderMetadata != nil {
			f.meta = p.ProviderMetadata
		}
		if p.Delta == "" {
			// A delta with metadata only goes through as it is.
			break
		}
		partial, ok := f.update(p.Delta)
		if !ok {
			return true
		}
		if !f.flush() || !f.emit(PartialOutput{partial: partial}) {
			return false
		}
		return f.elements(partial)
	}
	return f.emit(p)
}

// elements emits the array elements that completed.
func (f *outputFilter) elements(partial partialValue) bool {
	if !partial.array {
		return true
	}
	out := &f.ss.st.r.out
	for out.elements < len(partial.elems) {
		if m := f.spec.max; m != nil && out.elements >= *m {
			// More elements than allowed: the final output fails.
			return true
		}
		e := OutputElement{Index: out.elements, Value: bytes.Clone(f.spec.schema.nullsAsAbsent(partial.elems[out.elements]))}
		out.elements++
		if !f.emit(e) {
			return false
		}
	}
	return true
}

// update reads a delta and returns the new partial value when it changed.
func (f *outputFilter) update(delta string) (partialValue, bool) {
	switch f.spec.kind {
	case "object", "json":
		if !f.parser.Write(delta) || f.parser.State() == partialjson.Failed {
			return partialValue{}, false
		}
		return partialValue{snap: f.parser.Snapshot()}, true
	case "array":
		f.text = append(f.text, delta...)
		if f.scanner != nil {
			publish, fallback := f.scanner.Write(delta)
			if !fallback {
				if !publish {
					return partialValue{}, false
				}
				elems := f.scanner.Elements()
				f.published, f.lastPublished = true, nil
				return partialValue{elems: elems, array: true}, true
			}
			last := f.scanner.Elements()
			f.scanner = nil
			if f.published {
				f.lastPublished = partialjson.Canonical(joinRaw(last))
			}
		}
		elems, ok := f.arrayPartial()
		if !ok {
			return partialValue{}, false
		}
		return f.publishIfNew(partialValue{elems: elems, array: true}, joinRaw(elems))
	case "choice":
		f.text = append(f.text, delta...)
		s, ok := f.choicePartial()
		if !ok {
			return partialValue{}, false
		}
		raw, _ := json.Marshal(s)
		return f.publishIfNew(partialValue{raw: raw}, raw)
	}
	return partialValue{}, false
}

func (f *outputFilter) publishIfNew(p partialValue, raw []byte) (partialValue, bool) {
	c := partialjson.Canonical(raw)
	if f.published && bytes.Equal(c, f.lastPublished) {
		return partialValue{}, false
	}
	f.published, f.lastPublished = true, c
	return p, true
}

// reparse parses the block's whole text, within the budget.
func (f *outputFilter) reparse() ([]byte, partialjson.State, bool) {
	if f.spent > reparseBudget && len(f.text) < 2*f.last {
		return nil, partialjson.Failed, false
	}
	f.spent += len(f.text)
	f.last = len(f.text)
	v, state := partialjson.Parse(f.text)
	return v, state, state != partialjson.Failed
}

// arrayPartial returns the valid complete elements of the text so far:
// all elements of a complete text, all but the last of a repaired one.
func (f *outputFilter) arrayPartial() ([][]byte, bool) {
	v, state, ok := f.reparse()
	if !ok {
		return nil, false
	}
	var outer map[string]json.RawMessage
	var raw []json.RawMessage
	if json.Unmarshal(v, &outer) != nil || len(outer["elements"]) == 0 || outer["elements"][0] != '[' ||
		json.Unmarshal(outer["elements"], &raw) != nil {
		return nil, false
	}
	if state == partialjson.Repaired && len(raw) > 0 {
		raw = raw[:len(raw)-1]
	}
	elems := make([][]byte, 0, len(raw))
	for _, e := range raw {
		if f.spec.schema.validate(e) == nil {
			elems = append(elems, e)
		}
	}
	return elems, true
}

// choicePartial returns the choice the text so far singles out: the
// complete value when it is a choice, or the only choice a cut-off value
// begins.
func (f *outputFilter) choicePartial() (string, bool) {
	v, state, ok := f.reparse()
	if !ok {
		return "", false
	}
	var outer map[string]json.RawMessage
	var s string
	if json.Unmarshal(v, &outer) != nil || outer["result"] == nil || json.Unmarshal(outer["result"], &s) != nil {
		return "", false
	}
	if state == partialjson.Successful {
		return s, slices.Contains(f.spec.choices, s)
	}
	match, n := "", 0
	for _, c := range f.spec.choices {
		if strings.HasPrefix(c, s) {
			match, n = c, n+1
		}
	}
	return match, n == 1
}

func joinRaw(elems [][]byte) []byte {
	var b bytes.Buffer
	b.WriteByte('[')
	for i, e := range elems {
		if i > 0 {
			b.WriteByte(',')
		}
		b.Write(e)
	}
	b.WriteByte(']')
	return b.Bytes()
}
