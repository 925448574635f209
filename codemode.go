package ai

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/aisdkgo/ai/internal/effect"
	"github.com/aisdkgo/ai/internal/tsgen"
)

// ToolDiscovery says how a code mode tool tells the model which tools its
// programs may call.
type ToolDiscovery int

const (
	// DiscoveryDescription puts the catalog of callable tools into the code
	// tool's description, which therefore changes when the tools change.
	DiscoveryDescription ToolDiscovery = iota
	// DiscoveryConversation keeps the code tool's definition fixed and
	// announces the catalog in a user message whenever it changes, so the
	// provider-visible tool list and the prompt prefix stay byte-identical
	// (prompt caching keeps working) while tools are discovered. Tool search
	// through code mode needs this mode.
	DiscoveryConversation
)

// CodeModeLimits bound one program run. Zero fields take the defaults in
// parentheses; the engine's documentation lists every limit with the error
// code it fails with.
type CodeModeLimits struct {
	// Timeout is the wall-clock limit, tool calls included (30s).
	Timeout time.Duration
	// MemoryBytes caps the program's heap (64 MiB).
	MemoryBytes int
	// StackBytes bounds the program's call depth (2 MiB).
	StackBytes int
	// MaxSourceBytes caps the program's size (256 KiB).
	MaxSourceBytes int
	// MaxResultBytes caps the JSON size of the program's result (1 MiB).
	MaxResultBytes int
	// MaxConsoleBytes caps the console output kept (64 KiB).
	MaxConsoleBytes int
	// MaxToolInputBytes and MaxToolOutputBytes cap each tool call's input
	// (1 MiB) and output (4 MiB).
	MaxToolInputBytes  int
	MaxToolOutputBytes int
	// MaxToolCalls caps the tool calls of a run (256).
	MaxToolCalls int
	// MaxConcurrentToolCalls caps the calls in flight at once (32); a call
	// over the cap fails the run, it is not queued.
	MaxConcurrentToolCalls int
	// MaxErrorMessageBytes caps the message of an error that crosses into
	// the model's prompt (8 KiB); a longer one is cut and says how long it
	// was.
	MaxErrorMessageBytes int
	// MaxNestingDepth bounds how deeply a program's source nests brackets,
	// blocks and functions (1000); a deeper program fails with
	// CODE_MODE_USER_ERROR before it is compiled.
	MaxNestingDepth int
}

// CodeModeOptions configure [CodeMode].
type CodeModeOptions struct {
	// Discovery says how the model learns the callable tools.
	Discovery ToolDiscovery
	// Limits bound each program run.
	Limits CodeModeLimits
	// Console, when set, receives the programs' console output, one line at
	// a time ("stdout" or "stderr"). The output is never shown to the model.
	Console func(stream, line string)
	// Approve, when set, decides the calls that the generation's approval
	// policy ([GenerateTextOptions.ToolApproval], or a tool's deprecated
	// NeedsApproval) leaves to a person; without it such calls fail inside
	// the program with [CodeModeToolApprovalRequired].
	Approve func(ctx context.Context, toolName string, input json.RawMessage) (ApprovalStatus, error)
	// ApprovalMode says what a program does when a call needs approval:
	// ask Approve (the default), or pause ([CodeModeApprovalInterrupt]).
	//
	// A paused program ends its step with the paused call (id
	// "<code call id>:tool-<n>") and its [ToolApprovalRequest] (id
	// "<paused call id>:interrupt"); the generation stops, as for any
	// approval. The paused call carries a signed, expiring continuation in
	// its provider metadata; send the conversation back with the answer
	// ([ToolApprovalResponsePart]) and the program runs again from the
	// start: calls that completed before it paused are answered from the
	// continuation (they do not run again), the approved call runs, a
	// denied one rejects inside the program with
	// [CodeModeToolApprovalDenied], and the program goes on (and may pause
	// again). In this mode Math.random is seeded and Date.now() and new
	// Date() report the time the program first started, so that the
	// program takes the same path when it runs again; a program whose path
	// depends on the order in which concurrent calls finish may still
	// diverge, which fails it with [CodeModeProtocolError] rather than run
	// anything twice. A continuation that is tampered with, expired, or
	// signed with another key fails the generation with
	// *[InvalidCodeModeContinuationError] before anything runs. As with
	// any approval, set [GenerateTextOptions.ApprovalLedger] so that an
	// answer sent twice runs the approved call once.
	ApprovalMode CodeModeApproval
	// ContinuationSecrets sign the continuations of paused programs with
	// HMAC-SHA256: the first signs, any of them verifies. When empty, the
	// generation's [GenerateTextOptions.ToolApprovalSecrets] are used, and
	// without those a key made when the process started (continuations
	// then resume only in this process).
	ContinuationSecrets [][]byte
	// ContinuationMaxAge is how long a paused program may wait for its
	// answer (one hour).
	ContinuationMaxAge time.Duration
	// Engine runs the programs. Nil means the engine registered with
	// [RegisterCodeEngine], which importing github.com/aisdkgo/ai/quickjs
	// does.
	Engine CodeEngine
}

