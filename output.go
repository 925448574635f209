package ai

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/aisdkgo/ai/internal/partialjson"
	"github.com/aisdkgo/ai/provider"
)

// Output says what a generation produces: text (the default), an object
// of a Go type, an array of a Go type, one of fixed strings, or any JSON.
// Make one with [OutputText], [OutputObject], [OutputArray],
// [OutputChoice] or [OutputJSON] and set it as
// [GenerateTextOptions.Output].
//
// The generation runs as usual (tools, search, approval); every model
// call gets the output's response format, and the final step's text is
// parsed and checked against the output's schema. [OutputOf] returns the
// typed value. [StreamText] also streams the value as it is written (see
// [PartialOutput] and [OutputElement]).
//
// Output values are immutable and safe to share between generations.
type Output interface {
	// Kind returns "text", "object", "array", "choice" or "json".
	Kind() string
	// ResponseFormat returns the response format sent with every model
	// call.
	ResponseFormat() *provider.ResponseFormat
	spec() *outputSpec
}

// OutputOptions describe an output to the model. Every field is optional.
type OutputOptions struct {
	// Name and Description tell the model what to produce; providers
	// send them as the schema's name and description where their API has
	// them.
	Name        string
	Description string
	// Schema replaces the schema inferred from the Go type: the object's
	// schema for [OutputObject], each element's for [OutputArray]. The
	// other outputs ignore it.
	Schema *jsonschema.Schema
	// RawSchema, when set, replaces Schema with a schema given as JSON
	// text. It is sent as given and compiled on first use.
	RawSchema json.RawMessage
	// MinItems and MaxItems bound the length of an [OutputArray]'s array.
	MinItems *int
	MaxItems *int
}

// outputSpec is the one implementation of Output.
type outputSpec struct {
	kind   string
	format *provider.ResponseFormat
	err    error // a construction error, reported by GenerateText

	schema   *schema // object: the object's; array: an element's
	choices  []string
	min, max *int

	// typed decodes a checked JSON value (the object, the elements array,
	// the choice as a JSON string) into the Go type.
	typed func(raw []byte) (any, error)
}

func (o *outputSpec) Kind() string                             { return o.kind }
func (o *outputSpec) ResponseFormat() *provider.ResponseFormat { return cloneFormat(o.format) }
func (o *outputSpec) spec() *outputSpec                        { return o }

func cloneFormat(f *provider.ResponseFormat) *provider.ResponseFormat {
	if f == nil {
		return nil
	}
	c := *f
	return &c
}

// jsonSchemaDraft7 is the dialect the reference names in the schemas it
// builds around array and choice outputs.
const jsonSchemaDraft7 = "http://json-schema.org/draft-07/schema#"

// OutputText returns the default output: the final step's text.
func OutputText() Output {
	return &outputSpec{kind: "text", format: &provider.ResponseFormat{Type: "text"}}
}

// OutputObject returns an output that is a value of type T, described to
// the model by the JSON Schema inferred from T (as [NewTool] infers input
// schemas: struct fields without omitempty or omitzero are required, and
// unknown properties are rejected), or by opts.Schema or opts.RawSchema.
// The final text must be JSON that satisfies the schema and decodes into
// T. A schema that cannot be inferred or compiled is reported by
// [GenerateText] and [StreamText] as an [InvalidArgumentError].
func OutputObject[T any](opts *OutputOptions) Output {
	if opts == nil {
		opts = &OutputOptions{}
	}
	o := &outputSpec{kind: "object"}
	o.schema, o.err = outputSchema[T](opts)
	if o.err == nil {
		o.format = &provider.ResponseFormat{Type: "json", Schema: o.schema.raw, Name: opts.Name, Description: opts.Description}
	}
	o.typed = decodeAs[T]
	return o
}

