package middleware

import (
	"context"
	"strconv"
	"strings"

	"github.com/aisdkgo/ai/internal/seq"
	"github.com/aisdkgo/ai/provider"
)

// ReasoningOptions adjust [ExtractReasoning].
type ReasoningOptions struct {
	// Opening and Closing, when set, are the literal delimiters of a
	// reasoning section, replacing "<tag>" and "</tag>" (for formats that
	// are not XML-like tags).
	Opening, Closing string
	// Separator joins several reasoning sections, and the text before and
	// after a removed section; empty means "\n".
	Separator string
	// StartWithReasoning says that the output starts inside a reasoning
	// section (models whose template already opened the tag).
	StartWithReasoning bool
}

// ExtractReasoning returns a middleware that moves the sections of text
// between <tag> and </tag> (for example <think>...</think>, which many local
// models write) out of the text and into reasoning. In a generated
// response, each text part with sections becomes a reasoning part followed
// by the remaining text; in a stream, the sections become reasoning blocks,
// also when a tag is split across deltas. Both give the same text and
// reasoning: the non-empty pieces of each, joined by the separator. A
// section that is never closed runs to the end of the text. It panics when
// the delimiters are empty.
func ExtractReasoning(tag string, opts *ReasoningOptions) Middleware {
	x := extractor{open: "<" + tag + ">", close: "</" + tag + ">", sep: "\n"}
	if opts != nil {
		if opts.Opening != "" {
			x.open = opts.Opening
		}
		if opts.Closing != "" {
			x.close = opts.Closing
		}
		if opts.Separator != "" {
			x.sep = opts.Separator
		}
		x.start = opts.StartWithReasoning
	}
	if tag == "" && (opts == nil || opts.Opening == "" || opts.Closing == "") {
		panic("middleware.ExtractReasoning: the reasoning delimiters must not be empty")
	}
	return New(Hooks{
		WrapGenerate: func(ctx context.Context, next provider.LanguageModel, opts *provider.CallOptions) (*provider.GenerateResult, error) {
			res, err := next.Generate(ctx, opts)
			if err != nil || res == nil {
				return res, err
			}
			out := *res
			out.Content = make([]provider.Content, 0, len(res.Content)+1)
			for _, c := range res.Content {
				t, ok := c.(provider.Text)
				if !ok {
					out.Content = append(out.Content, c)
					continue
				}
				text, reasoning, found := x.split(t.Text)
				if !found {
					out.Content = append(out.Content, c)
					continue
				}
				t.Text = text
				out.Content = append(out.Content, provider.Reasoning{Text: reasoning}, t)
			}
			return &out, nil
		},
		WrapStream: func(ctx context.Context, next provider.LanguageModel, opts *provider.CallOptions) (*provider.StreamResult, error) {
			res, err := next.Stream(ctx, opts)
			if err != nil || res == nil || res.Stream == nil {
				return res, err
			}
			out := *res
			out.Stream = func(yield func(provider.StreamPart, error) bool) {
				s := &reasoningStream{x: x, yield: yield, blocks: map[string]*textState{}, starts: map[string]provider.TextStart{}}
				stopped := false
				seq.Each(res.Stream, func(p provider.StreamPart, err error) bool {
					if err != nil {
						stopped = !s.flushAll() || !yield(nil, err)
					} else {
						stopped = !s.part(p)
					}
					return !stopped
				})
				if !stopped {
					s.flushAll()
				}
			}
			return &out, nil
		},
	})
}

type extractor struct {
	open, close, sep string
	start            bool
}

// split removes the reasoning sections from a text and returns the rest
// and the sections, each with its non-empty pieces joined by the separator
// (the text a stream of the same output would produce).
func (x extractor) split(input string) (text, reasoning string, found bool) {
	var texts, sections []string
	rest, inReasoning := input, x.start
	found = x.start
	add := func(piece string) {
		switch {
		case piece == "":
		case inReasoning:
			sections = append(sections, piece)
		default:
			texts = append(texts, piece)
		}
	}
	for {
		tag := x.open
		if inReasoning {
			tag = x.close
		}
		i := strings.Index(rest, tag)
		if i < 0 {
			break
		}
		add(rest[:i])
		rest = rest[i+len(tag):]
		inReasoning = !inReasoning
		found = true
	}
	add(rest)
	if !found {
		return input, "", false
	}
	return strings.Join(texts, x.sep), strings.Join(sections, x.sep), true
}

// textState is the extraction state of one text block of a stream.
type textState struct {
	id             string
	buf            string
	reasoning      bool   // inside a reasoning section
	reasoningID    string // the open reasoning block, "" when none
	reasoningOpen  bool   // its start was emitted
	firstReasoning bool
	firstText      bool
	afterSwitch    bool
}