// The error codes of code mode; see [CodeModeError].
const (
	// CodeModeErrorCode is the generic code: invalid limits, engine
	// failures, a program that can never finish.
	CodeModeErrorCode = "CODE_MODE_ERROR"
	// CodeModeSerializationError reports a value that could not cross the
	// JSON boundary.
	CodeModeSerializationError = "CODE_MODE_SERIALIZATION_ERROR"
	// CodeModeTimeout reports that Limits.Timeout ran out.
	CodeModeTimeout = "CODE_MODE_TIMEOUT"
	// CodeModeAborted reports that the context ended the run.
	CodeModeAborted = "CODE_MODE_ABORTED"
	// CodeModeSourceTooLarge reports a program over Limits.MaxSourceBytes.
	CodeModeSourceTooLarge = "CODE_MODE_SOURCE_TOO_LARGE"
	// CodeModeBridgeLimit reports too many tool calls in total or at once.
	CodeModeBridgeLimit = "CODE_MODE_BRIDGE_LIMIT"
	// CodeModeDetachedBridgeRequest reports a tool call the program did not
	// wait for.
	CodeModeDetachedBridgeRequest = "CODE_MODE_DETACHED_BRIDGE_REQUEST"
	// CodeModeToolError reports a tool call the library refused: an unknown
	// tool or invalid input.
	CodeModeToolError = "CODE_MODE_TOOL_ERROR"
	// CodeModeHostToolError is what a program sees when a tool failed; the
	// tool's own error is not shown to the program.
	CodeModeHostToolError = "CODE_MODE_HOST_TOOL_ERROR"
	// CodeModeMemoryLimit reports that the program ran out of memory.
	CodeModeMemoryLimit = "CODE_MODE_MEMORY_LIMIT"
	// CodeModeUserError reports an exception the program threw and did not
	// catch, syntax errors included.
	CodeModeUserError = "CODE_MODE_USER_ERROR"
	// CodeModeConcurrencyLimit reports a run refused because too many runs
	// were in progress in the process.
	CodeModeConcurrencyLimit = "CODE_MODE_CONCURRENCY_LIMIT"
	// CodeModeToolApprovalRequired reports a call that needs approval that
	// nobody gave.
	CodeModeToolApprovalRequired = "CODE_MODE_TOOL_APPROVAL_REQUIRED"
	// CodeModeToolApprovalDenied reports a call whose approval was denied.
	CodeModeToolApprovalDenied = "CODE_MODE_TOOL_APPROVAL_DENIED"

	codeModeToolApprovalRequiredName  = "CodeModeToolApprovalRequiredError"
	codeModeToolApprovalDeniedName    = "CodeModeToolApprovalDeniedError"
	codeModeToolErrorName             = "CodeModeToolError"
	codeModeToolInputErrorDescription = "Invalid input for tool"
)

// CodeModeError is the failure of a program run, with a stable Code (one of
// the CodeMode* constants). As a tool error, the model reads it as
// "<Name>: <Message>".
//
// A [CodeProgram]'s CallTool returns a CodeModeError to refuse a call with
// a code the program may inspect; the program sees Name, Message, Code and
// Details.
type CodeModeError struct {
	Code    string
	Name    string
	Message string
	Details map[string]any
	// Cause is the underlying error, never shown to the model.
	Cause error
}

// Error implements the error interface.
func (e *CodeModeError) Error() string { return e.Name + ": " + e.Message }

// Unwrap returns e.Cause.
func (e *CodeModeError) Unwrap() error { return e.Cause }

