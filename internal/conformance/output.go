package conformance

import (
	"errors"
	"strings"

	"github.com/aisdkgo/ai"
)

// outputOf builds a scenario's output.
func outputOf(s *OutputSpec) (ai.Output, error) {
	opts := &ai.OutputOptions{Name: s.Name, Description: s.Description, MinItems: s.MinItems, MaxItems: s.MaxItems}
	switch s.Type {
	case "text":
		return ai.OutputText(), nil
	case "object":
		opts.RawSchema = s.Schema
		return ai.OutputObject[any](opts), nil
	case "array":
		opts.RawSchema = s.Element
		return ai.OutputArray[any](opts), nil
	case "choice":
		return ai.OutputChoice(s.Options, opts), nil
	case "json":
		return ai.OutputJSON(opts), nil
	}
	return nil, &ScenarioError{"unknown output type " + s.Type}
}

// errorEntry records a generation's failure; an output's failure also
// records the final text and finish reason.
func errorEntry(err error) map[string]any {
	e := map[string]any{"name": errorName(err), "phase": "call"}
	addOutputError(e, err)
	return e
}

func addOutputError(e map[string]any, err error) {
	var nog *ai.NoObjectGeneratedError
	if errors.As(err, &nog) {
		e["name"] = "AI_NoObjectGeneratedError"
		e["text"] = nog.Text
		e["finishReason"] = string(nog.FinishReason)
	}
}

// recordOutput records a generation's output, or why there is none.
func recordOutput(trace map[string]any, res ai.OutputResult, spec *OutputSpec) {
	var v any
	var err error
	if spec.Type == "text" {
		v, err = ai.OutputOf[string](res)
	} else {
		v, err = ai.OutputOf[any](res)
	}
	if err != nil {
		e := map[string]any{"name": errorName(err)}
		addOutputError(e, err)
		trace["outputError"] = e
		return
	}
	trace["output"] = toValue(v)
}

// outputParts collects a stream's partial outputs and elements, which
// the reference streams apart from the parts.
type outputParts struct {
	spec     *OutputSpec
	partials []any
	elements []any
	tooMany  bool
	// text outputs: the text of the step's first text block
	first string
	text  strings.Builder
}

// take records p when it belongs to the output streams and reports
// whether it did.
func (o *outputParts) take(p ai.Part) bool {
	switch p := p.(type) {
	case ai.StartStep:
		o.first = ""
		o.text.Reset()
	case ai.TextDelta:
		if o.spec.Type == "text" && p.Delta != "" {
			if o.first == "" {
				o.first = p.ID
			}
			if p.ID == o.first {
				o.text.WriteString(p.Delta)
				o.partials = append(o.partials, o.text.String())
			}
		}
	case ai.PartialOutput:
		v := decodeValue(p.JSON())
		if l, ok := v.([]any); ok && o.spec.MaxItems != nil && len(l) > *o.spec.MaxItems {
			// The reference's element stream fails once the elements
			// exceed maxItems.
			o.tooMany = true
		}
		o.partials = append(o.partials, v)
		return true
	case ai.OutputElement:
		o.elements = append(o.elements, decodeValue(p.Value))
		return true
	}
	return false
}

func (o *outputParts) record(trace map[string]any, res ai.OutputResult) {
	trace["partialOutputs"] = nonNilList(o.partials)
	if o.spec.Type == "array" {
		trace["elements"] = nonNilList(o.elements)
		if o.tooMany {
			trace["elementsError"] = map[string]any{"name": "AI_TypeValidationError"}
		}
	}
	recordOutput(trace, res, o.spec)
}
