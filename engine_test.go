package ai_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"go/ast"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"io"
	"iter"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/aisdkgo/ai"
	"github.com/aisdkgo/ai/aitest"
	"github.com/aisdkgo/ai/internal/effect"
	"github.com/aisdkgo/ai/provider"
)

// wipeTool counts its executions.
func wipeTool(runs *int, mu *sync.Mutex) *ai.FunctionTool {
	return ai.NewTool(ai.ToolDef[struct{}, string]{
		Description: "Wipe everything.",
		Execute: func(context.Context, struct{}, ai.ToolExecutionOptions) (string, error) {
			mu.Lock()
			*runs++
			mu.Unlock()
			return "wiped", nil
		},
	})
}

// codeModeRun runs one code mode step whose program calls the routed tools,
// then a text step, and returns the program's outcome.
func codeModeRun(t *testing.T, js string, tools ai.Tools, routed []string, set func(*ai.GenerateTextOptions)) (*ai.GenerateTextResult, json.RawMessage, error) {
	t.Helper()
	model := aitest.NewModel(toolStep(codeCall("c1", js)), textStep("done"))
	var routes []ai.CallerRoute
	for _, name := range routed {
		routes = append(routes, ai.CallerRoute{Tool: name, Callers: []string{"code"}})
	}
	opts := ai.GenerateTextOptions{
		Model:       model,
		Tools:       append(ai.Tools{{Name: "code", Tool: ai.CodeMode(nil)}}, tools...),
		ToolCallers: routes,
		StopWhen:    ai.StepCountIs(2),
		Prompt:      "go",
	}
	if set != nil {
		set(&opts)
	}
	res, err := ai.GenerateText(context.Background(), opts)
	require.NoError(t, err)
	step := res.Steps[0]
	if errs := step.ToolErrors(); len(errs) > 0 {
		return res, nil, errs[0].Error
	}
	require.Len(t, step.ToolResults(), 1)
	return res, step.ToolResults()[0].Output.(json.RawMessage), nil
}

// A program's call of a tool runs under the generation's approval policy:
// the Tools rules, Default and Decide, with CodeModeOptions.Approve for the
// calls the policy leaves to a person.
func TestRoutedCallsObeyToolApproval(t *testing.T) {
	const js = `try { return await tools.wipe({}); } catch (e) { return e.code + ": " + e.message; }`
	approvalPolicies := []struct {
		name     string
		approval *ai.ToolApproval
		approve  func(context.Context, string, json.RawMessage) (ai.ApprovalStatus, error)
		want     string
		runs     int
	}{
		{name: "tools rule requires approval", approval: &ai.ToolApproval{Tools: map[string]ai.ApprovalRule{"wipe": ai.Rule(ai.RequiresApproval)}},
			want: `"CODE_MODE_TOOL_APPROVAL_REQUIRED: Tool \"wipe\" requires approval."`},
		{name: "default requires approval", approval: &ai.ToolApproval{
			Tools: map[string]ai.ApprovalRule{"code": ai.Rule(ai.NotApplicable)}, Default: new(ai.Rule(ai.RequiresApproval))},
			want: `"CODE_MODE_TOOL_APPROVAL_REQUIRED: Tool \"wipe\" requires approval."`},
		{name: "decide denies", approval: &ai.ToolApproval{Decide: func(_ context.Context, req ai.ApprovalRequest) (ai.ApprovalStatus, error) {
			if req.ToolCall.ToolName == "code" {
				return ai.NotApplicable, nil
			}
			assert.Equal(t, "c1:tool-1", req.ToolCall.ToolCallID)
			return ai.Denied.WithReason("not today"), nil
		}}, want: `"CODE_MODE_TOOL_APPROVAL_DENIED: The call of tool \"wipe\" was denied. not today"`},
		{name: "decide approves", approval: &ai.ToolApproval{Decide: func(context.Context, ai.ApprovalRequest) (ai.ApprovalStatus, error) {
			return ai.Approved, nil
		}}, want: `"wiped"`, runs: 1},
		{name: "rule function sees the input", approval: &ai.ToolApproval{Tools: map[string]ai.ApprovalRule{"wipe": {
			Func: func(_ context.Context, input json.RawMessage, _ ai.ApprovalRequest) (ai.ApprovalStatus, error) {
				assert.JSONEq(t, `{}`, string(input))
				return ai.RequiresApproval, nil
			}}}}, want: `"CODE_MODE_TOOL_APPROVAL_REQUIRED: Tool \"wipe\" requires approval."`},
		{name: "approve callback answers", approval: &ai.ToolApproval{Tools: map[string]ai.ApprovalRule{"wipe": ai.Rule(ai.RequiresApproval)}},
			approve: func(_ context.Context, name string, _ json.RawMessage) (ai.ApprovalStatus, error) {
				assert.Equal(t, "wipe", name)
				return ai.Approved, nil
			}, want: `"wiped"`, runs: 1},
	}
	for _, tt := range approvalPolicies {
		t.Run(tt.name, func(t *testing.T) {
			var mu sync.Mutex
			runs := 0
			code := ai.CodeMode(&ai.CodeModeOptions{Approve: tt.approve})
			_, out, err := codeModeRun(t, js, ai.Tools{{Name: "wipe", Tool: wipeTool(&runs, &mu)}}, []string{"wipe"},
				func(o *ai.GenerateTextOptions) {
					o.ToolApproval = tt.approval
					o.Tools[0].Tool = code
				})
			require.NoError(t, err)
			assert.JSONEq(t, tt.want, string(out))
			assert.Equal(t, tt.runs, runs)
		})
	}
}

