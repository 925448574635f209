package google

import (
	"encoding/json"
	"net/http"
	"strconv"

	"github.com/aisdkgo/ai/provider"
)

// streamingCall is a function call whose arguments arrive in pieces.
type streamingCall struct {
	id, name string
	args     *argsBuilder
	metadata provider.ProviderMetadata
}

// streamState turns the chunks of a streamGenerateContent response into
// stream parts.
type streamState struct {
	conv       *responseConverter
	includeRaw bool
	headers    http.Header
	url        string
	sent       []byte

	finish       provider.FinishReason
	usage        json.RawMessage
	blocked      bool
	toolCalls    bool
	metadataSent bool
	meta         callMetadata

	text, reasoning string // open block ids, "" when none
	blocks          int
	seen            map[sourceKey]bool
	calls           []*streamingCall

	// json filters the parts of a JSON response tool into text.
	json *jsonToolFilter

	// Continued answers (Gemini 4 long decode): the token of the next
	// request, how many were made, the usage of the finished requests, the
	// prompt size of the first, and the grounding of each request.
	pending          string
	hops             int
	continuedUsage   json.RawMessage
	initialPrompt    *int
	groundings       []any
	requestGrounding json.RawMessage
}

// continued starts the chunks of a continuation request.
func (st *streamState) continued() {
	st.finish = provider.FinishReason{Unified: provider.FinishInterrupted}
	st.groundings = append(st.groundings, anyJSON(st.requestGrounding))
	st.requestGrounding = nil
}

func newStreamState(m *languageModel, req *request, includeRaw bool, headers http.Header, url string, sent []byte) *streamState {
	st := &streamState{
		conv:       &responseConverter{m: m, req: req},
		includeRaw: includeRaw,
		headers:    headers,
		url:        url,
		sent:       sent,
		finish:     provider.FinishReason{Unified: provider.FinishInterrupted},
		seen:       map[sourceKey]bool{},
	}
	st.meta.headers = headers
	if req.jsonTool != "" {
		st.json = &jsonToolFilter{name: req.jsonTool, ids: map[string]bool{}, deltas: map[string]bool{}}
	}
	return st
}

// process handles one chunk. errFrame is set when the chunk is an error
// report, so that the caller can fail a call that has produced nothing.
func (st *streamState) process(data string) (parts []provider.StreamPart, errFrame *wireError) {
	emit := func(p provider.StreamPart) { parts = append(parts, p) }
	if st.includeRaw {
		emit(provider.Raw{RawValue: json.RawMessage(data)})
	}
	var chunk wireResponse
	if err := json.Unmarshal([]byte(data), &chunk); err != nil {
		if st.finish.Unified == provider.FinishInterrupted {
			st.finish = provider.FinishReason{Unified: provider.FinishError}
		}
		emit(provider.ErrorPart{Err: &provider.InvalidResponseDataError{Data: []byte(data), Message: "invalid stream chunk: " + err.Error()}})
		return st.filter(parts), nil
	}
	if chunk.Error != nil {
		st.finish = provider.FinishReason{Unified: provider.FinishError}
		emit(provider.ErrorPart{Err: apiError(*chunk.Error, st.url, st.sent, st.headers, []byte(data))})
		return st.filter(parts), chunk.Error
	}
	if !st.metadataSent && chunk.ResponseID != "" {
		st.metadataSent = true
		emit(provider.ResponseMetadata{ID: chunk.ResponseID, ModelID: chunk.ModelVersion})
	}
	if !isNull(chunk.UsageMetadata) {
		st.usage = chunk.UsageMetadata
		st.meta.usageMetadata = chunk.UsageMetadata
	}
	if !isNull(chunk.PromptFeedback) && !st.blocked {
		st.meta.promptFeedback = chunk.PromptFeedback
		if r := blockReason(chunk.PromptFeedback); r != "" {
			st.blocked = true
			st.finish = provider.FinishReason{Unified: provider.FinishContentFilter, Raw: r}
		}
	}
	if len(chunk.Candidates) == 0 {
		return st.filter(parts), nil
	}
	cand := &chunk.Candidates[0]
	if !isNull(cand.GroundingMetadata) {
		st.meta.groundingMetadata = cand.GroundingMetadata
		st.requestGrounding = cand.GroundingMetadata
	}
	if !isNull(cand.URLContextMetadata) {
		st.meta.urlContextMetadata = cand.URLContextMetadata
	}
	if !isNull(cand.SafetyRatings) {
		st.meta.safetyRatings = cand.SafetyRatings
	}
	if cand.FinishMessage != nil {
		st.meta.finishMessage = cand.FinishMessage
	}
	if cand.ContinuationToken != nil {
		st.meta.continuationToken = cand.ContinuationToken
	}
	if token := continuation(cand); token != "" {
		st.pending = token
	}
	// Once the prompt is blocked, later chunks add metadata only.
	if st.blocked {
		return st.filter(parts), nil
	}
	for _, s := range st.conv.sources(cand.GroundingMetadata, st.seen) {
		emit(s)
	}
	if cand.Content != nil {
		for i := range cand.Content.Parts {
			ps, err := st.part(&cand.Content.Parts[i])
			parts = append(parts, ps...)
			if err != nil {
				emit(provider.ErrorPart{Err: err})
				st.finish = provider.FinishReason{Unified: provider.FinishError}
			}
		}
	}
	if cand.FinishReason == "CONTINUATION" {
		// Usage is per request: bank this one's.
		if st.continuedUsage == nil {
			var u usage
			if !isNull(st.usage) {
				_ = json.Unmarshal(st.usage, &u)
			}
			st.initialPrompt = u.PromptTokenCount
		}
		st.continuedUsage = addUsage(st.continuedUsage, st.usage)
		st.usage = nil
	}
	if cand.FinishReason != "" {
		st.finish = provider.FinishReason{Unified: mapFinishReason(cand.FinishReason, st.toolCalls), Raw: cand.FinishReason}
	}
	return st.filter(parts), nil
}

