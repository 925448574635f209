package aitemporal_test

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/aisdkgo/ai/aitemporal"
	"github.com/aisdkgo/ai/uistream"
)

func marker(kind string, step, attempt int) uistream.Chunk {
	return uistream.Data{Name: aitemporal.MarkerName, Data: aitemporal.Marker{Kind: kind, Step: step, Attempt: attempt}, Transient: true}
}

func normalize(t *testing.T, in ...uistream.Chunk) []string {
	t.Helper()
	stored := func(yield func([]byte, error) bool) {
		for _, c := range in {
			b, err := uistream.Marshal(c)
			require.NoError(t, err)
			if !yield(b, nil) {
				return
			}
		}
	}
	var out []string
	for c, err := range aitemporal.NormalizeStream(stored) {
		require.NoError(t, err)
		b, err := uistream.Marshal(c)
		require.NoError(t, err)
		out = append(out, string(b))
	}
	return out
}

func wire(t *testing.T, cs ...uistream.Chunk) []string {
	t.Helper()
	var out []string
	for _, c := range cs {
		b, err := uistream.Marshal(c)
		require.NoError(t, err)
		out = append(out, string(b))
	}
	return out
}

// TestNormalizeStream: a retried model call resets the step, the recorded
// step replaces what was streamed, groups written twice are sent once and
// deltas of parts the client does not have are left out.
func TestNormalizeStream(t *testing.T) {
	text := func(id, s string) []uistream.Chunk {
		return []uistream.Chunk{uistream.TextStart{ID: id}, uistream.TextDelta{ID: id, Delta: s}, uistream.TextEnd{ID: id}}
	}
	var in []uistream.Chunk
	in = append(in, marker(aitemporal.MarkModel, 0, 1), uistream.TextStart{ID: "s0.1-t"}, uistream.TextDelta{ID: "s0.1-t", Delta: "Hel"})
	// The worker dies; the retry streams the answer again.
	in = append(in, marker(aitemporal.MarkModel, 0, 2))
	in = append(in, text("s0.2-t", "Hello")...)
	// A late delta of the first attempt.
	in = append(in, uistream.TextDelta{ID: "s0.1-t", Delta: "lo"})
	step := append([]uistream.Chunk{marker(aitemporal.MarkStep, 0, 0)}, text("s0-0", "Hello")...)
	step = append(step, uistream.FinishStep{})
	in = append(in, step...)
	// The step is published twice (the publish activity ran again).
	in = append(in, step...)
	finish := []uistream.Chunk{marker(aitemporal.MarkFinish, 1, 0), uistream.Finish{FinishReason: "stop"}}
	in = append(in, finish...)
	in = append(in, finish...)

	var want []uistream.Chunk
	want = append(want, uistream.StartStep{}, uistream.TextStart{ID: "s0.1-t"}, uistream.TextDelta{ID: "s0.1-t", Delta: "Hel"}, uistream.ResetStep{})
	want = append(want, text("s0.2-t", "Hello")...)
	want = append(want, uistream.ResetStep{})
	want = append(want, text("s0-0", "Hello")...)
	want = append(want, uistream.FinishStep{}, uistream.Finish{FinishReason: "stop"})
	assert.Equal(t, wire(t, want...), normalize(t, in...))
}

// TestNormalizeStreamStaleAttempt: the group of an attempt older than the
// one streaming, or of a step already recorded, is left out, and so are
// the chunks a superseded attempt writes into the groups that follow.
func TestNormalizeStreamStaleAttempt(t *testing.T) {
	in := []uistream.Chunk{
		marker(aitemporal.MarkModel, 0, 2), uistream.TextStart{ID: "s0.2-a"},
		marker(aitemporal.MarkModel, 0, 1), uistream.TextStart{ID: "s0.1-b"},
		marker(aitemporal.MarkStep, 0, 0), uistream.TextStart{ID: "s0-0"},
		// A cut-off worker still writes.
		uistream.TextStart{ID: "s0.1-z"}, uistream.ToolInputStart{ToolCallID: "c1", ToolName: "t"},
		uistream.ToolInputDelta{ToolCallID: "c1", InputTextDelta: "{"},
		uistream.FinishStep{},
		marker(aitemporal.MarkModel, 0, 3), uistream.TextStart{ID: "s0.3-d"},
		marker(aitemporal.MarkModel, 1, 1), uistream.TextStart{ID: "s1.1-e"},
		uistream.TextStart{ID: "s0.2-y"}, uistream.ToolInputStart{ToolCallID: "c2", ToolName: "t"},
	}
	want := wire(t, uistream.StartStep{}, uistream.TextStart{ID: "s0.2-a"}, uistream.ResetStep{}, uistream.TextStart{ID: "s0-0"},
		uistream.FinishStep{}, uistream.StartStep{}, uistream.TextStart{ID: "s1.1-e"}, uistream.ToolInputStart{ToolCallID: "c2", ToolName: "t"})
	assert.Equal(t, want, normalize(t, in...))
}

// TestNormalizeStreamBadChunk: a stored chunk that does not parse ends the
// stream with an error.
func TestNormalizeStreamBadChunk(t *testing.T) {
	stored := func(yield func([]byte, error) bool) {
		_ = yield([]byte(`{"type":"text-delta"}`), nil) && yield(json.RawMessage(`{"type":"finish"}`), nil)
	}
	var errs int
	for _, err := range aitemporal.NormalizeStream(stored) {
		if err != nil {
			errs++
		}
	}
	assert.Equal(t, 1, errs)
}