// A program's call of a tool has the tool's timeout and the execution
// callbacks of a direct call.
func TestRoutedCallsObeyToolTimeoutAndCallbacks(t *testing.T) {
	slow := ai.NewTool(ai.ToolDef[struct{}, string]{
		Execute: func(ctx context.Context, _ struct{}, _ ai.ToolExecutionOptions) (string, error) {
			<-ctx.Done()
			return "", ctx.Err()
		},
	})
	var mu sync.Mutex
	var starts []string
	var ends []ai.ToolExecutionEndEvent
	_, out, err := codeModeRun(t, `try { await tools.slow({}); return "no"; } catch (e) { return e.code; }`,
		ai.Tools{{Name: "slow", Tool: slow}}, []string{"slow"}, func(o *ai.GenerateTextOptions) {
			o.Timeout.Tools = map[string]time.Duration{"slow": 20 * time.Millisecond}
			o.OnToolExecutionStart = func(e ai.ToolExecutionStartEvent) {
				mu.Lock()
				starts = append(starts, e.ToolCall.ToolName+" "+e.ToolCall.ToolCallID)
				mu.Unlock()
			}
			o.OnToolExecutionEnd = func(e ai.ToolExecutionEndEvent) {
				mu.Lock()
				ends = append(ends, e)
				mu.Unlock()
			}
		})
	require.NoError(t, err)
	// The failure of a tool is redacted inside the program.
	assert.JSONEq(t, `"CODE_MODE_HOST_TOOL_ERROR"`, string(out))
	assert.Equal(t, []string{"code c1", "slow c1:tool-1"}, starts)
	require.Len(t, ends, 2)
	assert.Equal(t, "slow", ends[0].ToolCall.ToolName)
	var te *ai.TimeoutError
	require.ErrorAs(t, ends[0].Err, &te)
	assert.Equal(t, "slow", te.ToolName)
	assert.ErrorIs(t, ends[0].Err, context.DeadlineExceeded)
	assert.Equal(t, "code", ends[1].ToolCall.ToolName)
	assert.NoError(t, ends[1].Err)
}

// twoCalls is a step calling tool "a" twice.
func twoCalls() aitest.Response {
	return toolStep(tc("c1", "a", `{}`), tc("c2", "a", `{}`))
}

