package ai

import (
	"context"
	"encoding/json"
	"fmt"
	"iter"
	"reflect"
	"sync/atomic"

	jsonv1 "github.com/go-json-experiment/json/v1"
	"github.com/google/jsonschema-go/jsonschema"

	"github.com/aisdkgo/ai/provider"
)

// Tool is something a model can call. It is one of four kinds (see
// [ToolKind]): function tools made by [NewTool], dynamic tools made by
// [NewDynamicTool], and provider tools made by [NewProviderTool], which the
// provider defines and either your code or the provider executes.
//
// Tool values are immutable and safe to share between goroutines and
// generations; a generation never stores state in them.
type Tool interface {
	// Kind reports the tool's kind.
	Kind() ToolKind
	// DeferLoading reports whether the tool stays hidden from the model
	// until a [ToolSearch] tool discovers it.
	DeferLoading() bool
	core() *toolCore
}

// ToolKind is the kind of a [Tool].
type ToolKind int

// The tool kinds.
const (
	// FunctionKind is a tool whose input type is known when the program is
	// built.
	FunctionKind ToolKind = iota
	// DynamicKind is a tool defined at run time whose input and output types
	// are unknown to the program (for example a tool of an MCP server).
	// Its calls and results are flagged Dynamic.
	DynamicKind
	// ProviderDefinedKind is a tool defined by the provider and executed by
	// your code (for example a shell tool).
	ProviderDefinedKind
	// ProviderExecutedKind is a tool defined and executed by the provider
	// (for example web search).
	ProviderExecutedKind
)

// String returns the name of the kind.
func (k ToolKind) String() string {
	switch k {
	case FunctionKind:
		return "function"
	case DynamicKind:
		return "dynamic"
	case ProviderDefinedKind:
		return "provider-defined"
	case ProviderExecutedKind:
		return "provider-executed"
	}
	return fmt.Sprintf("ToolKind(%d)", int(k))
}

// ToolExecutionOptions describe the call a tool is executing. Cancellation
// arrives through the context passed next to them.
type ToolExecutionOptions struct {
	// ToolCallID identifies the call.
	ToolCallID string
	// Messages are the messages sent to the model in the step that produced
	// the call, without the instructions and without the model's response.
	Messages []Message
	// Context is the tool's entry of the generation's ToolsContext, checked
	// against the tool's ContextSchema when it has one; nil when absent.
	Context any
	// Sandbox is the generation's sandbox, if any.
	Sandbox Sandbox

	// Discovery is the generation's tool discovery, through which a tool
	// can search the deferred tools and load them for the next step (as
	// the search tool of [ToolSearch] does).
	Discovery Discovery
	// Callees are the tools [GenerateTextOptions.ToolCallers] routes to
	// this tool, and the way to call them (as a code mode tool does).
	Callees Callees

	// resume is set when a code tool resumes a paused program.
	resume *codeResume
}

// DescriptionOptions are what a description function receives.
type DescriptionOptions struct {
	// Context is the tool's entry of the step's ToolsContext (not validated).
	Context any
	// Sandbox is the step's sandbox, if any.
	Sandbox Sandbox
	// Callees are the tools routed to the tool in the step; only their
	// names, definitions and descriptions are of use here (a call fails).
	Callees Callees
}

// ApprovalOptions describe a call whose need for approval is being decided.
type ApprovalOptions struct {
	ToolCallID string
	// Messages are the messages of the step that produced the call.
	Messages []Message
	// Context is the tool's validated context.
	Context any
}

// ModelOutputOptions are what a ToModelOutput function receives.
type ModelOutputOptions[In, Out any] struct {
	ToolCallID string
	Input      In
	Output     Out
}

// Sandbox is an execution environment a generation may carry for tools that
// run commands or code. The loop only passes it through, to tools,
// description functions and PrepareStep.
type Sandbox interface {
	// Description tells what the sandbox offers.
	Description() string
}