// ConsoleLine is one line a program wrote to its console.
type ConsoleLine struct {
	Stream string // "stdout" or "stderr"
	Text   string
}

// CodeModeResult is the outcome of a program run.
type CodeModeResult struct {
	// Value is the program's return value as JSON; nil when it returned
	// nothing.
	Value json.RawMessage
	// Console holds the console lines kept within the limit.
	Console []ConsoleLine
}

// CodeEngine runs code mode programs in an isolated, limited JavaScript
// environment. Package github.com/aisdkgo/ai/quickjs provides one; the core
// package links no JavaScript engine, so that programs without code mode do
// not pay for it.
type CodeEngine interface {
	// Run runs one program. A failed run returns a *CodeModeError.
	Run(ctx context.Context, p CodeProgram) (*CodeModeResult, error)
}

// CodeProgram is one program run.
type CodeProgram struct {
	// Source is the program: JavaScript or TypeScript, the body of an
	// async function.
	Source string
	// Limits bound the run.
	Limits CodeModeLimits
	// Console, when set, receives each console line kept within the limit.
	Console func(stream, line string)
	// CallTool runs a tool call of the program. A returned *CodeModeError
	// is shown to the program as it is; any other error is redacted to
	// [CodeModeHostToolError].
	CallTool func(ctx context.Context, call CodeToolCall) (json.RawMessage, error)
	// Seed, when not zero, seeds Math.random, and Time, when not zero, is
	// what Date.now() and new Date() report for the whole run: a program
	// run again with both, and with the same tool results, takes the same
	// path. The zero values keep fresh random numbers and the real clock.
	Seed uint64
	Time time.Time
}

// CodeToolCall is one tool call a program makes.
type CodeToolCall struct {
	// Seq numbers the calls of a run from 1, in dispatch order.
	Seq int
	// Name is the tool's name.
	Name string
	// Input is the call's argument as JSON.
	Input json.RawMessage
}

var defaultCodeEngine atomic.Pointer[CodeEngine]

// RegisterCodeEngine makes e the engine of code mode tools and
// [RunCodeMode] calls that name none. Importing
// github.com/aisdkgo/ai/quickjs registers its engine.
func RegisterCodeEngine(e CodeEngine) {
	if e == nil {
		defaultCodeEngine.Store(nil)
		return
	}
	defaultCodeEngine.Store(&e)
}

// ErrNoCodeEngine is returned when code mode runs without an engine.
var ErrNoCodeEngine = errors.New("ai: code mode needs a JavaScript engine: import github.com/aisdkgo/ai/quickjs (or set CodeModeOptions.Engine)")

func codeEngine(e CodeEngine) (CodeEngine, error) {
	if e != nil {
		return e, nil
	}
	if p := defaultCodeEngine.Load(); p != nil {
		return *p, nil
	}
	return nil, ErrNoCodeEngine
}

// checkCodeEngines fails a generation whose code mode tools have no engine,
// before any model call.
func checkCodeEngines(idx *toolIndex) error {
	for _, i := range idx.callers {
		nt := idx.tools[i]
		if def := nt.Tool.core().caller; def != nil && def.check != nil {
			if err := def.check(); err != nil {
				return &InvalidArgumentError{Parameter: "Tools", Message: fmt.Sprintf("tool %q: %v", nt.Name, err)}
			}
		}
	}
	return nil
}

type codeInput struct {
	JS string `json:"js"`
}

func codeInputSchema() *jsonschema.Schema {
	return &jsonschema.Schema{
		Type: "object",
		Properties: map[string]*jsonschema.Schema{
			"js": {Type: "string", Description: "The program: JavaScript or TypeScript, the body of an async function. It calls the tools of the code mode API through the global `tools` object."},
		},
		Required:             []string{"js"},
		AdditionalProperties: &jsonschema.Schema{Not: &jsonschema.Schema{}},
	}
}

const codePreamble = `Run a JavaScript or TypeScript program and get its result.
- Put the program in "js". It runs as the body of an async function: use top-level await, and return the result.
- The result must be JSON-serializable. Console output is not returned to you.
- Call tools only as async functions of the global ` + "`tools`" + ` object, for example ` + "`await tools.name(input)`" + `; run independent calls together with ` + "`Promise.all`" + `. Await every call.
- Use exactly the tool names and types `

const codeNamesDescription = "shown below."
const codeNamesConversation = "of the most recent code mode capability update."