// cancellingTool cancels the generation from inside its first execution.
func cancellingTool(cancel context.CancelFunc, runs *int) *ai.FunctionTool {
	return ai.NewTool(ai.ToolDef[struct{}, string]{
		Execute: func(context.Context, struct{}, ai.ToolExecutionOptions) (string, error) {
			*runs++
			cancel()
			return "ok", nil
		},
	})
}

// Cancellation that lands between the launches of a step's tools fails the
// generation; no step is recorded with a call that has no outcome.
func TestCancellationBetweenToolLaunches(t *testing.T) {
	for _, where := range []string{"in the tool", "in OnToolExecutionStart"} {
		for _, stream := range []bool{false, true} {
			t.Run(where+map[bool]string{false: "/generate", true: "/stream"}[stream], func(t *testing.T) {
				ctx, cancel := context.WithCancel(context.Background())
				defer cancel()
				runs := 0
				tool := cancellingTool(func() {}, &runs)
				if where == "in the tool" {
					tool = cancellingTool(cancel, &runs)
				}
				opts := ai.GenerateTextOptions{
					Model:               aitest.NewModel(twoCalls(), textStep("done")),
					Tools:               ai.Tools{{Name: "a", Tool: tool}},
					ToolCallConcurrency: 1,
					StopWhen:            ai.StepCountIs(3),
					Prompt:              "go",
				}
				if where == "in OnToolExecutionStart" {
					opts.OnToolExecutionStart = func(ai.ToolExecutionStartEvent) { cancel() }
				}
				res, err := runToEnd(t, ctx, opts, stream)
				require.ErrorIs(t, err, context.Canceled)
				if res != nil {
					assert.Empty(t, res.Steps)
				}
				assert.LessOrEqual(t, runs, 1)
			})
		}
	}
}

// runToEnd runs a generation, streamed or not, and returns what its caller
// gets. A stream must end with an abort part when it fails by cancellation.
func runToEnd(t *testing.T, ctx context.Context, opts ai.GenerateTextOptions, stream bool) (*ai.GenerateTextResult, error) {
	t.Helper()
	if !stream {
		return ai.GenerateText(ctx, opts)
	}
	s, err := ai.StreamText(ctx, opts)
	require.NoError(t, err)
	var parts []ai.Part
	for p, err := range s.Parts() {
		require.NoError(t, err)
		parts = append(parts, p)
	}
	require.NotEmpty(t, parts)
	last := parts[len(parts)-1]
	res, err := s.Wait()
	if err != nil && (errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded)) {
		assert.IsType(t, ai.Abort{}, last, "a cancelled stream ends with an abort")
		for _, p := range parts {
			_, isFinishStep := p.(ai.FinishStep)
			assert.False(t, isFinishStep, "no step finished")
		}
	}
	return res, err
}

// An expired step or total timeout fails a generation whose tools are
// running, with an error that names the limit.
func TestTimeoutsExpiringMidStep(t *testing.T) {
	blocking := ai.NewTool(ai.ToolDef[struct{}, string]{
		Execute: func(ctx context.Context, _ struct{}, _ ai.ToolExecutionOptions) (string, error) {
			<-ctx.Done()
			return "", ctx.Err()
		},
	})
	for _, limit := range []string{"Step", "Total"} {
		for _, stream := range []bool{false, true} {
			t.Run(limit+map[bool]string{false: "/generate", true: "/stream"}[stream], func(t *testing.T) {
				opts := ai.GenerateTextOptions{
					Model:    aitest.NewModel(twoCalls(), textStep("done")),
					Tools:    ai.Tools{{Name: "a", Tool: blocking}},
					StopWhen: ai.StepCountIs(3),
					Prompt:   "go",
				}
				if limit == "Step" {
					opts.Timeout.Step = 30 * time.Millisecond
				} else {
					opts.Timeout.Total = 30 * time.Millisecond
				}
				res, err := runToEnd(t, context.Background(), opts, stream)
				require.ErrorIs(t, err, context.DeadlineExceeded)
				var te *ai.TimeoutError
				require.ErrorAs(t, err, &te)
				assert.Equal(t, limit, te.Limit)
				if res != nil {
					assert.Empty(t, res.Steps)
				}
			})
		}
	}
}