// ToolDef defines a function tool with input type In and output type Out.
// Only Execute (or ExecuteStream) is needed for a working tool; every other
// field is optional.
type ToolDef[In, Out any] struct {
	// Description tells the model what the tool does and when to use it.
	Description string
	// DescriptionFunc, when set, replaces Description: it is called before
	// every model step and every search with the tool's context, so the
	// description can depend on ToolsContext.
	DescriptionFunc func(DescriptionOptions) string
	// Title is a display name.
	//
	// Deprecated: keep display data in Metadata instead. Title is still
	// copied onto the tool's calls.
	Title string
	// DeferLoading keeps the tool out of the model's tool list until a
	// [ToolSearch] tool discovers it; from the step after that it is sent
	// like any other tool.
	DeferLoading bool
	// Group names the family the tool belongs to (MCP tools carry their
	// server's name): a search tool with [ToolSearchOptions.Groups] can
	// search one group only.
	Group string

	// InputSchema is the JSON Schema of the input. When nil it is inferred
	// from In (struct fields without omitempty/omitzero are required, and
	// unknown properties are rejected). Inputs are validated against it
	// before anything else sees them.
	InputSchema *jsonschema.Schema
	// RawInputSchema, when set, replaces InputSchema with a schema given as
	// JSON text (for example by an MCP server). It is sent to models exactly
	// as given and compiled on first use. Regular expressions Go cannot
	// compile (look-arounds, back-references) are left out of local
	// validation, and a schema that cannot be compiled at all is not
	// checked locally; models still see the whole schema.
	RawInputSchema json.RawMessage
	// InputExamples show the model what inputs look like.
	InputExamples []In
	// ContextSchema, when set, validates the tool's ToolsContext entry
	// before the input callbacks, approval and Execute see it.
	ContextSchema *jsonschema.Schema
	// OutputSchema describes the output, for documentation and code mode
	// signatures. When nil it is inferred from Out where possible.
	OutputSchema *jsonschema.Schema
	// Strict asks providers that support it to constrain generation to the
	// schema. Nil leaves the provider's default.
	Strict *bool

	// Execute runs the tool. A returned error, or a panic, becomes a tool
	// error the model sees; the generation goes on.
	Execute func(ctx context.Context, in In, opts ToolExecutionOptions) (Out, error)
	// ExecuteStream runs the tool and yields results as they improve: every
	// value is a preliminary result (streamed by [StreamText]), and the last
	// one is the final result. It is used when Execute is nil. Without
	// either, the tool is never executed: the generation stops and the
	// caller supplies the result.
	ExecuteStream func(ctx context.Context, in In, opts ToolExecutionOptions) iter.Seq2[Out, error]
	// ToModelOutput converts a successful result for the model. Without it
	// a string is sent as text and anything else as JSON.
	ToModelOutput func(ctx context.Context, o ModelOutputOptions[In, Out]) (ToolResultOutput, error)

	// OnInputStart is called when the model starts generating the input
	// (in non-streaming generation, right before OnInputAvailable).
	OnInputStart func(ctx context.Context, opts ToolExecutionOptions) error
	// OnInputDelta is called for each piece of streamed input text.
	OnInputDelta func(ctx context.Context, delta string, opts ToolExecutionOptions) error
	// OnInputAvailable is called with the validated input, also for tools
	// without Execute.
	OnInputAvailable func(ctx context.Context, in In, opts ToolExecutionOptions) error

	// NeedsApproval decides whether a call waits for approval.
	//
	// Deprecated: use [GenerateTextOptions.ToolApproval]; NeedsApproval is
	// consulted only when no ToolApproval setting applies.
	NeedsApproval func(ctx context.Context, in In, opts ApprovalOptions) (bool, error)

	// ProviderOptions are sent with the tool definition.
	ProviderOptions ProviderOptions
	// Metadata describes the tool (for example its source). It is never sent
	// to the model; it is copied onto the tool's calls, results and errors.
	Metadata map[string]any
}

// FunctionTool is a function or dynamic tool. Make one with [NewTool] or
// [NewDynamicTool].
type FunctionTool struct {
	c             toolCore
	dynamic       bool
	description   string
	describe      func(DescriptionOptions) string
	strict        *bool
	inputExamples []json.RawMessage
	// cache keeps the provider definition of a tool with a static
	// description, so steps do not rebuild it.
	cache *defCache
}

type defCache struct {
	def atomic.Pointer[provider.FunctionTool]
}