// OutputArray returns an output that is a slice of T. The model is asked
// for an object {"elements": [...]} whose elements satisfy the schema
// inferred from T (or opts.Schema, opts.RawSchema), between opts.MinItems
// and opts.MaxItems of them. [StreamText] emits each element as an
// [OutputElement] once the next one starts or the array closes.
func OutputArray[T any](opts *OutputOptions) Output {
	if opts == nil {
		opts = &OutputOptions{}
	}
	o := &outputSpec{kind: "array", min: opts.MinItems, max: opts.MaxItems}
	for _, b := range []struct {
		name string
		v    *int
	}{{"MinItems", opts.MinItems}, {"MaxItems", opts.MaxItems}} {
		if b.v != nil && *b.v < 0 {
			o.err = &InvalidArgumentError{Parameter: "Output." + b.name, Message: "must be >= 0"}
			return o
		}
	}
	if o.min != nil && o.max != nil && *o.min > *o.max {
		o.err = &InvalidArgumentError{Parameter: "Output.MinItems", Message: "must be <= MaxItems"}
		return o
	}
	o.schema, o.err = outputSchema[T](opts)
	if o.err != nil {
		return o
	}
	envelope, err := arrayEnvelope(o.schema.raw, o.min, o.max)
	if err != nil {
		o.err = &InvalidArgumentError{Parameter: "Output", Message: "the element schema must be a JSON object: " + err.Error()}
		return o
	}
	o.format = &provider.ResponseFormat{Type: "json", Schema: envelope, Name: opts.Name, Description: opts.Description}
	o.typed = decodeAs[[]T]
	return o
}

// OutputChoice returns an output that is one of choices. The model is
// asked for an object {"result": "<choice>"}; S may be a string type of
// your own, such as an enumeration of constants.
func OutputChoice[S ~string](choices []S, opts *OutputOptions) Output {
	if opts == nil {
		opts = &OutputOptions{}
	}
	o := &outputSpec{kind: "choice"}
	for _, c := range choices {
		o.choices = append(o.choices, string(c))
	}
	enum := o.choices
	if enum == nil {
		enum = []string{}
	}
	list, _ := json.Marshal(enum)
	s := json.RawMessage(`{"$schema":"` + jsonSchemaDraft7 + `","type":"object","properties":{"result":{"type":"string","enum":` +
		string(list) + `}},"required":["result"],"additionalProperties":false}`)
	o.format = &provider.ResponseFormat{Type: "json", Schema: s, Name: opts.Name, Description: opts.Description}
	o.typed = func(raw []byte) (any, error) {
		var v string
		err := json.Unmarshal(raw, &v)
		return S(v), err
	}
	return o
}

// OutputJSON returns an output that is any JSON value, without a schema.
// [OutputOf] returns it as json.RawMessage, or decoded into the type you
// ask for.
func OutputJSON(opts *OutputOptions) Output {
	if opts == nil {
		opts = &OutputOptions{}
	}
	return &outputSpec{kind: "json",
		format: &provider.ResponseFormat{Type: "json", Name: opts.Name, Description: opts.Description},
		typed:  func(raw []byte) (any, error) { return json.RawMessage(raw), nil }}
}

func decodeAs[T any](raw []byte) (any, error) {
	var v T
	if err := json.Unmarshal(raw, &v); err != nil {
		return nil, err
	}
	return v, nil
}

// outputSchema compiles the schema of an object output or of an array
// output's elements.
func outputSchema[T any](opts *OutputOptions) (*schema, error) {
	bad := func(err error) error {
		return &InvalidArgumentError{Parameter: "Output", Message: "schema: " + err.Error()}
	}
	if opts.RawSchema != nil {
		s, err := lazySchema(opts.RawSchema)
		if err != nil {
			return nil, bad(err)
		}
		return s, nil
	}
	js := opts.Schema
	if js == nil {
		var err error
		if js, err = jsonschema.For[T](nil); err != nil {
			return nil, bad(err)
		}
	}
	s, err := compileSchema(js)
	if err != nil {
		return nil, bad(err)
	}
	return s, nil
}

// arrayEnvelope wraps an element schema in the object the model is asked
// for: its definitions move to the envelope, and the elements array
// carries the length bounds.
func arrayEnvelope(elem json.RawMessage, minItems, maxItems *int) (json.RawMessage, error) {
	var item map[string]json.RawMessage
	if err := json.Unmarshal(elem, &item); err != nil {
		return nil, err
	}
	defs, hasDefs := item["definitions"]
	defs2, hasDefs2 := item["$defs"]
	delete(item, "$schema")
	delete(item, "definitions")
	delete(item, "$defs")
	var b bytes.Buffer
	b.WriteString(`{"$schema":"` + jsonSchemaDraft7 + `"`)
	if hasDefs {
		b.WriteString(`,"definitions":`)
		b.Write(defs)
	}
	if hasDefs2 {
		b.WriteString(`,"$defs":`)
		b.Write(defs2)
	}
	items, err := json.Marshal(item)
	if err != nil {
		return nil, err
	}
	b.WriteString(`,"type":"object","properties":{"elements":{"type":"array","items":`)
	b.Write(items)
	if minItems != nil {
		fmt.Fprintf(&b, `,"minItems":%d`, *minItems)
	}
	if maxItems != nil {
		fmt.Fprintf(&b, `,"maxItems":%d`, *maxItems)
	}
	b.WriteString(`}},"required":["elements"],"additionalProperties":false}`)
	return b.Bytes(), nil
}