type panickingOutput struct{}

func (panickingOutput) MarshalJSON() ([]byte, error) { panic("no JSON today") }

type cycle struct{ Next *cycle }

// An output that cannot be encoded is a tool error in every view: the step,
// the execution callback, the stream part and the model's next prompt.
func TestUnencodableOutputsAreToolErrors(t *testing.T) {
	loop := &cycle{}
	loop.Next = loop
	outputs := map[string]any{
		"panicking MarshalJSON": panickingOutput{},
		"channel":               make(chan int),
		"NaN":                   math.NaN(),
		"cyclic pointer":        loop,
		"invalid raw JSON":      json.RawMessage(`{"a":`),
	}
	for name, output := range outputs {
		for _, stream := range []bool{false, true} {
			t.Run(name+map[bool]string{false: "/generate", true: "/stream"}[stream], func(t *testing.T) {
				tool := ai.NewTool(ai.ToolDef[struct{}, any]{
					Execute: func(context.Context, struct{}, ai.ToolExecutionOptions) (any, error) { return output, nil },
				})
				model := aitest.NewModel(toolStep(tc("c1", "bad", `{}`)), textStep("done"))
				var endErr error
				opts := ai.GenerateTextOptions{
					Model: model, Tools: ai.Tools{{Name: "bad", Tool: tool}}, StopWhen: ai.StepCountIs(2), Prompt: "go",
					OnToolExecutionEnd: func(e ai.ToolExecutionEndEvent) {
						endErr = e.Err
						assert.Nil(t, e.Output)
					},
				}
				var res *ai.GenerateTextResult
				var err error
				if stream {
					s, serr := ai.StreamText(context.Background(), opts)
					require.NoError(t, serr)
					sawError := false
					for p, perr := range s.Parts() {
						require.NoError(t, perr)
						_, merr := json.Marshal(p)
						require.NoError(t, merr, "every part marshals: %T", p)
						_, isResult := p.(ai.ToolResult)
						assert.False(t, isResult)
						if _, ok := p.(ai.ToolError); ok {
							sawError = true
						}
					}
					assert.True(t, sawError)
					res, err = s.Wait()
				} else {
					res, err = ai.GenerateText(context.Background(), opts)
				}
				require.NoError(t, err)
				var oe *ai.ToolOutputError
				require.ErrorAs(t, endErr, &oe)
				assert.Equal(t, "bad", oe.ToolName)
				assert.Empty(t, res.Steps[0].ToolResults())
				require.Len(t, res.Steps[0].ToolErrors(), 1)
				assert.ErrorAs(t, res.Steps[0].ToolErrors()[0].Error, &oe)
				prompt := model.Calls()[1].Prompt
				tm := prompt[len(prompt)-1].(provider.ToolMessage)
				out := tm.Content[0].(provider.ToolResultPart).Output
				require.IsType(t, provider.ErrorTextOutput{}, out)
				assert.Contains(t, out.(provider.ErrorTextOutput).Value, "cannot be encoded as JSON")
			})
		}
	}
}

