package conformance

import (
	"context"
	"errors"

	"github.com/aisdkgo/ai"
)

// stream runs a stream-mode generation and records its parts.
func (b *built) stream(ctx context.Context, opts ai.GenerateTextOptions, spec *OutputSpec, rec *recorder, trace map[string]any, viaAgent bool) error {
	var res *ai.StreamTextResult
	var err error
	if viaAgent {
		res, err = agentFor(opts).Stream(ctx, agentCall(opts))
	} else {
		res, err = ai.StreamText(ctx, opts)
	}
	if err != nil {
		if se := scenarioErr(err); se != nil {
			return se
		}
		trace["error"] = map[string]any{"name": errorName(err), "phase": "call"}
		return nil
	}
	parts := []any{}
	invalid := map[string]bool{}
	finished := 0
	anyUsage := false
	for _, set := range rec.usageSet {
		anyUsage = anyUsage || set
	}
	var out *outputParts
	if spec != nil {
		out = &outputParts{spec: spec}
	}
	var iterErr error
	resuming := true // before the first step: the outcomes of a resume
	for p, err := range res.Parts() {
		if err != nil {
			iterErr = err
			break
		}
		if out != nil && out.take(p) {
			continue
		}
		var errPart ai.ErrorPart
		if ep, ok := p.(ai.ErrorPart); ok {
			errPart = ep
			if se := scenarioErr(errPart.Err); se != nil {
				return se
			}
		}
		if c, ok := p.(ai.ToolCall); ok && c.Invalid {
			invalid[c.ToolCallID] = true
		}
		if _, ok := p.(ai.StartStep); ok {
			resuming = false
		}
		v := streamPartValue(p, invalid)
		if te, ok := p.(ai.ToolError); ok && resuming {
			// A resumed call that is no longer valid is reported with its
			// error as text and without a dynamic flag.
			v["error"] = te.Error.Error()
			delete(v, "dynamic")
		}
		switch p.(type) {
		case ai.FinishStep:
			if !(finished < len(rec.usageSet) && rec.usageSet[finished]) {
				delete(v, "usage")
			}
			finished++
		case ai.Finish:
			if !anyUsage {
				delete(v, "totalUsage")
			}
		}
		parts = append(parts, v)
	}
	if iterErr != nil {
		if se := scenarioErr(iterErr); se != nil {
			return se
		}
		trace["error"] = map[string]any{"name": errorName(iterErr), "phase": "call"}
	}
	text, err := res.Text()
	var failed *ai.StreamFailedError
	if errors.As(err, &failed) {
		// The reference resolves the text of a stream that reported errors.
		err = nil
	}
	if err != nil && !errors.Is(err, ai.ErrStreamStopped) {
		if _, has := trace["error"]; !has {
			if se := scenarioErr(err); se != nil {
				return se
			}
			trace["error"] = map[string]any{"name": errorName(err), "phase": "call"}
		}
	} else if err == nil {
		trace["text"] = text
	}
	trace["stream"] = parts
	if out != nil {
		out.record(trace, res)
	}
	return nil
}

// streamErrorValue renders the error of an error part like the reference:
// strings stay strings, errors become {name, message}.
func streamErrorValue(err error) any {
	var se stringError
	var pe *streamProviderError
	var spe *ai.StreamProtocolError
	var ve *valueError
	switch {
	case errors.As(err, &se):
		return string(se)
	case errors.As(err, &spe):
		// The reference reports protocol violations as plain strings.
		return spe.Message
	case errors.As(err, &pe):
		return map[string]any{"name": "AI_StreamProviderError", "message": pe.msg}
	case errors.As(err, &ve):
		return decodeValue(ve.raw)
	}
	return errorObject(err)
}

func deltaValue(typ, id, text string, pm ai.ProviderMetadata) map[string]any {
	v := map[string]any{"type": typ, "id": id, "text": text}
	if pm != nil {
		v["providerMetadata"] = toValue(pm)
	}
	return v
}

func streamPartValue(p ai.Part, invalid map[string]bool) map[string]any {
	switch p := p.(type) {
	case ai.ErrorPart:
		return map[string]any{"type": "error", "error": streamErrorValue(p.Err)}
	case ai.ToolResult:
		v := partValue(p, invalid).(map[string]any)
		if p.Preliminary && !p.Dynamic {
			// The reference flags only the preliminary results of dynamic
			// tools.
			delete(v, "dynamic")
		}
		return v
	case ai.ToolCall, ai.ToolError, ai.ToolApprovalRequest, ai.ToolApprovalResponse:
		return partValue(p.(ai.ContentPart), invalid).(map[string]any)
	case ai.FinishStep:
		v := map[string]any{"type": "finish-step", "finishReason": string(p.FinishReason), "usage": toValue(p.Usage)}
		if p.RawFinishReason != "" {
			v["rawFinishReason"] = p.RawFinishReason
		}
		if p.ProviderMetadata != nil {
			v["providerMetadata"] = toValue(p.ProviderMetadata)
		}
		return v
	case ai.TextDelta:
		// The reference's stream names a delta's text "text"; the library
		// streams the provider's value, whose JSON says "delta".
		return deltaValue("text-delta", p.ID, p.Delta, p.ProviderMetadata)
	case ai.ReasoningDelta:
		return deltaValue("reasoning-delta", p.ID, p.Delta, p.ProviderMetadata)
	case ai.Finish:
		v := map[string]any{"type": "finish", "finishReason": string(p.FinishReason), "totalUsage": toValue(p.TotalUsage)}
		if p.RawFinishReason != "" {
			v["rawFinishReason"] = p.RawFinishReason
		}
		return v
	}
	v, _ := toValue(p).(map[string]any)
	return v
}