// NoObjectGeneratedError reports that the final text of a generation with
// an [Output] is not the output asked for: there was no text, it is not
// JSON, it does not match the schema, or the model stopped early (finish
// reason length) and the JSON is cut off. It carries what the final step
// produced.
type NoObjectGeneratedError struct {
	// Message says what is wrong.
	Message string
	// Cause is the parse or validation error.
	Cause error
	// Text is the final step's text.
	Text string
	// Response, Usage and FinishReason are the final step's.
	Response     ResponseInfo
	Usage        Usage
	FinishReason FinishReason
}

// Error implements the error interface.
func (e *NoObjectGeneratedError) Error() string {
	msg := "no object generated"
	if e.Message != "" {
		msg += ": " + e.Message
	}
	if e.Cause != nil {
		msg += ": " + e.Cause.Error()
	}
	return msg
}

// Unwrap returns e.Cause.
func (e *NoObjectGeneratedError) Unwrap() error { return e.Cause }

const (
	msgNotJSON  = "the response is not valid JSON"
	msgMismatch = "the response does not match the schema"
)

// outputState is what a generation keeps of its output.
type outputState struct {
	value    *outputValue
	elements int // the array elements streamed so far
	// structured is the latest model response's own choice of the text to
	// parse (see provider.GenerateResult.StructuredOutputText).
	structured *string
	// lazy is set when the generation has no Output; stream says which
	// entry point ran it.
	lazy, stream bool
}

// outputValue is a parsed output: the Go value and its JSON form (nil for
// text), or why there is none.
type outputValue struct {
	value any
	raw   json.RawMessage
	err   error
}

// parse parses and checks a final text.
func (o *outputSpec) parse(text string) (any, json.RawMessage, string, error) {
	if o.kind == "text" {
		return text, nil, "", nil
	}
	data := []byte(text)
	if err := parseJSON(data); err != nil {
		return nil, nil, msgNotJSON, err
	}
	var checked []byte
	switch o.kind {
	case "object":
		data = o.schema.nullsAsAbsent(data)
		if err := o.schema.validate(data); err != nil {
			return nil, nil, msgMismatch, err
		}
		checked = data
	case "json":
		checked = bytes.TrimSpace(data)
	case "choice":
		var outer struct {
			Result *json.RawMessage `json:"result"`
		}
		var s string
		if json.Unmarshal(data, &outer) != nil || outer.Result == nil || json.Unmarshal(*outer.Result, &s) != nil ||
			!slices.Contains(o.choices, s) {
			return nil, nil, msgMismatch, errors.New(`the response must be an object whose "result" is one of the choices`)
		}
		checked, _ = json.Marshal(s)
	case "array":
		elems, err := o.arrayElements(data)
		if err != nil {
			return nil, nil, msgMismatch, err
		}
		checked = joinArray(elems)
	}
	v, err := o.typed(checked)
	if err != nil {
		return nil, nil, msgMismatch, err
	}
	return v, json.RawMessage(checked), "", nil
}

// arrayElements checks the envelope of a complete array output and its
// elements.
func (o *outputSpec) arrayElements(data []byte) ([]json.RawMessage, error) {
	var outer map[string]json.RawMessage
	var elems []json.RawMessage
	if json.Unmarshal(data, &outer) != nil || outer == nil || len(outer["elements"]) == 0 || outer["elements"][0] != '[' ||
		json.Unmarshal(outer["elements"], &elems) != nil {
		return nil, errors.New(`the response must be an object with an "elements" array`)
	}
	if o.min != nil && len(elems) < *o.min {
		return nil, fmt.Errorf("the elements array must have at least %d items", *o.min)
	}
	if o.max != nil && len(elems) > *o.max {
		return nil, fmt.Errorf("the elements array must have at most %d items", *o.max)
	}
	for i, e := range elems {
		e = o.schema.nullsAsAbsent(e)
		elems[i] = e
		if err := o.schema.validate(e); err != nil {
			return nil, fmt.Errorf("element %d: %w", i, err)
		}
	}
	return elems, nil
}