func (st *streamState) newBlock() string {
	id := strconv.Itoa(st.blocks)
	st.blocks++
	return id
}

// closeText and closeReasoning end the open blocks.
func (st *streamState) closeText() []provider.StreamPart {
	if st.text == "" {
		return nil
	}
	id := st.text
	st.text = ""
	return []provider.StreamPart{provider.TextEnd{ID: id}}
}

func (st *streamState) closeReasoning() []provider.StreamPart {
	if st.reasoning == "" {
		return nil
	}
	id := st.reasoning
	st.reasoning = ""
	return []provider.StreamPart{provider.ReasoningEnd{ID: id}}
}

func (st *streamState) closeBlocks() []provider.StreamPart {
	return append(st.closeText(), st.closeReasoning()...)
}

// part converts one part of a chunk.
func (st *streamState) part(p *wirePart) ([]provider.StreamPart, error) {
	var out []provider.StreamPart
	emit := func(ps ...provider.StreamPart) { out = append(out, ps...) }
	c := st.conv
	switch {
	case p.ExecutableCode != nil && p.ExecutableCode.Code != "":
		emit(c.codeCall(p))
	case p.CodeExecutionResult != nil:
		if r, ok := c.codeResult(p); ok {
			emit(r)
		}
	case p.Text != nil:
		md := c.signature(p.ThoughtSignature)
		switch {
		case *p.Text == "":
			if md == nil {
				break
			}
			if st.text != "" {
				emit(provider.TextDelta{ID: st.text, ProviderMetadata: md})
				break
			}
			// Keep the signature in its place without joining later text.
			emit(st.closeReasoning()...)
			id := st.newBlock()
			if p.Thought {
				emit(provider.ReasoningStart{ID: id, ProviderMetadata: md}, provider.ReasoningDelta{ID: id, ProviderMetadata: md}, provider.ReasoningEnd{ID: id})
			} else {
				emit(provider.TextStart{ID: id, ProviderMetadata: md}, provider.TextDelta{ID: id, ProviderMetadata: md}, provider.TextEnd{ID: id})
			}
		case p.Thought:
			emit(st.closeText()...)
			if st.reasoning == "" {
				st.reasoning = st.newBlock()
				emit(provider.ReasoningStart{ID: st.reasoning, ProviderMetadata: md})
			}
			emit(provider.ReasoningDelta{ID: st.reasoning, Delta: string(*p.Text), ProviderMetadata: md})
		default:
			emit(st.closeReasoning()...)
			if st.text == "" {
				st.text = st.newBlock()
				emit(provider.TextStart{ID: st.text, ProviderMetadata: md})
			}
			emit(provider.TextDelta{ID: st.text, Delta: string(*p.Text), ProviderMetadata: md})
		}
	case p.InlineData != nil:
		emit(st.closeBlocks()...)
		f, err := c.file(p)
		if err != nil {
			return out, err
		}
		switch f := f.(type) {
		case provider.File:
			emit(f)
		case provider.ReasoningFile:
			emit(f)
		}
	case p.ToolCall != nil:
		emit(c.serverCall(p))
	case p.ToolResponse != nil:
		emit(c.serverResult(p))
	case p.FunctionCall != nil:
		return st.functionCall(p, out)
	}
	return out, nil
}