// CodeMode returns a code mode tool: the model writes a program that calls
// other tools through a global `tools` object, and the program runs in an
// isolated, limited JavaScript engine ([CodeEngine]; import
// github.com/aisdkgo/ai/quickjs for the default one). Route tools to it with
// [GenerateTextOptions.ToolCallers]:
//
//	Tools: ai.Tools{{Name: "code", Tool: ai.CodeMode(nil)}, {Name: "getForecast", Tool: forecast}},
//	ToolCallers: []ai.CallerRoute{{Tool: "getForecast", Callers: []string{"code"}}},
//
// A routed tool is callable from programs; it stays callable by the model
// only if its route also lists [DirectCall]. Programs can search for
// deferred tools through a routed [ToolSearch] in [DiscoveryConversation]
// mode; the tools found become callable from the next step's programs.
//
// A program's tool calls run like the model's: their input is validated,
// the generation's approval policy applies (see [CodeModeOptions.Approve]),
// and per-tool timeouts and the execution callbacks apply too.
//
// A failed run (an uncaught exception, a limit, a failed tool call the
// program did not catch) is a tool error the model sees as
// "<ErrorName>: <message>". The failures of tools are redacted to
// "Host tool failed." inside programs.
func CodeMode(opts *CodeModeOptions) *FunctionTool {
	var o CodeModeOptions
	if opts != nil {
		o = *opts
	}
	def := ToolDef[codeInput, json.RawMessage]{
		InputSchema: codeInputSchema(),
		Execute: func(ctx context.Context, in codeInput, eo ToolExecutionOptions) (json.RawMessage, error) {
			res, err := o.run(ctx, in.JS, eo)
			if err != nil {
				return nil, err
			}
			if res.Value == nil {
				return json.RawMessage("null"), nil
			}
			return res.Value, nil
		},
	}
	hooks := &callerDef{
		check: func() error {
			_, err := codeEngine(o.Engine)
			return err
		},
		secrets: o.continuationSecrets,
		runHere: o.runHere,
	}
	if o.Discovery == DiscoveryConversation {
		// The definition never changes; the callees are announced in
		// the conversation.
		def.Description = codePreamble + codeNamesConversation + "\n\nThe tools you can call arrive in user messages titled \"Code mode capability update\". Each one lists every available tool; the latest one replaces all earlier ones."
		hooks.modelMessage = catalogMessage
	} else {
		def.DescriptionFunc = func(d DescriptionOptions) string {
			return codePreamble + codeNamesDescription + "\n\nTools:\n" + catalog(d.Callees)
		}
	}
	t := NewTool(def)
	t.c.caller = hooks
	return t
}

func init() {
	effect.RunProgram = func(ctx context.Context, tool any, p effect.Program) (json.RawMessage, error) {
		t, ok := tool.(Tool)
		if !ok || t == nil || t.core().caller == nil || t.core().caller.runHere == nil {
			return nil, fmt.Errorf("ai: %T is not a code mode tool", tool)
		}
		return t.core().caller.runHere(ctx, p)
	}
}

// runHere runs a program handed over by a runtime that runs programs
// outside the generation (see [effect.Programs]) with the tool's engine,
// limits and console.
func (o CodeModeOptions) runHere(ctx context.Context, p effect.Program) (json.RawMessage, error) {
	eng, err := codeEngine(o.Engine)
	if err != nil {
		return nil, err
	}
	res, err := eng.Run(ctx, CodeProgram{Source: p.Source, Limits: o.Limits, Console: o.Console, Seed: p.Seed, Time: p.Time,
		CallTool: func(ctx context.Context, c CodeToolCall) (json.RawMessage, error) {
			return p.CallTool(ctx, c.Seq, c.Name, c.Input)
		}})
	if err != nil {
		return nil, err
	}
	if res == nil || res.Value == nil {
		return json.RawMessage("null"), nil
	}
	return res.Value, nil
}

