package ai

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/aisdkgo/ai/internal/sandbox"
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
// parentheses.
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
}

func (l CodeModeLimits) sandbox() sandbox.Limits {
	return sandbox.Limits{
		Timeout: l.Timeout, MemoryBytes: l.MemoryBytes, StackBytes: l.StackBytes,
		MaxSourceBytes: l.MaxSourceBytes, MaxResultBytes: l.MaxResultBytes, MaxConsoleBytes: l.MaxConsoleBytes,
		MaxToolInputBytes: l.MaxToolInputBytes, MaxToolOutputBytes: l.MaxToolOutputBytes,
		MaxToolCalls: l.MaxToolCalls, MaxConcurrentToolCalls: l.MaxConcurrentToolCalls,
	}
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
	// Approve, when set, decides calls of tools that need approval (their
	// NeedsApproval says so); without it such calls fail inside the program.
	Approve func(ctx context.Context, toolName string, input json.RawMessage) (ApprovalStatus, error)
}

// The error codes of code mode; see [CodeModeError].
const (
	CodeModeErrorCode                 = sandbox.CodeError
	CodeModeSerializationError        = sandbox.CodeSerialization
	CodeModeTimeout                   = sandbox.CodeTimeout
	CodeModeAborted                   = sandbox.CodeAborted
	CodeModeSourceTooLarge            = sandbox.CodeSourceTooLarge
	CodeModeBridgeLimit               = sandbox.CodeBridgeLimit
	CodeModeDetachedBridgeRequest     = sandbox.CodeDetachedBridgeRequest
	CodeModeToolError                 = sandbox.CodeToolError
	CodeModeHostToolError             = sandbox.CodeHostToolError
	CodeModeMemoryLimit               = sandbox.CodeMemoryLimit
	CodeModeUserError                 = sandbox.CodeUserError
	CodeModeToolApprovalRequired      = "CODE_MODE_TOOL_APPROVAL_REQUIRED"
	CodeModeToolApprovalDenied        = "CODE_MODE_TOOL_APPROVAL_DENIED"
	codeModeToolApprovalRequiredName  = "CodeModeToolApprovalRequiredError"
	codeModeToolApprovalDeniedName    = "CodeModeToolApprovalDeniedError"
	codeModeToolErrorName             = "CodeModeToolError"
	codeModeToolInputErrorDescription = "Invalid input for tool"
)

// CodeModeError is the failure of a program run, with a stable Code (one of
// the CodeMode* constants). As a tool error, the model reads it as
// "<Name>: <Message>".
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

func codeModeError(err error) error {
	var se *sandbox.Error
	if !errors.As(err, &se) {
		return err
	}
	return &CodeModeError{Code: se.Code, Name: se.DisplayName(), Message: se.Message, Details: se.Details, Cause: se.Cause}
}

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
// isolated, limited JavaScript sandbox inside this process. Route tools to
// it with [GenerateTextOptions.ToolCallers]:
//
//	Tools: ai.Tools{{Name: "code", Tool: ai.CodeMode(nil)}, {Name: "getForecast", Tool: forecast}},
//	ToolCallers: []ai.CallerRoute{{Tool: "getForecast", Callers: []string{"code"}}},
//
// A routed tool is callable from programs; it stays callable by the model
// only if its route also lists [DirectCall]. Programs can search for
// deferred tools through a routed [ToolSearch] in [DiscoveryConversation]
// mode; the tools found become callable from the next step's programs.
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
	t := o.bound(binding{})
	def := &callerDef{bind: func(b binding) Tool { return o.bound(b) }}
	if o.Discovery == DiscoveryConversation {
		def.modelMessage = func(b binding) string { return catalogMessage(b) }
	}
	t.c.caller = def
	return t
}

// bound returns the code tool for a step's routed tools.
func (o CodeModeOptions) bound(b binding) *FunctionTool {
	desc := codePreamble
	if o.Discovery == DiscoveryConversation {
		desc += codeNamesConversation + "\n\nThe tools you can call arrive in user messages titled \"Code mode capability update\". Each one lists every available tool; the latest one replaces all earlier ones."
	} else {
		desc += codeNamesDescription + "\n\nTools:\n" + catalog(b)
	}
	return NewTool(ToolDef[codeInput, json.RawMessage]{
		Description: desc,
		InputSchema: codeInputSchema(),
		Execute: func(ctx context.Context, in codeInput, eo ToolExecutionOptions) (json.RawMessage, error) {
			res, err := o.run(ctx, in.JS, b, eo)
			if err != nil {
				return nil, err
			}
			if res.Value == nil {
				return json.RawMessage("null"), nil
			}
			return res.Value, nil
		},
	})
}

// catalog renders the routed tools as TypeScript declarations and examples.
func catalog(b binding) string {
	tools := make([]tsgen.Tool, 0, len(b.routed))
	for _, nt := range b.routed {
		c := nt.Tool.core()
		t := tsgen.Tool{Name: nt.Name, Title: c.title, InputSchema: c.input.raw, OutputSchema: c.outputSchema}
		if b.describe != nil {
			t.Description = b.describe(nt.Name)
		}
		if ft, ok := nt.Tool.(*FunctionTool); ok {
			t.InputExamples = ft.inputExamples
		}
		tools = append(tools, t)
	}
	return tsgen.Catalog(tools)
}

// catalogMessage is the user message that announces the routed tools.
func catalogMessage(b binding) string {
	return "Code mode capability update\nThis catalog replaces every earlier one: only the tools listed here can be called through `tools`.\nTools:\n" + catalog(b)
}

