// Package quickjs runs code mode programs: it is the JavaScript engine
// behind [ai.CodeMode] and [ai.RunCodeMode].
//
// Importing the package registers its engine with [ai.RegisterCodeEngine],
// so that code mode tools without an explicit engine use it:
//
//	import _ "github.com/aisdkgo/ai/quickjs"
//
// Programs run in QuickJS compiled to Go (modernc.org/quickjs, no cgo),
// after esbuild has removed their TypeScript types, each in a fresh,
// isolated context without eval, timers, network or file system, under the
// limits of [ai.CodeModeLimits]. The package documentation of the sandbox
// behind it lists every limit, its default and the error code it fails
// with; the core package ai links none of this unless a program imports
// this package.
package quickjs

import (
	"context"
	"encoding/json"
	"errors"

	"github.com/aisdkgo/ai"
	"github.com/aisdkgo/ai/internal/sandbox"
)

func init() { ai.RegisterCodeEngine(Engine()) }

// Engine returns the QuickJS engine.
func Engine() ai.CodeEngine { return engine{} }

type engine struct{}

// Run runs one program in a fresh QuickJS context.
func (engine) Run(ctx context.Context, p ai.CodeProgram) (*ai.CodeModeResult, error) {
	l := p.Limits
	opts := sandbox.Options{
		Source: p.Source,
		Limits: sandbox.Limits{
			Timeout: l.Timeout, MemoryBytes: l.MemoryBytes, StackBytes: l.StackBytes,
			MaxSourceBytes: l.MaxSourceBytes, MaxResultBytes: l.MaxResultBytes, MaxConsoleBytes: l.MaxConsoleBytes,
			MaxToolInputBytes: l.MaxToolInputBytes, MaxToolOutputBytes: l.MaxToolOutputBytes,
			MaxToolCalls: l.MaxToolCalls, MaxConcurrentToolCalls: l.MaxConcurrentToolCalls,
		},
		Console: p.Console,
	}
	if p.CallTool != nil {
		opts.CallTool = func(ctx context.Context, call sandbox.ToolCall) (json.RawMessage, error) {
			out, err := p.CallTool(ctx, ai.CodeToolCall{Seq: call.Seq, Name: call.Name, Input: call.Input})
			var ce *ai.CodeModeError
			if errors.As(err, &ce) {
				// The library's own refusals keep their code and message in
				// the program; other errors are redacted by the sandbox.
				return nil, &sandbox.Error{Code: ce.Code, Name: ce.Name, Message: ce.Message, Details: ce.Details, Cause: ce.Cause}
			}
			return out, err
		}
	}
	res, err := sandbox.Run(ctx, opts)
	if err != nil {
		return nil, codeModeError(err)
	}
	out := &ai.CodeModeResult{Value: res.Value}
	for _, line := range res.Console {
		out.Console = append(out.Console, ai.ConsoleLine{Stream: line.Stream, Text: line.Text})
	}
	return out, nil
}

// codeModeError converts a sandbox failure.
func codeModeError(err error) error {
	var se *sandbox.Error
	if !errors.As(err, &se) {
		return &ai.CodeModeError{Code: ai.CodeModeErrorCode, Name: "CodeModeError", Message: err.Error(), Cause: err}
	}
	return &ai.CodeModeError{Code: se.Code, Name: se.DisplayName(), Message: se.Message, Details: se.Details, Cause: se.Cause}
}