type reasoningStream struct {
	x      extractor
	yield  func(provider.StreamPart, error) bool
	blocks map[string]*textState
	order  []string
	starts map[string]provider.TextStart // text starts held back until text is published
	n      int
}

func (s *reasoningStream) emit(p provider.StreamPart) bool { return s.yield(p, nil) }

func (s *reasoningStream) state(id string) *textState {
	if st := s.blocks[id]; st != nil {
		return st
	}
	st := &textState{id: id, reasoning: s.x.start, firstReasoning: true, firstText: true}
	s.blocks[id] = st
	s.order = append(s.order, id)
	return st
}

func (s *reasoningStream) reasoningID(st *textState) string {
	if st.reasoningID == "" {
		st.reasoningID = "reasoning-" + strconv.Itoa(s.n)
		s.n++
	}
	return st.reasoningID
}

// startText emits a held-back text start.
func (s *reasoningStream) startText(id string) bool {
	if ts, ok := s.starts[id]; ok {
		delete(s.starts, id)
		return s.emit(ts)
	}
	return true
}

// publish emits text of the current kind.
func (s *reasoningStream) publish(st *textState, text string) bool {
	if text == "" {
		return true
	}
	prefix := ""
	if st.afterSwitch && (st.reasoning && !st.firstReasoning || !st.reasoning && !st.firstText) {
		prefix = s.x.sep
	}
	if st.reasoning {
		if !st.reasoningOpen {
			st.reasoningOpen = true
			if !s.emit(provider.ReasoningStart{ID: s.reasoningID(st)}) {
				return false
			}
		}
		if !s.emit(provider.ReasoningDelta{ID: s.reasoningID(st), Delta: prefix + text}) {
			return false
		}
		st.firstReasoning = false
	} else {
		if !s.startText(st.id) || !s.emit(provider.TextDelta{ID: st.id, Delta: prefix + text}) {
			return false
		}
		st.firstText = false
	}
	st.afterSwitch = false
	return true
}

// endReasoning closes the open reasoning section.
func (s *reasoningStream) endReasoning(st *textState) bool {
	if !st.reasoningOpen && !s.emit(provider.ReasoningStart{ID: s.reasoningID(st)}) {
		return false
	}
	ok := s.emit(provider.ReasoningEnd{ID: s.reasoningID(st)})
	st.reasoningID, st.reasoningOpen = "", false
	return ok
}

// delta consumes a text delta.
func (s *reasoningStream) delta(st *textState, d string) bool {
	st.buf += d
	for {
		tag := s.x.open
		if st.reasoning {
			tag = s.x.close
		}
		i := potentialStart(st.buf, tag)
		if i < 0 {
			text := st.buf
			st.buf = ""
			return s.publish(st, text)
		}
		if !s.publish(st, st.buf[:i]) {
			return false
		}
		if i+len(tag) > len(st.buf) {
			// Maybe the start of a tag: wait for more.
			st.buf = st.buf[i:]
			return true
		}
		st.buf = st.buf[i+len(tag):]
		if st.reasoning && !s.endReasoning(st) {
			return false
		}
		st.reasoning = !st.reasoning
		st.afterSwitch = true
	}
}

// flush publishes what a block holds back.
func (s *reasoningStream) flush(st *textState) bool {
	text := st.buf
	st.buf = ""
	if !s.publish(st, text) {
		return false
	}
	if st.reasoningOpen {
		return s.endReasoning(st)
	}
	return true
}

// flushAll flushes every block, before the stream's end or an error.
func (s *reasoningStream) flushAll() bool {
	for _, id := range s.order {
		if st := s.blocks[id]; st != nil && !s.flush(st) {
			return false
		}
	}
	return true
}

func (s *reasoningStream) part(p provider.StreamPart) bool {
	switch p := p.(type) {
	case provider.TextStart:
		s.starts[p.ID] = p
		return true
	case provider.TextDelta:
		return s.delta(s.state(p.ID), p.Delta)
	case provider.TextEnd:
		if st := s.blocks[p.ID]; st != nil {
			if !s.flush(st) {
				return false
			}
			delete(s.blocks, p.ID)
		}
		return s.startText(p.ID) && s.emit(p)
	case provider.Finish:
		return s.flushAll() && s.emit(p)
	}
	return s.emit(p)
}

// potentialStart returns where tag starts in text, or where a suffix of
// text starts that could be the beginning of tag; -1 when neither.
func potentialStart(text, tag string) int {
	if i := strings.Index(text, tag); i >= 0 {
		return i
	}
	for i := max(0, len(text)-len(tag)+1); i < len(text); i++ {
		if strings.HasPrefix(tag, text[i:]) {
			return i
		}
	}
	return -1
}