// run executes a program with the bound tools.
func (o CodeModeOptions) run(ctx context.Context, js string, b binding, eo ToolExecutionOptions) (*CodeModeResult, error) {
	outer := eo.ToolCallID
	res, err := sandbox.Run(ctx, sandbox.Options{
		Source:  js,
		Limits:  o.Limits.sandbox(),
		Console: o.Console,
		CallTool: func(ctx context.Context, call sandbox.ToolCall) (json.RawMessage, error) {
			nested := eo
			nested.ToolCallID = outer + ":tool-" + strconv.Itoa(call.Seq)
			return o.callTool(ctx, b, call, nested)
		},
	})
	if err != nil {
		return nil, codeModeError(err)
	}
	out := &CodeModeResult{Value: res.Value}
	for _, l := range res.Console {
		out.Console = append(out.Console, ConsoleLine{Stream: l.Stream, Text: l.Text})
	}
	return out, nil
}

// callTool runs one tool call of a program.
func (o CodeModeOptions) callTool(ctx context.Context, b binding, call sandbox.ToolCall, eo ToolExecutionOptions) (json.RawMessage, error) {
	if b.invoke == nil {
		return nil, &sandbox.Error{Code: sandbox.CodeToolError, Name: codeModeToolErrorName,
			Message: "Unknown tool: " + call.Name, Details: map[string]any{"toolName": call.Name, "availableTools": []string{}}}
	}
	out, err := b.invoke(ctx, call.Name, call.Input, eo)
	var ar *ApprovalRequiredError
	if errors.As(err, &ar) && !ar.Denied && o.Approve != nil {
		status, aerr := o.Approve(ctx, call.Name, call.Input)
		switch {
		case aerr != nil:
			return nil, aerr
		case status.Kind == ApprovalApproved:
			out, err = b.invoke(withApproval(ctx), call.Name, call.Input, eo)
		case status.Kind == ApprovalDenied:
			err = &ApprovalRequiredError{ToolName: call.Name, Denied: true, Reason: status.Reason}
		}
	}
	if err != nil {
		return nil, toolCallError(call.Name, b, err)
	}
	if raw, ok := out.(json.RawMessage); ok {
		return raw, nil
	}
	if sr, ok := out.(ToolSearchResult); ok {
		return searchOutput(sr), nil
	}
	data, err := json.Marshal(out)
	if err != nil {
		return nil, &sandbox.Error{Code: sandbox.CodeSerialization, Message: fmt.Sprintf("the output of tool %q is not JSON-serializable: %v", call.Name, err)}
	}
	return data, nil
}

// toolCallError turns the failure of a routed call into what the program
// sees: the library's own errors keep their message and get a code; any
// other error is redacted by the sandbox.
func toolCallError(name string, b binding, err error) error {
	var nst *NoSuchToolError
	var iti *InvalidToolInputError
	var ar *ApprovalRequiredError
	switch {
	case errors.As(err, &nst):
		return &sandbox.Error{Code: sandbox.CodeToolError, Name: codeModeToolErrorName, Message: "Unknown tool: " + name,
			Details: map[string]any{"toolName": name, "availableTools": b.routed.Names()}}
	case errors.As(err, &iti):
		return &sandbox.Error{Code: sandbox.CodeToolError, Name: codeModeToolErrorName,
			Message: fmt.Sprintf("%s %q: %v", codeModeToolInputErrorDescription, name, iti.Cause)}
	case errors.As(err, &ar) && ar.Denied:
		msg := fmt.Sprintf("The call of tool %q was denied.", name)
		if ar.Reason != "" {
			msg += " " + ar.Reason
		}
		return &sandbox.Error{Code: CodeModeToolApprovalDenied, Name: codeModeToolApprovalDeniedName, Message: msg}
	case errors.As(err, &ar):
		return &sandbox.Error{Code: CodeModeToolApprovalRequired, Name: codeModeToolApprovalRequiredName,
			Message: fmt.Sprintf("Tool %q requires approval.", name)}
	}
	return err
}

type approvedKey struct{}

// withApproval marks a context whose call was approved by CodeModeOptions.Approve.
func withApproval(ctx context.Context) context.Context {
	return context.WithValue(ctx, approvedKey{}, true)
}

func isApproved(ctx context.Context) bool {
	v, _ := ctx.Value(approvedKey{}).(bool)
	return v
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
	// Limits, Console and Approve work as in [CodeModeOptions].
	Limits  CodeModeLimits
	Console func(stream, line string)
	Approve func(ctx context.Context, toolName string, input json.RawMessage) (ApprovalStatus, error)
}

// RunCodeMode runs a program without a model, with the given tools callable
// through `tools`. It returns a *CodeModeError when the run fails.
func RunCodeMode(ctx context.Context, opts RunCodeModeOptions) (*CodeModeResult, error) {
	idx := indexOf(opts.Tools)
	if idx.err != nil {
		return nil, idx.err
	}
	r := &run{opts: &GenerateTextOptions{Tools: opts.Tools}, idx: idx, ctx: ctx, newID: randomID}
	st := &stepTools{exec: true, toolsContext: opts.ToolsContext}
	for _, nt := range opts.Tools {
		st.entries = append(st.entries, stepEntry{name: nt.Name, tool: nt.Tool, exec: nt.Tool, model: true})
	}
	o := CodeModeOptions{Limits: opts.Limits, Console: opts.Console, Approve: opts.Approve}
	id := opts.ToolCallID
	if id == "" {
		id = randomID()
	}
	return o.run(ctx, opts.JS, r.bindingFor(st, opts.Tools), ToolExecutionOptions{ToolCallID: id})
}
