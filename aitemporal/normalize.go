package aitemporal

import (
	"encoding/json"
	"fmt"
	"iter"
	"strings"

	"github.com/aisdkgo/ai/uistream"
)

// NormalizeStream turns the chunks of a stream a run published (see
// [Streaming]), as the store keeps them, into the UI message chunks a
// client should receive: one start-step per step, a reset-step where a
// model call was retried or where the recorded step replaces what its
// model call streamed, groups written twice sent once, deltas of a text
// or reasoning part or tool input the client does not have left out. The
// [MarkerName] chunks are not passed on. The start chunk is not part of
// the stored stream: the server sends it first.
//
// A stored chunk that does not parse ends the sequence with its error.
func NormalizeStream(stored iter.Seq2[[]byte, error]) iter.Seq2[uistream.Chunk, error] {
	return func(yield func(uistream.Chunk, error) bool) {
		n := normalizer{open: -1, seen: map[string]bool{}}
		for data, err := range stored {
			if err != nil {
				yield(nil, err)
				return
			}
			c, err := uistream.ParseChunk(data)
			if err != nil {
				yield(nil, err)
				return
			}
			for _, out := range n.chunk(c) {
				if !yield(out, nil) {
					return
				}
			}
		}
	}
}

// normalizer is the state of [NormalizeStream].
type normalizer struct {
	open    int    // the step the client has open, -1 before the first
	phase   string // MarkModel while the open step streams, MarkStep once it is recorded
	attempt int    // the attempt of the open step's model call
	// drop is set while the chunks of a group already sent, or of an
	// attempt that was superseded, go by.
	drop bool
	// seen holds the outputs and finish groups sent.
	seen map[string]bool
	// active holds the text, reasoning and tool input ids the client has
	// open in the current group.
	active map[string]bool
	// group is the marker of the current group.
	group Marker
}

func (n *normalizer) chunk(c uistream.Chunk) []uistream.Chunk {
	if d, ok := c.(uistream.Data); ok && d.Name == MarkerName {
		var m Marker
		raw, _ := d.Data.(json.RawMessage)
		if json.Unmarshal(raw, &m) != nil {
			n.drop = true
			return nil
		}
		return n.marker(m)
	}
	if n.drop {
		return nil
	}
	id := ""
	switch c := c.(type) {
	case uistream.TextStart:
		if !n.owns(c.ID) {
			return nil
		}
		n.activate("t" + c.ID)
	case uistream.ReasoningStart:
		if !n.owns(c.ID) {
			return nil
		}
		n.activate("r" + c.ID)
	case uistream.ToolInputStart:
		if n.group.Kind != MarkModel {
			return nil // only model calls stream tool input
		}
		n.activate("i" + c.ToolCallID)
	case uistream.TextDelta:
		id = "t" + c.ID
	case uistream.TextEnd:
		id = "t" + c.ID
	case uistream.ReasoningDelta:
		id = "r" + c.ID
	case uistream.ReasoningEnd:
		id = "r" + c.ID
	case uistream.ToolInputDelta:
		id = "i" + c.ToolCallID
	}
	if id != "" && !n.active[id] {
		return nil
	}
	return []uistream.Chunk{c}
}

// owns reports whether a text or reasoning part with the id belongs to the
// current group: the parts a model call streams have ids that name the
// step and the attempt ("s2.1-..."), the parts of the other groups do not.
// A worker that was cut off from the server but not from the store may
// still write chunks of a superseded attempt; they are left out.
func (n *normalizer) owns(id string) bool {
	if n.group.Kind == MarkModel {
		return strings.HasPrefix(id, fmt.Sprintf("s%d.%d-", n.group.Step, n.group.Attempt))
	}
	return !streamedID(id)
}

// streamedID reports whether id has the form of a streamed part's id,
// "s<step>.<attempt>-...".
func streamedID(id string) bool {
	rest, ok := strings.CutPrefix(id, "s")
	if !ok {
		return false
	}
	step, rest, ok := strings.Cut(rest, ".")
	if !ok || !digits(step) {
		return false
	}
	attempt, _, ok := strings.Cut(rest, "-")
	return ok && digits(attempt)
}

func digits(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		if r < '0' || r > '9' {
			return false
		}
	}
	return true
}

func (n *normalizer) activate(id string) {
	if n.active == nil {
		n.active = map[string]bool{}
	}
	n.active[id] = true
}

func (n *normalizer) marker(m Marker) []uistream.Chunk {
	n.drop = false
	n.active = nil
	n.group = m
	switch m.Kind {
	case MarkModel:
		switch {
		case m.Step > n.open:
			n.open, n.phase, n.attempt = m.Step, MarkModel, m.Attempt
			return []uistream.Chunk{uistream.StartStep{}}
		case m.Step == n.open && n.phase == MarkModel && m.Attempt >= n.attempt:
			// A retry (or the same attempt's group written again): the
			// client drops what the step got so far.
			n.attempt = m.Attempt
			return []uistream.Chunk{uistream.ResetStep{}}
		}
	case MarkStep:
		switch {
		case m.Step > n.open:
			n.open, n.phase = m.Step, MarkStep
			return []uistream.Chunk{uistream.StartStep{}}
		case m.Step == n.open && n.phase == MarkModel:
			n.phase = MarkStep
			return []uistream.Chunk{uistream.ResetStep{}}
		}
	case MarkOutputs, MarkFinish:
		key := fmt.Sprintf("%s/%d", m.Kind, m.Step)
		if !n.seen[key] {
			n.seen[key] = true
			return nil
		}
	}
	n.drop = true
	return nil
}