// runElsewhere hands a program to effects that run programs outside the
// generation; its tool calls come back here and run like any nested call.
// A call the approval policy leaves to a person goes to Approve, or waits
// for the runtime's answer; ApprovalMode does not apply, as the runtime
// waits instead of pausing.
func (o CodeModeOptions) runElsewhere(ctx context.Context, ps effect.Programs, js string, eo ToolExecutionOptions) (*CodeModeResult, error) {
	if eo.resume != nil {
		return nil, &CodeModeError{Code: CodeModeErrorCode, Name: "CodeModeError",
			Message: "A program that paused outside this runtime cannot be resumed in it."}
	}
	outer := eo.ToolCallID
	v, err := ps.RunProgram(ctx, effect.Program{Source: js, ToolCallID: outer,
		CallTool: func(ctx context.Context, seq int, name string, input json.RawMessage) (json.RawMessage, error) {
			nested := CalleeCallOptions{ToolCallID: outer + ":tool-" + strconv.Itoa(seq), Messages: eo.Messages, Approve: o.Approve}
			if nested.Approve == nil {
				nested.Approve = func(ctx context.Context, name string, input json.RawMessage) (ApprovalStatus, error) {
					ok, reason, err := ps.ApproveProgramCall(ctx, effect.Call{ToolName: name, ToolCallID: nested.ToolCallID, Input: input})
					switch {
					case err != nil:
						return ApprovalStatus{}, err
					case ok:
						return Approved, nil
					}
					return ApprovalStatus{Kind: ApprovalDenied, Reason: reason}, nil
				}
			}
			return eo.Callees.Call(ctx, name, input, nested)
		}})
	if err != nil {
		return nil, err
	}
	return &CodeModeResult{Value: v}, nil
}

// catalog renders the routed tools as TypeScript declarations and examples.
func catalog(callees Callees) string {
	tools := make([]tsgen.Tool, 0, len(callees.Tools()))
	for _, nt := range callees.Tools() {
		c := nt.Tool.core()
		t := tsgen.Tool{Name: nt.Name, Title: c.title, InputSchema: c.input.raw, OutputSchema: c.outputSchema,
			Description: callees.Description(nt.Name)}
		if ft, ok := nt.Tool.(*FunctionTool); ok {
			t.InputExamples = ft.inputExamples
		}
		tools = append(tools, t)
	}
	return tsgen.Catalog(tools)
}

// catalogMessage is the user message that announces the routed tools.
func catalogMessage(callees Callees) string {
	return "Code mode capability update\nThis catalog replaces every earlier one: only the tools listed here can be called through `tools`.\nTools:\n" + catalog(callees)
}

// run executes a program that calls the callees of eo.
func (o CodeModeOptions) run(ctx context.Context, js string, eo ToolExecutionOptions) (*CodeModeResult, error) {
	eng, err := codeEngine(o.Engine)
	if err != nil {
		return nil, err
	}
	if ps, ok := effect.From(ctx).(effect.Programs); ok {
		return o.runElsewhere(ctx, ps, js, eo)
	}
	outer := eo.ToolCallID
	prog := CodeProgram{Source: js, Limits: o.Limits, Console: o.Console}
	var pr *programRun
	if o.ApprovalMode == CodeModeApprovalInterrupt || eo.resume != nil {
		pr = newProgramRun(eo.resume, time.Now())
		prog.Seed, prog.Time = pr.seed(), pr.clock()
		var cancel context.CancelFunc
		ctx, cancel = context.WithCancel(ctx)
		defer cancel()
		pr.cancel = cancel
	}
	prog.CallTool = func(ctx context.Context, call CodeToolCall) (json.RawMessage, error) {
		nested := CalleeCallOptions{ToolCallID: outer + ":tool-" + strconv.Itoa(call.Seq), Messages: eo.Messages}
		if pr == nil {
			nested.Approve = o.Approve
			return eo.Callees.Call(ctx, call.Name, call.Input, nested)
		}
		return pr.call(ctx, call, func(ctx context.Context, approved bool) (json.RawMessage, error) {
			nested.interrupt, nested.approved = true, approved
			return eo.Callees.Call(ctx, call.Name, call.Input, nested)
		})
	}
	res, err := eng.Run(ctx, prog)
	if pr != nil {
		pr.mu.Lock()
		paused := pr.paused != nil
		pr.mu.Unlock()
		if paused {
			// The run was stopped because it paused: whatever it returned
			// is not its result.
			secrets := o.continuationSecrets(eo.Callees.secrets())
			cp, perr := pr.pause(js, outer, eo.Callees, secrets[0], o.ContinuationMaxAge, time.Now())
			if perr != nil {
				return nil, perr
			}
			return nil, cp
		}
	}
	return res, err
}