func joinArray(elems []json.RawMessage) []byte {
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

// checkOutput reports an output that could not be built.
func checkOutput(o Output) error {
	if o == nil {
		return nil
	}
	if o.spec() == nil {
		return &InvalidArgumentError{Parameter: "Output", Message: "use an output made by this package"}
	}
	return o.spec().err
}

// responseFormatOf returns the response format of a step's model call.
func responseFormatOf(o Output) *provider.ResponseFormat {
	if o == nil {
		return nil
	}
	return o.ResponseFormat()
}

// completeOutput parses the final step's text once the generation ended.
// GenerateText parses it only when the model stopped, or stopped for a
// reason other than tool calls with some text; a stream always parses it.
// The returned error is the output's failure. A generation without an
// Output parses nothing now: its text output is worked out when asked for.
func (r *run) completeOutput(stream bool) error {
	spec, _ := r.opts.Output.(*outputSpec)
	if spec == nil {
		r.out.lazy, r.out.stream = true, stream
		return nil
	}
	r.out.value = finalOutput(r.steps, spec, stream, r.out.structured)
	if r.out.value != nil && r.out.value.err != nil {
		if nog, ok := r.out.value.err.(*NoObjectGeneratedError); ok {
			return nog
		}
	}
	return nil
}

// finalOutput parses the output of a finished generation's steps; nil when
// there is no step.
func finalOutput(steps []*StepResult, spec *outputSpec, stream bool, structured *string) *outputValue {
	if len(steps) == 0 {
		return nil
	}
	last := steps[len(steps)-1]
	text := last.Text()
	if !stream && last.FinishReason != FinishStop && (last.FinishReason == FinishToolCalls || text == "") {
		return &outputValue{err: &NoOutputGeneratedError{Message: "the final step ended without an output"}}
	}
	if !stream && spec.format != nil && spec.format.Type == "json" && structured != nil {
		text = *structured
	}
	v, raw, msg, err := spec.parse(text)
	if err != nil {
		return &outputValue{err: &NoObjectGeneratedError{Message: msg, Cause: err, Text: text, Response: last.Response,
			Usage: last.Usage, FinishReason: last.FinishReason}}
	}
	return &outputValue{value: v, raw: raw}
}

// OutputResult is a generation result that holds an output:
// *[GenerateTextResult] and *[StreamTextResult].
type OutputResult interface {
	outputValue() (*outputValue, error)
}

func (r *GenerateTextResult) outputValue() (*outputValue, error) {
	if r != nil && r.output == nil && r.textOutput != 0 {
		if ov := finalOutput(r.Steps, OutputText().(*outputSpec), r.textOutput == 2, nil); ov != nil {
			return ov, nil
		}
	}
	if r == nil || r.output == nil {
		return nil, &NoOutputGeneratedError{Message: "the generation has no output"}
	}
	return r.output, nil
}

func (s *StreamTextResult) outputValue() (*outputValue, error) {
	res, err := s.Wait()
	if res == nil || (err != nil && res.output == nil) {
		if err == nil {
			err = &NoOutputGeneratedError{}
		}
		return nil, err
	}
	return res.outputValue()
}

// OutputOf returns the output of a generation as a T: the type the
// [Output] was made for (T for [OutputObject], []T for [OutputArray], S
// for [OutputChoice], json.RawMessage for [OutputJSON], string for
// [OutputText] and for a generation without an Output), or any type the
// output's JSON decodes into.
//
// The error is a *[NoObjectGeneratedError] when the final text is not the
// output asked for, a *[NoOutputGeneratedError] when the generation ended
// without one (for example after a step of tool calls that hit the step
// limit), and for a stream, the stream's error when it failed. For a
// [StreamTextResult], OutputOf waits for the generation to end.
func OutputOf[T any](r OutputResult) (T, error) {
	var zero T
	ov, err := r.outputValue()
	if err != nil {
		return zero, err
	}
	if ov.err != nil {
		return zero, ov.err
	}
	if v, ok := ov.value.(T); ok {
		return v, nil
	}
	if ov.raw == nil {
		return zero, fmt.Errorf("ai: the output is a %T, not a %v", ov.value, reflect.TypeFor[T]())
	}
	var v T
	if err := json.Unmarshal(ov.raw, &v); err != nil {
		return zero, fmt.Errorf("ai: the output does not decode into a %v: %w", reflect.TypeFor[T](), err)
	}
	return v, nil
}

// PartialOutput is the output as far as the model has written it, parsed
// from the text of the step's first text block: an object with the
// properties begun so far (strings cut where the text ends), the complete
// elements of an array, a choice once the text singles one out, any JSON
// value so far. [StreamText] emits one after each [TextDelta] that changes
// it; while the value does not change, the text deltas are held back and
// merged, so each delta is followed by a new value. A text output has no
// partial outputs.
type PartialOutput struct {
	partial partialValue
}

// JSON returns the partial value as JSON.
func (p PartialOutput) JSON() json.RawMessage { return p.partial.json() }

// Decode decodes the partial value into v, as [json.Unmarshal] does.
func (p PartialOutput) Decode(v any) error { return json.Unmarshal(p.partial.json(), v) }

// OutputElement is an element of an [OutputArray], emitted by
// [StreamText] once the element is complete and valid. Index counts the
// elements of the stream from 0.
type OutputElement struct {
	Index int
	// Value is the element's JSON text.
	Value json.RawMessage
}

// Decode decodes the element into v, as [json.Unmarshal] does.
func (e OutputElement) Decode(v any) error { return json.Unmarshal(e.Value, v) }

// PartType returns "partial-output".
func (PartialOutput) PartType() string { return "partial-output" }

// PartType returns "output-element".
func (OutputElement) PartType() string { return "output-element" }

// MarshalJSON writes {"type":"partial-output","partial":VALUE}.
func (p PartialOutput) MarshalJSON() ([]byte, error) {
	return json.Marshal(struct {
		Type    string          `json:"type"`
		Partial json.RawMessage `json:"partial"`
	}{"partial-output", p.JSON()})
}

// MarshalJSON writes {"type":"output-element","index":N,"element":VALUE}.
func (e OutputElement) MarshalJSON() ([]byte, error) {
	return json.Marshal(struct {
		Type    string          `json:"type"`
		Index   int             `json:"index"`
		Element json.RawMessage `json:"element"`
	}{"output-element", e.Index, e.Value})
}

// partialValue is a partial output, kept cheap to take: a snapshot of the
// parser's text, the elements so far, or a small JSON value.
type partialValue struct {
	snap  partialjson.Snapshot
	elems [][]byte
	array bool
	raw   []byte
}

func (p partialValue) json() json.RawMessage {
	switch {
	case p.array:
		var b bytes.Buffer
		b.WriteByte('[')
		for i, e := range p.elems {
			if i > 0 {
				b.WriteByte(',')
			}
			b.Write(e)
		}
		b.WriteByte(']')
		return b.Bytes()
	case p.raw != nil:
		return bytes.Clone(p.raw)
	}
	return p.snap.JSON()
}

// PartialOutputStream reads the stream and yields each partial output
// decoded into a T (a new T each time; partial values that do not decode
// are skipped). For a text output it yields the text so far. The stream
// ends with the error of the stream or, when the final output is not
// valid, of the output. Like [StreamTextResult.Parts], it consumes the
// stream.
func PartialOutputStream[T any](s *StreamTextResult) func(yield func(T, error) bool) {
	return func(yield func(T, error) bool) {
		var zero T
		text := s.r.opts.Output == nil || s.r.opts.Output.Kind() == "text"
		var b strings.Builder
		first := ""
		for p, err := range s.Parts() {
			if err != nil {
				yield(zero, err)
				return
			}
			switch p := p.(type) {
			case StartStep:
				b.Reset()
				first = ""
			case TextDelta:
				if !text {
					continue
				}
				if first == "" {
					first = p.ID
				}
				if p.ID != first || p.Delta == "" {
					continue
				}
				b.WriteString(p.Delta)
				v, ok := any(b.String()).(T)
				if !ok {
					yield(zero, fmt.Errorf("ai: a text output's partial values are strings, not %v", reflect.TypeFor[T]()))
					return
				}
				if !yield(v, nil) {
					return
				}
			case PartialOutput:
				var v T
				if p.Decode(&v) != nil {
					continue
				}
				if !yield(v, nil) {
					return
				}
			}
		}
		if _, err := OutputOf[json.RawMessage](s); err != nil && !text {
			yield(zero, err)
		}
	}
}

// ElementStream reads the stream of an [OutputArray] and yields each
// element as a T when it is complete. The stream ends with the error of
// the stream or, when the final output is not valid (for example with
// more elements than MaxItems), of the output. Like
// [StreamTextResult.Parts], it consumes the stream.
func ElementStream[T any](s *StreamTextResult) func(yield func(T, error) bool) {
	return func(yield func(T, error) bool) {
		var zero T
		for p, err := range s.Parts() {
			if err != nil {
				yield(zero, err)
				return
			}
			if e, ok := p.(OutputElement); ok {
				var v T
				if err := e.Decode(&v); err != nil {
					yield(zero, err)
					return
				}
				if !yield(v, nil) {
					return
				}
			}
		}
		if _, err := OutputOf[json.RawMessage](s); err != nil {
			yield(zero, err)
		}
	}
}