// ProviderTool is a tool defined by a provider. Make one with
// [NewProviderTool].
type ProviderTool struct {
	c                       toolCore
	id                      string
	args                    map[string]any
	providerExecuted        bool
	supportsDeferredResults bool
}

// Kind reports [FunctionKind] or [DynamicKind].
func (t *FunctionTool) Kind() ToolKind {
	if t.dynamic {
		return DynamicKind
	}
	return FunctionKind
}

// Kind reports [ProviderDefinedKind] or [ProviderExecutedKind].
func (t *ProviderTool) Kind() ToolKind {
	if t.providerExecuted {
		return ProviderExecutedKind
	}
	return ProviderDefinedKind
}

// DeferLoading reports whether the tool is hidden until discovered.
func (t *FunctionTool) DeferLoading() bool { return t.c.deferLoading }

// DeferLoading reports whether the tool is hidden until discovered.
func (t *ProviderTool) DeferLoading() bool { return t.c.deferLoading }

// Description returns the tool's static description ("" when it has none
// or when its description is a function).
func (t *FunctionTool) Description() string { return t.description }

// InputSchema returns the JSON Schema of the tool's input.
func (t *FunctionTool) InputSchema() json.RawMessage { return t.c.input.raw }

// OutputSchema returns the JSON Schema of the tool's output, or nil.
func (t *FunctionTool) OutputSchema() json.RawMessage { return t.c.outputSchema }

// Metadata returns the tool's metadata.
func (t *FunctionTool) Metadata() map[string]any { return t.c.metadata }

// ID returns the provider's identifier of the tool ("<provider>.<tool>").
func (t *ProviderTool) ID() string { return t.id }

// Args returns the tool's configuration as sent to the provider.
func (t *ProviderTool) Args() map[string]any { return t.args }

func (t *FunctionTool) core() *toolCore { return &t.c }
func (t *ProviderTool) core() *toolCore { return &t.c }

// WithDeferLoading returns a copy of t whose DeferLoading is defer.
func WithDeferLoading(t Tool, deferLoading bool) Tool {
	switch t := t.(type) {
	case *FunctionTool:
		c := *t
		c.c.deferLoading = deferLoading
		return &c
	case *ProviderTool:
		c := *t
		c.c.deferLoading = deferLoading
		return &c
	}
	return t
}

// WithGroup returns a copy of t in group (see [ToolDef.Group]).
func WithGroup(t Tool, group string) Tool {
	switch t := t.(type) {
	case *FunctionTool:
		c := *t
		c.c.group = group
		return &c
	case *ProviderTool:
		c := *t
		c.c.group = group
		return &c
	}
	return t
}

// GroupOf returns the group of t ("" when it has none or t is nil).
func GroupOf(t Tool) string {
	if t == nil {
		return ""
	}
	return t.core().group
}

// toolCore holds what every tool kind shares, with typed callbacks erased to
// work on the decoded input value (In) and output value (Out).
type toolCore struct {
	deferLoading    bool
	group           string
	title           string
	providerOptions ProviderOptions
	metadata        map[string]any
	input           *schema
	context         *schema
	outputSchema    json.RawMessage
	// decode turns validated input JSON into the value the callbacks get.
	decode func(raw []byte) (any, error)
	// streams is set when execute yields preliminary results.
	streams bool
	// decodeOutput turns an output's JSON back into an Out value: for
	// results stored in a conversation and for executions in another
	// process.
	decodeOutput func(raw []byte) (any, error)
	// typedOutput is set when Out is neither any nor raw JSON, so that the
	// JSON output of an execution elsewhere is decoded back into an Out.
	typedOutput bool

	execute          func(ctx context.Context, in any, opts ToolExecutionOptions, preliminary func(any)) (any, error)
	toModelOutput    func(ctx context.Context, callID string, in, out any) (ToolResultOutput, error)
	onInputStart     func(ctx context.Context, opts ToolExecutionOptions) error
	onInputDelta     func(ctx context.Context, delta string, opts ToolExecutionOptions) error
	onInputAvailable func(ctx context.Context, in any, opts ToolExecutionOptions) error
	needsApproval    func(ctx context.Context, in any, opts ApprovalOptions) (bool, error)

	// search is set on tools made by ToolSearch: their options, which the
	// engine reads to set steps up (deferral budget); they execute like any
	// tool.
	search *searchConfig
	// inEngine is set on tools that only use the generation's own state:
	// they run in the engine's process whatever the effects.
	inEngine bool
	// caller is set on tools that call other tools (code mode).
	caller *callerDef
}