func unknownRoutedTool(name string, available []string) *CodeModeError {
	return &CodeModeError{Code: CodeModeToolError, Name: codeModeToolErrorName, Message: "Unknown tool: " + name,
		Details: map[string]any{"toolName": name, "availableTools": available}}
}

// DirectCall is the caller name that lets the model call a tool directly,
// in a [CallerRoute].
const DirectCall = "AI_SDK_DIRECT_TOOL_CALL"

// CallerRoute says who may call a tool: the model directly ([DirectCall])
// and/or caller tools by name: a code mode tool, or any function tool that
// calls its [Callees]. A tool without a route may be called directly; a
// route with no callers hides the tool.
type CallerRoute struct {
	Tool    string
	Callers []string
}

// Callees are the tools [GenerateTextOptions.ToolCallers] routes to a
// caller tool in a step, as that tool sees them in [ToolExecutionOptions]
// and [DescriptionOptions]. A code mode tool is an ordinary function tool
// built on them; any function tool named as a caller in ToolCallers can
// call the tools routed to it the same way. The zero Callees (a tool no
// route names as a caller, or one run outside a generation) holds no tools.
type Callees struct {
	tools Tools
	st    *stepTools
	// r and s are nil while a description is resolved: nothing can be
	// called then.
	r *run
	s *step
}

// Tools returns the callees in the order of the ToolCallers option. The
// slice must not be modified.
func (c Callees) Tools() Tools { return c.tools }

// Description returns a callee's description, resolved for the step (a
// description function runs with the callee's own context); "" for a
// tool that is not a callee or has no description.
func (c Callees) Description(name string) string {
	t, ok := c.tools.Get(name)
	if !ok {
		return ""
	}
	ft, ok := t.(*FunctionTool)
	if !ok || c.st == nil {
		return ""
	}
	d, err := describe(ft, name, c.st)
	if err != nil {
		return ""
	}
	return d
}

// CalleeCallOptions configure one call through [Callees.Call].
type CalleeCallOptions struct {
	// ToolCallID identifies the call, for example "<caller's call id>:tool-1".
	ToolCallID string
	// Messages are what the callee's execution sees as
	// [ToolExecutionOptions.Messages]; usually the caller's.
	Messages []Message
	// Approve decides a call that the generation's approval policy leaves
	// to a person. Without it such a call fails with a *CodeModeError of
	// code CodeModeToolApprovalRequired.
	Approve func(ctx context.Context, toolName string, input json.RawMessage) (ApprovalStatus, error)

	// interrupt makes a call that needs a person's approval return
	// *needsApproval (a code mode program pauses).
	interrupt bool
	// approved is set for the call a person approved while a program was
	// paused: only a policy that denies it outright stops it.
	approved bool
}

// Call runs a callee as the generation runs the model's calls: its input
// is parsed and validated, the approval policy applies (see
// [CalleeCallOptions.Approve]), and its timeout, execution callbacks and
// observer apply too. It returns the output as JSON. A failure the caller
// may pass on to whoever asked for the call (unknown tool, invalid input,
// approval required or denied) is a *CodeModeError; a failing tool's own
// error is returned as it is.
func (c Callees) Call(ctx context.Context, name string, input json.RawMessage, opts CalleeCallOptions) (json.RawMessage, error) {
	if c.r == nil {
		return nil, unknownRoutedTool(name, c.tools.Names())
	}
	return c.r.invokeRouted(ctx, c.s, c.tools, name, input, opts)
}

// secrets returns the generation's approval secrets.
func (c Callees) secrets() [][]byte {
	if c.r == nil {
		return nil
	}
	return c.r.opts.ToolApprovalSecrets
}

// callerDef is what the engine knows of a code mode tool beyond what any
// caller tool has: how it announces its callees in the conversation, how
// it checks its engine, the secrets of its continuations, and how it runs a
// program for a runtime that runs programs elsewhere.
type callerDef struct {
	// modelMessage, when set, keeps the provider-visible definition of the
	// caller fixed and announces its callees in a user message instead; it
	// returns "" for no message.
	modelMessage func(c Callees) string
	// check, when set, reports why the caller cannot run at all.
	check func() error
	// secrets, when set, returns the secrets of the caller's
	// continuations, given the generation's approval secrets.
	secrets func(approval [][]byte) [][]byte
	// runHere, when set, runs a program in this process for a runtime
	// that runs programs outside the generation.
	runHere func(ctx context.Context, p effect.Program) (json.RawMessage, error)
}