// A streaming tool whose approved call resumes a conversation streams its
// preliminary results before the first step starts.
func TestResumedStreamingToolStreamsPreliminaryResults(t *testing.T) {
	progress := ai.NewTool(ai.ToolDef[struct{}, string]{
		ExecuteStream: func(context.Context, struct{}, ai.ToolExecutionOptions) iter.Seq2[string, error] {
			return func(yield func(string, error) bool) {
				for _, v := range []string{"25%", "75%", "done"} {
					if !yield(v, nil) {
						return
					}
				}
			}
		},
	})
	messages := []ai.Message{
		ai.UserText("go"),
		ai.AssistantMessage{Content: []ai.AssistantPart{
			ai.ToolCallPart{ToolCallID: "c1", ToolName: "progress", Input: json.RawMessage(`{}`)},
			ai.ToolApprovalRequestPart{ApprovalID: "ap1", ToolCallID: "c1"},
		}},
		ai.ToolMessage{Content: []ai.ToolPart{ai.ToolApprovalResponsePart{ApprovalID: "ap1", Approved: true}}},
	}
	s, err := ai.StreamText(context.Background(), ai.GenerateTextOptions{
		Model: aitest.NewModel(textStep("finished")), Tools: ai.Tools{{Name: "progress", Tool: progress}}, Messages: messages,
	})
	require.NoError(t, err)
	var seen []string
	for p, err := range s.Parts() {
		require.NoError(t, err)
		switch p := p.(type) {
		case ai.ToolResult:
			seen = append(seen, p.Output.(string)+map[bool]string{true: " (preliminary)"}[p.Preliminary])
		case ai.StartStep:
			seen = append(seen, "start-step")
		}
	}
	assert.Equal(t, []string{"25% (preliminary)", "75% (preliminary)", "done (preliminary)", "done", "start-step"}, seen)
}

// The content union is closed: a type switch over content parts with a
// case of a provider type does not compile. The streamed deltas are the
// provider's types: a switch naming both spellings has a duplicate case.
func TestPartUnions(t *testing.T) {
	src := `package p

import (
	"github.com/aisdkgo/ai"
	"github.com/aisdkgo/ai/provider"
)

func f(p ai.Part, c ai.ContentPart) {
	switch p.(type) {
	case ai.TextDelta:
	case provider.TextDelta:
	}
	switch c.(type) {
	case provider.Text:
	}
}
`
	errs := strings.Join(typeCheck(t, src), "\n")
	assert.Contains(t, errs, "p.go:11:7: duplicate case provider.TextDelta")
	assert.Contains(t, errs, "p.go:14:7: impossible type switch case: provider.Text")
	assert.Equal(t, 2, strings.Count(errs, ": impossible")+strings.Count(errs, ": duplicate"), errs)
}

// Exactly one function runs a tool's own code: invokeTool is the only code
// that calls a tool's execute function or a search tool's search.
func TestOneFunctionExecutesTools(t *testing.T) {
	fset := token.NewFileSet()
	files, err := filepath.Glob("*.go")
	require.NoError(t, err)
	callers := map[string]bool{}
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, 0)
		require.NoError(t, err)
		for _, decl := range f.Decls {
			fn, ok := decl.(*ast.FuncDecl)
			if !ok || fn.Body == nil {
				continue
			}
			ast.Inspect(fn.Body, func(n ast.Node) bool {
				call, ok := n.(*ast.CallExpr)
				if !ok {
					return true
				}
				if sel, ok := call.Fun.(*ast.SelectorExpr); ok && (sel.Sel.Name == "execute" || sel.Sel.Name == "search") {
					if x, ok := sel.X.(*ast.Ident); ok && (x.Name == "c" || x.Name == "r") {
						callers[fn.Name.Name] = true
					}
				}
				return true
			})
		}
	}
	assert.Equal(t, map[string]bool{"invokeTool": true}, callers)
}

// typeCheck type-checks one file of Go source against this module's
// packages, compiled by the go command, and returns the errors.
func typeCheck(t *testing.T, src string) []string {
	t.Helper()
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "p.go", src, 0)
	require.NoError(t, err)
	out, err := exec.Command("go", "list", "-export", "-deps", "-f", "{{.ImportPath}}={{.Export}}",
		"github.com/aisdkgo/ai", "github.com/aisdkgo/ai/provider").Output()
	require.NoError(t, err)
	exports := map[string]string{}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		path, file, _ := strings.Cut(line, "=")
		exports[path] = file
	}
	lookup := func(path string) (io.ReadCloser, error) { return os.Open(exports[path]) }
	var errs []string
	conf := types.Config{
		Importer: importer.ForCompiler(fset, "gc", lookup),
		Error:    func(err error) { errs = append(errs, err.Error()) },
	}
	_, _ = conf.Check("p", fset, []*ast.File{f}, nil)
	return errs
}