// NewTool returns a function tool whose input is decoded into In and whose
// results are values of Out. The input schema is inferred from In (unless
// def.InputSchema is set) and its validator compiled once, here.
//
// NewTool panics if In cannot be described by a JSON Schema (channels,
// functions, maps with non-string keys, cyclic types) or if def.InputSchema
// or def.ContextSchema is not a valid schema: these are programming errors.
// Use [NewDynamicTool] for schemas known only at run time.
func NewTool[In, Out any](def ToolDef[In, Out]) *FunctionTool {
	t, err := newFunctionTool(def, false)
	if err != nil {
		panic("ai.NewTool: " + err.Error())
	}
	return t
}

// NewDynamicTool returns a tool whose input and output types are only known
// at run time, such as a tool of an MCP server. The input arrives as raw
// JSON, validated against def.RawInputSchema or def.InputSchema (an empty
// object schema when both are nil). Its calls and results are flagged
// Dynamic. NewDynamicTool returns an error when def.InputSchema or
// def.ContextSchema cannot be compiled, or def.RawInputSchema is not JSON.
func NewDynamicTool(def ToolDef[json.RawMessage, any]) (*FunctionTool, error) {
	if def.InputSchema == nil && def.RawInputSchema == nil {
		def.InputSchema = &jsonschema.Schema{Type: "object", Properties: map[string]*jsonschema.Schema{}}
	}
	return newFunctionTool(def, true)
}

func newFunctionTool[In, Out any](def ToolDef[In, Out], dynamic bool) (*FunctionTool, error) {
	c, err := buildCore(def.InputSchema, def.RawInputSchema, def.ContextSchema, def.OutputSchema, commonDef[In, Out]{
		execute:          def.Execute,
		executeStream:    def.ExecuteStream,
		toModelOutput:    def.ToModelOutput,
		onInputStart:     def.OnInputStart,
		onInputDelta:     def.OnInputDelta,
		onInputAvailable: def.OnInputAvailable,
		needsApproval:    def.NeedsApproval,
	})
	if err != nil {
		return nil, err
	}
	c.deferLoading = def.DeferLoading
	c.group = def.Group
	c.title = def.Title
	c.providerOptions = def.ProviderOptions
	c.metadata = def.Metadata
	t := &FunctionTool{
		c:           *c,
		dynamic:     dynamic,
		description: def.Description,
		describe:    def.DescriptionFunc,
		strict:      def.Strict,
		cache:       &defCache{},
	}
	if def.InputExamples != nil {
		// An empty list is kept: it is sent as such, as the reference does.
		t.inputExamples = make([]json.RawMessage, 0, len(def.InputExamples))
	}
	for i, ex := range def.InputExamples {
		b, err := json.Marshal(ex)
		if err != nil {
			return nil, fmt.Errorf("input example %d: %w", i, err)
		}
		t.inputExamples = append(t.inputExamples, b)
	}
	return t, nil
}

// commonDef carries the typed callbacks that every tool kind may have.
type commonDef[In, Out any] struct {
	execute          func(context.Context, In, ToolExecutionOptions) (Out, error)
	executeStream    func(context.Context, In, ToolExecutionOptions) iter.Seq2[Out, error]
	toModelOutput    func(context.Context, ModelOutputOptions[In, Out]) (ToolResultOutput, error)
	onInputStart     func(context.Context, ToolExecutionOptions) error
	onInputDelta     func(context.Context, string, ToolExecutionOptions) error
	onInputAvailable func(context.Context, In, ToolExecutionOptions) error
	needsApproval    func(context.Context, In, ApprovalOptions) (bool, error)
}