// calleesOf returns the callees of a tool in a step.
func (r *run) calleesOf(s *step, name string) Callees {
	return Callees{tools: s.tools.callees[name], st: s.tools, r: r, s: s}
}

// invokeRouted runs a tool on behalf of a caller tool: it validates the
// input, applies the approval policy (a call left to a person goes to
// opts.Approve, or fails), and executes the call like a direct one. The
// result is the output's JSON; failures are what the program sees.
func (r *run) invokeRouted(ctx context.Context, s *step, routed Tools, name string, input json.RawMessage, opts CalleeCallOptions) (json.RawMessage, error) {
	t, ok := routed.Get(name)
	if !ok {
		return nil, unknownRoutedTool(name, routed.Names())
	}
	e := &stepEntry{name: name, tool: t}
	c := t.core()
	raw, value, err := c.parseInput(name, string(input))
	if err != nil {
		var iti *InvalidToolInputError
		if errors.As(err, &iti) {
			return nil, &CodeModeError{Code: CodeModeToolError, Name: codeModeToolErrorName,
				Message: fmt.Sprintf("%s %q: %v", codeModeToolInputErrorDescription, name, iti.Cause), Cause: err}
		}
		return nil, err
	}
	call := ToolCall{ToolCallID: opts.ToolCallID, ToolName: name, Input: raw, Dynamic: t.Kind() == DynamicKind,
		Title: c.title, ToolMetadata: c.metadata, value: value}
	status, err := r.approvalStatus(ctx, s, e, call, opts.Messages)
	if err != nil {
		return nil, err
	}
	switch {
	case status.Kind == ApprovalRequired && opts.approved:
		status = ApprovalStatus{Kind: ApprovalApproved}
	case status.Kind == ApprovalRequired && opts.interrupt:
		return nil, &needsApproval{input: raw}
	case status.Kind == ApprovalRequired && opts.Approve != nil:
		if status, err = opts.Approve(ctx, name, raw); err != nil {
			return nil, err
		}
	}
	switch status.Kind {
	case ApprovalRequired:
		return nil, &CodeModeError{Code: CodeModeToolApprovalRequired, Name: codeModeToolApprovalRequiredName,
			Message: fmt.Sprintf("Tool %q requires approval.", name)}
	case ApprovalDenied:
		msg := fmt.Sprintf("The call of tool %q was denied.", name)
		if status.Reason != "" {
			msg += " " + status.Reason
		}
		return nil, &CodeModeError{Code: CodeModeToolApprovalDenied, Name: codeModeToolApprovalDeniedName, Message: msg}
	}
	if !c.executable() {
		return nil, fmt.Errorf("tool %q cannot be executed here: it has no execute function", name)
	}
	out, err := r.executeCall(ctx, s, e, &call, opts.Messages, func() {}, nil)
	if err != nil {
		return nil, err
	}
	switch out := out.(type) {
	case ToolError:
		return nil, out.Error
	case ToolResult:
		if out.outputJSON != nil {
			return out.outputJSON, nil
		}
		return json.Marshal(out.Output)
	}
	return nil, fmt.Errorf("tool %q produced no outcome", name)
}

// routing is the resolved ToolCallers option.
type routing struct {
	routes map[string][]string
	order  []string // route keys in option order
}

// resolveRouting checks the ToolCallers option against the tools.
func resolveRouting(idx *toolIndex, routes []CallerRoute) (*routing, error) {
	if len(routes) == 0 || len(idx.tools) == 0 {
		return nil, nil
	}
	r := &routing{routes: map[string][]string{}}
	for _, route := range routes {
		if _, ok := idx.get(route.Tool); !ok {
			return nil, &InvalidArgumentError{Parameter: "ToolCallers", Message: fmt.Sprintf("unknown tool %q", route.Tool)}
		}
		if _, dup := r.routes[route.Tool]; dup {
			return nil, &InvalidArgumentError{Parameter: "ToolCallers", Message: fmt.Sprintf("tool %q is routed twice", route.Tool)}
		}
		for _, c := range route.Callers {
			if c == DirectCall {
				continue
			}
			t, ok := idx.get(c)
			if _, fn := t.(*FunctionTool); !ok || !fn {
				return nil, &InvalidArgumentError{Parameter: "ToolCallers", Message: fmt.Sprintf("tool %q has an invalid caller %q", route.Tool, c)}
			}
		}
		callers := route.Callers
		if callers == nil {
			callers = []string{}
		}
		r.routes[route.Tool] = callers
		r.order = append(r.order, route.Tool)
	}
	return r, nil
}