// remoteEffects run every tool call through effect.RunTool, the way a
// runtime that executes tools in another process does, and hand the engine
// the JSON it returns.
type remoteEffects struct {
	tools ai.Tools
}

func (remoteEffects) Generate(ctx context.Context, m provider.LanguageModel, opts *provider.CallOptions, _ effect.Retry) (*provider.GenerateResult, error) {
	return m.Generate(ctx, opts)
}

func (remoteEffects) Stream(ctx context.Context, m provider.LanguageModel, opts *provider.CallOptions, _ effect.Retry) (*provider.StreamResult, error) {
	return m.Stream(ctx, opts)
}

func (e remoteEffects) Invoke(ctx context.Context, call effect.Call, _ func(context.Context) (any, error)) (any, error) {
	t, _ := e.tools.Get(call.ToolName)
	return effect.RunTool(ctx, t, call)
}

func (remoteEffects) Parallel(ctx context.Context, n, _ int, task func(context.Context, int, func())) {
	for i := range n {
		task(ctx, i, func() {})
	}
}

func (remoteEffects) Now() time.Time { return time.Unix(0, 0) }

func (remoteEffects) NewID() string { return "id" }

// A tool executed elsewhere yields the same result as one executed here:
// its JSON output is decoded into the tool's output type, for the step's
// result and for ToModelOutput.
func TestRemoteToolOutputKeepsItsType(t *testing.T) {
	type forecast struct {
		City string `json:"city"`
		Temp int    `json:"temp"`
	}
	var seen forecast
	weather := ai.NewTool(ai.ToolDef[mailIn, forecast]{
		Description: "Weather.",
		Execute: func(_ context.Context, in mailIn, _ ai.ToolExecutionOptions) (forecast, error) {
			return forecast{City: in.To, Temp: 21}, nil
		},
		ToModelOutput: func(_ context.Context, o ai.ModelOutputOptions[mailIn, forecast]) (ai.ToolResultOutput, error) {
			seen = o.Output
			return ai.TextOutput{Value: fmt.Sprintf("%d degrees in %s", o.Output.Temp, o.Output.City)}, nil
		},
	})
	greet := ai.NewTool(ai.ToolDef[mailIn, string]{
		Description: "Greet.",
		Execute: func(_ context.Context, in mailIn, _ ai.ToolExecutionOptions) (string, error) {
			return "hello " + in.To, nil
		},
	})
	tools := ai.Tools{{Name: "weather", Tool: weather}, {Name: "greet", Tool: greet}}
	model := aitest.NewModel(toolStep(tc("c1", "weather", `{"to":"Oslo"}`), tc("c2", "greet", `{"to":"bob"}`)), textStep("ok"))
	ctx := effect.With(context.Background(), remoteEffects{tools})
	res, err := ai.GenerateText(ctx, ai.GenerateTextOptions{Model: model, Tools: tools, StopWhen: ai.StepCountIs(2), Prompt: "go"})
	require.NoError(t, err)
	results := res.Steps[0].ToolResults()
	require.Len(t, results, 2)
	assert.Equal(t, forecast{City: "Oslo", Temp: 21}, results[0].Output)
	assert.Equal(t, forecast{City: "Oslo", Temp: 21}, seen)
	assert.Equal(t, "hello bob", results[1].Output)
	tool := res.Steps[0].Response.Messages[1].(ai.ToolMessage)
	assert.Equal(t, ai.TextOutput{Value: "21 degrees in Oslo"}, tool.Content[0].(ai.ToolResultPart).Output)
	assert.Equal(t, ai.TextOutput{Value: "hello bob"}, tool.Content[1].(ai.ToolResultPart).Output, "a string output is text for the model")
}