// buildCore compiles the schemas and erases the typed callbacks.
func buildCore[In, Out any](inputSchema *jsonschema.Schema, rawInput json.RawMessage, contextSchema, outputSchema *jsonschema.Schema, d commonDef[In, Out]) (*toolCore, error) {
	c := &toolCore{}
	var err error
	if rawInput != nil {
		if c.input, err = lazySchema(rawInput); err != nil {
			return nil, fmt.Errorf("input schema: %w", err)
		}
	} else {
		if inputSchema == nil {
			s, err := jsonschema.For[In](nil)
			if err != nil {
				return nil, fmt.Errorf("input schema: %w", err)
			}
			inputSchema = s
		}
		if c.input, err = compileSchema(inputSchema); err != nil {
			return nil, fmt.Errorf("input schema: %w", err)
		}
	}
	if contextSchema != nil {
		if c.context, err = compileSchema(contextSchema); err != nil {
			return nil, fmt.Errorf("context schema: %w", err)
		}
	}
	if outputSchema == nil && reflect.TypeFor[Out]() != reflect.TypeFor[any]() {
		outputSchema, _ = jsonschema.For[Out](&jsonschema.ForOptions{IgnoreInvalidTypes: true})
	}
	if outputSchema != nil {
		if b, err := json.Marshal(outputSchema); err == nil {
			c.outputSchema = b
		}
	}
	c.decode = decoderFor[In]()
	c.decodeOutput = outputDecoderFor[Out]()
	if t := reflect.TypeFor[Out](); t != reflect.TypeFor[any]() && t != reflect.TypeFor[json.RawMessage]() {
		c.typedOutput = true
	}

	if d.execute != nil {
		exec := d.execute
		c.execute = func(ctx context.Context, in any, opts ToolExecutionOptions, _ func(any)) (any, error) {
			return exec(ctx, *in.(*In), opts)
		}
	} else if d.executeStream != nil {
		c.streams = true
		exec := d.executeStream
		c.execute = func(ctx context.Context, in any, opts ToolExecutionOptions, preliminary func(any)) (any, error) {
			var last any
			for v, err := range exec(ctx, *in.(*In), opts) {
				if err != nil {
					return nil, err
				}
				last = v
				if preliminary != nil {
					preliminary(v)
				}
			}
			return last, nil
		}
	}
	if d.toModelOutput != nil {
		f := d.toModelOutput
		c.toModelOutput = func(ctx context.Context, id string, in, out any) (ToolResultOutput, error) {
			o, _ := out.(Out)
			return f(ctx, ModelOutputOptions[In, Out]{ToolCallID: id, Input: *in.(*In), Output: o})
		}
	}
	c.onInputStart = d.onInputStart
	c.onInputDelta = d.onInputDelta
	if d.onInputAvailable != nil {
		f := d.onInputAvailable
		c.onInputAvailable = func(ctx context.Context, in any, opts ToolExecutionOptions) error {
			return f(ctx, *in.(*In), opts)
		}
	}
	if d.needsApproval != nil {
		f := d.needsApproval
		c.needsApproval = func(ctx context.Context, in any, opts ApprovalOptions) (bool, error) {
			return f(ctx, *in.(*In), opts)
		}
	}
	return c, nil
}

// decoderFor returns the function that turns validated JSON text into a
// *In, the value the erased callbacks receive. Raw JSON inputs are passed
// through as they are; every other type is decoded with
// encoding/json's semantics by the v1 API of
// github.com/go-json-experiment/json, the prototype of encoding/json/v2,
// which allocates only the value where encoding/json makes six allocations.
func decoderFor[In any]() func(raw []byte) (any, error) {
	if reflect.TypeFor[In]() == reflect.TypeFor[json.RawMessage]() {
		return func(raw []byte) (any, error) {
			v := json.RawMessage(raw)
			return any(&v), nil
		}
	}
	return func(raw []byte) (any, error) {
		v := new(In)
		if err := jsonv1.Unmarshal(raw, v); err != nil {
			return nil, err
		}
		return v, nil
	}
}

// outputDecoderFor returns the function that turns an output's JSON back
// into an Out value.
func outputDecoderFor[Out any]() func(raw []byte) (any, error) {
	dec := decoderFor[Out]()
	return func(raw []byte) (any, error) {
		v, err := dec(raw)
		if err != nil {
			return nil, err
		}
		return *v.(*Out), nil
	}
}