// callersOf returns who may call a tool: nil means direct only.
func (r *routing) callersOf(name string) ([]string, bool) {
	if r == nil {
		return nil, false
	}
	c, ok := r.routes[name]
	return c, ok
}

// routeCallers applies ToolCallers to a step: routed tools leave the model's
// view unless also direct, every caller tool gets the tools routed to it as
// its callees (in the order of the ToolCallers option), and code mode tools
// that announce their callees in the conversation add their message.
func (r *run) routeCallers(s *step) {
	st := s.tools
	st.callees = map[string]Tools{}
	for _, name := range r.routing.order {
		i := slices.IndexFunc(st.entries, func(e stepEntry) bool { return e.name == name })
		if i < 0 {
			continue
		}
		direct := false
		for _, c := range r.routing.routes[name] {
			if c == DirectCall {
				direct = true
				continue
			}
			if slices.IndexFunc(st.entries, func(e stepEntry) bool { return e.name == c }) < 0 {
				continue
			}
			st.callees[c] = append(st.callees[c], NamedTool{Name: name, Tool: st.entries[i].tool})
		}
		st.entries[i].model = direct
	}
	for i := range st.entries {
		e := &st.entries[i]
		def := e.tool.core().caller
		if def == nil || def.modelMessage == nil || !e.model {
			continue
		}
		if msg := def.modelMessage(r.calleesOf(s, e.name)); msg != "" {
			st.callerMessages = append(st.callerMessages, msg)
		}
	}
}

// RunCodeModeOptions configure [RunCodeMode].
type RunCodeModeOptions struct {
	// JS is the program.
	JS string
	// Tools are callable from the program.
	Tools Tools
	// ToolCallID is the id nested calls derive theirs from
	// ("<ToolCallID>:tool-<n>"); a generated id when empty.
	ToolCallID string
	// ToolsContext holds one value per tool, as in a generation.
	ToolsContext map[string]any
	// ToolApproval decides which calls need approval, as in a generation;
	// calls it leaves to a person go to Approve.
	ToolApproval *ToolApproval
	// Limits, Console, Approve and Engine work as in [CodeModeOptions].
	Limits  CodeModeLimits
	Console func(stream, line string)
	Approve func(ctx context.Context, toolName string, input json.RawMessage) (ApprovalStatus, error)
	Engine  CodeEngine
	// Observer, when set, watches the run as a call of a tool named "code"
	// and the program's tool calls inside it; see [Observer].
	Observer Observer
}

// RunCodeMode runs a program without a model, with the given tools callable
// through `tools`. The calls run exactly as a code mode tool's do in a
// generation. It returns a *CodeModeError when the run fails.
func RunCodeMode(ctx context.Context, opts RunCodeModeOptions) (*CodeModeResult, error) {
	idx := indexOf(opts.Tools)
	if idx.err != nil {
		return nil, idx.err
	}
	if _, err := codeEngine(opts.Engine); err != nil {
		return nil, err
	}
	r := &run{opts: &GenerateTextOptions{Tools: opts.Tools, ToolsContext: opts.ToolsContext, ToolApproval: opts.ToolApproval, Observer: opts.Observer},
		idx: idx, ctx: ctx, cancel: func() {}, eff: effectsFor(ctx, nil), toolsContext: opts.ToolsContext}
	s := r.resumeStep()
	o := CodeModeOptions{Limits: opts.Limits, Console: opts.Console, Approve: opts.Approve, Engine: opts.Engine}
	id := opts.ToolCallID
	if id == "" {
		id = r.eff.NewID()
	}
	ctx, end := r.startTool(ctx, s, &ToolCall{ToolCallID: id, ToolName: "code", Input: codeInputJSON(opts.JS)})
	s.tools.callees = map[string]Tools{"code": opts.Tools}
	res, err := o.run(ctx, opts.JS, ToolExecutionOptions{ToolCallID: id, Callees: r.calleesOf(s, "code")})
	end(res, err)
	return res, err
}