// functionCall handles a function-call part: a complete call, or a piece of
// a call whose arguments are streamed (willContinue, partialArgs).
func (st *streamState) functionCall(p *wirePart, out []provider.StreamPart) ([]provider.StreamPart, error) {
	emit := func(ps ...provider.StreamPart) { out = append(out, ps...) }
	fc := p.FunctionCall
	md := st.conv.signature(p.ThoughtSignature)
	named := fc.Name != nil
	continues := fc.WillContinue != nil && *fc.WillContinue
	streaming := fc.PartialArgs != nil || named && continues
	terminal := !named && isNull(fc.Args) && fc.PartialArgs == nil && fc.WillContinue == nil
	complete := named && !isNull(fc.Args) && fc.PartialArgs == nil
	noArgs := named && isNull(fc.Args) && fc.PartialArgs == nil && !continues
	if !streaming && (complete || noArgs) {
		emit(st.closeBlocks()...)
	}
	newID := func() string {
		if fc.ID != "" {
			return fc.ID
		}
		return st.conv.m.p.cfg.newID()
	}
	switch {
	case streaming:
		var call *streamingCall
		if named {
			call = &streamingCall{id: newID(), name: *fc.Name, args: newArgsBuilder(), metadata: md}
			if len(st.calls) >= maxOpenCalls {
				return out, &provider.InvalidResponseDataError{Message: "too many unfinished streamed function calls"}
			}
			st.calls = append(st.calls, call)
			emit(provider.ToolInputStart{ID: call.id, ToolName: call.name, ProviderMetadata: md})
			if fc.PartialArgs == nil {
				return out, nil
			}
		} else if len(st.calls) > 0 {
			call = st.calls[len(st.calls)-1]
		} else {
			return out, nil
		}
		delta, err := call.args.add(fc.PartialArgs)
		if err != nil {
			return out, &provider.InvalidResponseDataError{Message: err.Error()}
		}
		if delta != "" {
			emit(provider.ToolInputDelta{ID: call.id, Delta: delta, ProviderMetadata: md})
		}
		if !continues && !anyContinues(fc.PartialArgs) {
			emit(st.finishCall()...)
		}
	case terminal && len(st.calls) > 0:
		emit(st.finishCall()...)
	case complete:
		id, args := newID(), fc.argsJSON()
		emit(provider.ToolInputStart{ID: id, ToolName: *fc.Name, ProviderMetadata: md},
			provider.ToolInputDelta{ID: id, Delta: args, ProviderMetadata: md},
			provider.ToolInputEnd{ID: id, ProviderMetadata: md},
			provider.ToolCall{ToolCallID: id, ToolName: *fc.Name, Input: args, ProviderMetadata: md})
		st.toolCalls = true
	case noArgs:
		id := newID()
		emit(provider.ToolInputStart{ID: id, ToolName: *fc.Name, ProviderMetadata: md},
			provider.ToolInputEnd{ID: id, ProviderMetadata: md},
			provider.ToolCall{ToolCallID: id, ToolName: *fc.Name, Input: "{}", ProviderMetadata: md})
		st.toolCalls = true
	}
	return out, nil
}