// TestResultsOutliveLaterGenerations checks that what a generation returns
// (its steps, content, messages and usage) and what its model was handed
// (the prompts) stay as they were while later generations run: the engine
// reuses its working state, never what a result or a model refers to.
func TestResultsOutliveLaterGenerations(t *testing.T) {
	run := func(city, answer string, stream bool) (*ai.GenerateTextResult, *aitest.Model) {
		model := aitest.NewModel(toolStep(tc("call-"+city, "weather", map[string]any{"city": city})), textStep(answer))
		opts := ai.GenerateTextOptions{
			Model:    model,
			Tools:    ai.Tools{{Name: "weather", Tool: weatherTool(nil)}},
			StopWhen: ai.StepCountIs(3),
			Prompt:   "Weather in " + city + "?",
		}
		if !stream {
			res, err := ai.GenerateText(context.Background(), opts)
			require.NoError(t, err)
			return res, model
		}
		st, err := ai.StreamText(context.Background(), opts)
		require.NoError(t, err)
		res, err := st.Wait()
		require.NoError(t, err)
		return res, model
	}
	snapshot := func(res *ai.GenerateTextResult, model *aitest.Model) string {
		b, err := json.Marshal(map[string]any{"steps": res.Steps, "messages": res.ResponseMessages,
			"usage": res.Usage, "text": res.Text, "prompts": model.Calls()})
		require.NoError(t, err)
		return string(b)
	}
	for _, stream := range []bool{false, true} {
		first, firstModel := run("Paris", "Rain in Paris.", stream)
		want := snapshot(first, firstModel)
		require.Contains(t, want, "Paris")
		for i := range 20 {
			city := fmt.Sprintf("Berlin%02d", i)
			later, laterModel := run(city, "Sun in "+city+".", i%2 == 0)
			require.Contains(t, snapshot(later, laterModel), city)
		}
		assert.Equal(t, want, snapshot(first, firstModel), "stream=%v", stream)
	}
}

// TestDuplicateCallIDsKeepTheirOwnParts sends two calls under one id: each
// keeps its input, its result and its parts of the response messages.
func TestDuplicateCallIDsKeepTheirOwnParts(t *testing.T) {
	model := aitest.NewModel(
		toolStep(tc("same", "weather", map[string]any{"city": "Paris"}), tc("same", "weather", map[string]any{"city": "Berlin"})),
		textStep("done"))
	res, err := ai.GenerateText(context.Background(), ai.GenerateTextOptions{
		Model:    model,
		Tools:    ai.Tools{{Name: "weather", Tool: weatherTool(nil)}},
		StopWhen: ai.StepCountIs(3),
		Prompt:   "Weather?",
	})
	require.NoError(t, err)
	step := res.Steps[0]
	var inputs, outputs []string
	for _, c := range step.ToolCalls() {
		inputs = append(inputs, string(c.Input))
	}
	for _, r := range step.ToolResults() {
		outputs = append(outputs, r.Output.(weatherOut).Forecast)
	}
	assert.Equal(t, []string{`{"city":"Paris"}`, `{"city":"Berlin"}`}, inputs)
	assert.ElementsMatch(t, []string{"rain in Paris", "rain in Berlin"}, outputs)
	require.Len(t, step.Response.Messages, 2)
	var parts []string
	for _, p := range step.Response.Messages[1].(ai.ToolMessage).Content {
		out := p.(ai.ToolResultPart).Output.(ai.JSONOutput)
		parts = append(parts, string(out.Value))
	}
	assert.ElementsMatch(t, []string{`{"forecast":"rain in Paris"}`, `{"forecast":"rain in Berlin"}`}, parts)
	var calls []string
	for _, p := range step.Response.Messages[0].(ai.AssistantMessage).Content {
		calls = append(calls, string(p.(ai.ToolCallPart).Input))
	}
	assert.Equal(t, []string{`{"city":"Paris"}`, `{"city":"Berlin"}`}, calls)
}