// ProviderToolDef defines a tool whose schema and behaviour a provider
// defines, such as web search, code execution or a shell. Provider packages
// offer ready-made constructors for their tools.
type ProviderToolDef struct {
	// ID identifies the tool to the provider as "<provider>.<tool>".
	ID string
	// Args configure the tool; they are sent to the provider.
	Args map[string]any
	// ProviderExecuted is true when the provider runs the tool; its results
	// arrive from the model. Otherwise Execute runs it here.
	ProviderExecuted bool
	// SupportsDeferredResults allows the provider to deliver the result of a
	// call in a later step than the call.
	SupportsDeferredResults bool
	// DeferLoading keeps the tool hidden until a [ToolSearch] finds it.
	DeferLoading bool
	// Group names the family the tool belongs to, for searches.
	Group string
	// InputSchema validates calls; nil accepts any input.
	InputSchema *jsonschema.Schema
	// Execute runs a provider-defined (not provider-executed) tool. Its
	// input is the call's raw JSON.
	Execute func(ctx context.Context, in json.RawMessage, opts ToolExecutionOptions) (any, error)
	// ToModelOutput converts a result of Execute for the model.
	ToModelOutput func(ctx context.Context, o ModelOutputOptions[json.RawMessage, any]) (ToolResultOutput, error)
	// NeedsApproval decides whether a call waits for approval.
	//
	// Deprecated: use [GenerateTextOptions.ToolApproval].
	NeedsApproval func(ctx context.Context, in json.RawMessage, opts ApprovalOptions) (bool, error)
	// Metadata is copied onto the tool's calls and results.
	Metadata map[string]any
}

// NewProviderTool returns a provider tool. It returns an error when ID is
// empty or InputSchema cannot be compiled.
func NewProviderTool(def ProviderToolDef) (*ProviderTool, error) {
	if def.ID == "" {
		return nil, &InvalidArgumentError{Parameter: "ID", Message: "a provider tool needs an ID"}
	}
	schema := def.InputSchema
	if schema == nil {
		schema = &jsonschema.Schema{}
	}
	c, err := buildCore(schema, nil, nil, nil, commonDef[json.RawMessage, any]{
		execute:       def.Execute,
		toModelOutput: def.ToModelOutput,
		needsApproval: def.NeedsApproval,
	})
	if err != nil {
		return nil, err
	}
	c.deferLoading = def.DeferLoading
	c.group = def.Group
	c.metadata = def.Metadata
	if def.ProviderExecuted {
		c.execute = nil
	}
	return &ProviderTool{
		c:                       *c,
		id:                      def.ID,
		args:                    def.Args,
		providerExecuted:        def.ProviderExecuted,
		supportsDeferredResults: def.SupportsDeferredResults,
	}, nil
}

// ProviderDefined returns the tool a provider package describes, for
// example openai.WebSearch or anthropic.CodeExecution:
//
//	Tools: ai.Tools{{Name: "web_search", Tool: ai.ProviderDefined(openai.WebSearch(openai.WebSearchArgs{}))}},
//
// It panics when the spec has no ID or its input schema is not JSON: specs
// are fixed by the code that builds them, so that is a programming error.
// Use [NewProviderTool] for provider tools with approval rules, model output
// mapping or metadata of their own.
func ProviderDefined(spec provider.ToolSpec) *ProviderTool {
	if spec.ID == "" {
		panic("ai.ProviderDefined: a provider tool needs an ID")
	}
	var input *schema
	var err error
	if spec.InputSchema != nil {
		input, err = lazySchema(spec.InputSchema)
	} else {
		input, err = compileSchema(&jsonschema.Schema{})
	}
	if err != nil {
		panic("ai.ProviderDefined: input schema of " + spec.ID + ": " + err.Error())
	}
	c := toolCore{input: input, decode: decoderFor[json.RawMessage]()}
	if exec := spec.Execute; exec != nil && !spec.ProviderExecuted {
		c.execute = func(ctx context.Context, in any, _ ToolExecutionOptions, _ func(any)) (any, error) {
			return exec(ctx, *in.(*json.RawMessage))
		}
	}
	return &ProviderTool{
		c:                       c,
		id:                      spec.ID,
		args:                    spec.Args,
		providerExecuted:        spec.ProviderExecuted,
		supportsDeferredResults: spec.SupportsDeferredResults,
	}
}