// maxOpenCalls bounds the streamed calls that have not finished.
const maxOpenCalls = 1024

func anyContinues(args []partialArg) bool {
	for i := range args {
		if args[i].continues() {
			return true
		}
	}
	return false
}

// finishCall completes the latest streamed call.
func (st *streamState) finishCall() []provider.StreamPart {
	if len(st.calls) == 0 {
		return nil
	}
	call := st.calls[len(st.calls)-1]
	st.calls = st.calls[:len(st.calls)-1]
	out := st.closeBlocks()
	final, closing := call.args.finish()
	if closing != "" {
		out = append(out, provider.ToolInputDelta{ID: call.id, Delta: closing, ProviderMetadata: call.metadata})
	}
	out = append(out,
		provider.ToolInputEnd{ID: call.id, ProviderMetadata: call.metadata},
		provider.ToolCall{ToolCallID: call.id, ToolName: call.name, Input: final, ProviderMetadata: call.metadata})
	st.toolCalls = true
	return out
}

// end returns the parts that close the stream: open blocks and the finish.
// Streamed calls that never finished are dropped: their input is partial.
func (st *streamState) end() []provider.StreamPart {
	parts := st.closeBlocks()
	u := addUsage(st.continuedUsage, st.usage)
	meta := st.meta
	meta.usageMetadata = u
	// The token is only of use when the answer stopped early.
	if st.finish.Raw != "MAX_TOKENS" && st.finish.Raw != "CONTINUATION" {
		meta.continuationToken = nil
	}
	payload := meta.payload()
	if len(st.groundings) > 0 {
		payload["groundingMetadataPerRequest"] = append(st.groundings, anyJSON(st.requestGrounding))
	}
	if st.initialPrompt != nil {
		payload["initialPromptTokenCount"] = *st.initialPrompt
	}
	parts = append(parts, provider.Finish{
		FinishReason:     st.finish,
		Usage:            convertUsage(u),
		ProviderMetadata: st.conv.m.p.metadata(payload),
	})
	return st.filter(parts)
}

func (st *streamState) filter(parts []provider.StreamPart) []provider.StreamPart {
	if st.json == nil {
		return parts
	}
	return st.json.apply(parts)
}

// jsonToolFilter turns the calls of the JSON response tool into text and
// drops the model's other text.
type jsonToolFilter struct {
	name        string
	ids, deltas map[string]bool
	answered    bool
	application bool
}

func (f *jsonToolFilter) apply(parts []provider.StreamPart) []provider.StreamPart {
	out := parts[:0:0]
	for _, p := range parts {
		switch p := p.(type) {
		case provider.TextStart, provider.TextDelta, provider.TextEnd:
			continue
		case provider.ToolInputStart:
			if p.ToolName == f.name {
				f.ids[p.ID] = true
				out = append(out, provider.TextStart{ID: p.ID, ProviderMetadata: p.ProviderMetadata})
				continue
			}
		case provider.ToolInputDelta:
			if f.ids[p.ID] {
				if p.Delta != "" {
					f.deltas[p.ID] = true
				}
				out = append(out, provider.TextDelta(p))
				continue
			}
		case provider.ToolInputEnd:
			if f.ids[p.ID] {
				continue
			}
		case provider.ToolCall:
			if p.ToolName == f.name {
				if !f.deltas[p.ToolCallID] {
					out = append(out, provider.TextDelta{ID: p.ToolCallID, Delta: p.Input, ProviderMetadata: p.ProviderMetadata})
				}
				out = append(out, provider.TextEnd{ID: p.ToolCallID, ProviderMetadata: p.ProviderMetadata})
				f.answered = true
				continue
			}
			if !p.ProviderExecuted {
				f.application = true
			}
		case provider.Finish:
			if f.answered && !f.application && p.FinishReason.Unified == provider.FinishToolCalls {
				p.FinishReason.Unified = provider.FinishStop
				out = append(out, p)
				continue
			}
		}
		out = append(out, p)
	}
	return out
}