// TestDeferredProviderResultsContinueTheLoop: a provider-executed call of a
// tool that delivers results later keeps the generation going until its
// result arrives; without that property the generation stops.
func TestDeferredProviderResultsContinueTheLoop(t *testing.T) {
	for _, deferred := range []bool{true, false} {
		tool := ai.ProviderDefined(provider.ToolSpec{ID: "test.runner", ProviderExecuted: true, SupportsDeferredResults: deferred})
		model := aitest.NewModel(
			aitest.Response{Content: []provider.Content{provider.ToolCall{ToolCallID: "p1", ToolName: "runner", Input: "{}", ProviderExecuted: true}}},
			aitest.Response{Content: []provider.Content{
				provider.ToolResult{ToolCallID: "p1", ToolName: "runner", Result: json.RawMessage(`{"ok":true}`)},
				aitest.Text("done"),
			}},
		)
		res, err := ai.GenerateText(context.Background(), ai.GenerateTextOptions{
			Model:    model,
			Tools:    ai.Tools{{Name: "runner", Tool: tool}},
			StopWhen: ai.StepCountIs(5),
			Prompt:   "run it",
		})
		require.NoError(t, err)
		if deferred {
			require.Len(t, res.Steps, 2)
			assert.Equal(t, "done", res.Text)
		} else {
			assert.Len(t, res.Steps, 1)
		}
	}
}

// TestStepTimestampsFollowTheClock: steps without a provider timestamp get
// the time they finished, in order, within the generation's span.
func TestStepTimestampsFollowTheClock(t *testing.T) {
	model := aitest.NewModel(toolStep(tc("c1", "weather", map[string]any{"city": "Oslo"})), toolStep(tc("c2", "weather", map[string]any{"city": "Rome"})), textStep("done"))
	before := time.Now()
	res, err := ai.GenerateText(context.Background(), ai.GenerateTextOptions{
		Model: model, Tools: ai.Tools{{Name: "weather", Tool: weatherTool(nil)}}, StopWhen: ai.StepCountIs(5), Prompt: "go",
	})
	after := time.Now()
	require.NoError(t, err)
	require.Len(t, res.Steps, 3)
	prev := before
	for _, s := range res.Steps {
		ts := s.Response.Timestamp
		assert.False(t, ts.Before(prev), "step %d at %v, before %v", s.StepNumber, ts, prev)
		assert.False(t, ts.After(after), "step %d at %v, after %v", s.StepNumber, ts, after)
		prev = ts
	}
}

// TestStepSetupFollowsItsInputs: a description function is asked again for
// each step, and the model sees each step's prompt, while what stays the
// same from step to step (tools, settings) is sent the same.
func TestStepSetupFollowsItsInputs(t *testing.T) {
	asked := 0
	tool := ai.NewTool(ai.ToolDef[weatherIn, weatherOut]{
		DescriptionFunc: func(ai.DescriptionOptions) string {
			asked++
			return fmt.Sprintf("Forecast, version %d.", asked)
		},
		Execute: func(_ context.Context, in weatherIn, _ ai.ToolExecutionOptions) (weatherOut, error) {
			return weatherOut{Forecast: "rain in " + in.City}, nil
		},
	})
	for _, described := range []bool{true, false} {
		weather := ai.Tool(weatherTool(nil))
		if described {
			weather = tool
		}
		model := aitest.NewModel(toolStep(tc("c1", "weather", map[string]any{"city": "Oslo"})), toolStep(tc("c2", "weather", map[string]any{"city": "Rome"})), textStep("done"))
		temperature := 0.5
		_, err := ai.GenerateText(context.Background(), ai.GenerateTextOptions{
			Model: model, Tools: ai.Tools{{Name: "weather", Tool: weather}}, StopWhen: ai.StepCountIs(5),
			Prompt: "go", Temperature: &temperature,
		})
		require.NoError(t, err)
		calls := model.Calls()
		require.Len(t, calls, 3)
		for i, c := range calls {
			assert.Len(t, c.Prompt, 1+2*i, "step %d", i)
			require.NotNil(t, c.Temperature)
			assert.Equal(t, 0.5, *c.Temperature)
			require.Len(t, c.Tools, 1)
			d := c.Tools[0].(*provider.FunctionTool).Description
			if described {
				assert.Equal(t, fmt.Sprintf("Forecast, version %d.", i+1), d)
			} else {
				assert.Equal(t, "Get the weather forecast for a city.", d)
			}
		}
	}
}
