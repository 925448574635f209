package ai_test

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/aisdkgo/ai"
	"github.com/aisdkgo/ai/aitest"
	"github.com/aisdkgo/ai/provider"
)

// interruptFixture is a program that calls a, b (which needs approval) and
// c, with counters of the executions of each.
type interruptFixture struct {
	a, b, c atomic.Int32
	// inputs of a, to check that Math.random and Date.now replay.
	aInputs []string
}

const interruptJS = `
const x = await tools.a({r: Math.random(), t: Date.now()});
let y;
try { y = await tools.b({v: x}); } catch (e) { y = "caught " + e.code + ": " + e.message; }
const z = await tools.c({});
return {x, y, z};`

func (f *interruptFixture) tools() ai.Tools {
	type anyIn = map[string]any
	a := ai.NewTool(ai.ToolDef[anyIn, string]{Execute: func(_ context.Context, in anyIn, _ ai.ToolExecutionOptions) (string, error) {
		f.a.Add(1)
		raw, _ := json.Marshal(in)
		f.aInputs = append(f.aInputs, string(raw))
		return "A", nil
	}})
	b := ai.NewTool(ai.ToolDef[anyIn, string]{
		NeedsApproval: func(context.Context, anyIn, ai.ApprovalOptions) (bool, error) { return true, nil },
		Execute: func(_ context.Context, in anyIn, _ ai.ToolExecutionOptions) (string, error) {
			f.b.Add(1)
			return "B(" + in["v"].(string) + ")", nil
		}})
	c := ai.NewTool(ai.ToolDef[anyIn, string]{Execute: func(context.Context, anyIn, ai.ToolExecutionOptions) (string, error) {
		f.c.Add(1)
		return "C", nil
	}})
	return ai.Tools{
		{Name: "code", Tool: ai.CodeMode(&ai.CodeModeOptions{ApprovalMode: ai.CodeModeApprovalInterrupt})},
		{Name: "a", Tool: a}, {Name: "b", Tool: b}, {Name: "c", Tool: c},
	}
}

func (f *interruptFixture) counts() [3]int32 { return [3]int32{f.a.Load(), f.b.Load(), f.c.Load()} }

var interruptSecret = []byte("interrupt test secret")

func interruptOptions(tools ai.Tools, model provider.LanguageModel) ai.GenerateTextOptions {
	return ai.GenerateTextOptions{
		Model: model, Tools: tools,
		ToolCallers:         []ai.CallerRoute{{Tool: "a", Callers: []string{"code"}}, {Tool: "b", Callers: []string{"code"}}, {Tool: "c", Callers: []string{"code"}}},
		ToolApprovalSecrets: [][]byte{interruptSecret},
		StopWhen:            ai.StepCountIs(5),
	}
}

// generateOrStream runs a generation either way and returns its result.
func generateOrStream(t *testing.T, stream bool, opts ai.GenerateTextOptions) (*ai.GenerateTextResult, []string, error) {
	t.Helper()
	if !stream {
		res, err := ai.GenerateText(context.Background(), opts)
		return res, nil, err
	}
	sr, err := ai.StreamText(context.Background(), opts)
	require.NoError(t, err)
	var types []string
	for p, err := range sr.Parts() {
		if err != nil {
			break
		}
		types = append(types, p.PartType())
	}
	res, err := sr.Wait()
	return res, types, err
}

// pausedRun runs the first generation: the program pauses at b.
func pausedRun(t *testing.T, stream bool, f *interruptFixture, opts ai.GenerateTextOptions) ([]ai.Message, ai.ToolApprovalRequest) {
	t.Helper()
	opts.Model = aitest.NewModel(toolStep(codeCall("c1", interruptJS)), textStep("never"))
	opts.Prompt = "go"
	res, types, err := generateOrStream(t, stream, opts)
	require.NoError(t, err)
	require.Len(t, res.Steps, 1, "the generation stops at the approval")
	reqs := res.Steps[0].ApprovalRequests()
	require.Len(t, reqs, 1)
	req := reqs[0]
	assert.Equal(t, "c1:tool-2:interrupt", req.ApprovalID)
	assert.Equal(t, "c1:tool-2", req.ToolCall.ToolCallID)
	assert.Equal(t, "b", req.ToolCall.ToolName)
	assert.JSONEq(t, `{"v":"A"}`, string(req.ToolCall.Input))
	assert.NotEmpty(t, req.Signature)
	assert.Equal(t, [3]int32{1, 0, 0}, f.counts())
	if stream {
		assert.Equal(t, []string{"start", "start-step", "tool-call", "tool-result", "tool-call", "tool-approval-request", "finish-step", "finish"}, types)
	}
	calls := res.Steps[0].ToolCalls()
	require.Len(t, calls, 2)
	assert.Equal(t, "c1", calls[0].ToolCallID)
	assert.Equal(t, "c1:tool-2", calls[1].ToolCallID)
	// The code call's output, while its program is paused, is the
	// reference's interrupt object.
	results := res.Steps[0].ToolResults()
	require.Len(t, results, 1)
	var obj struct {
		Type            string `json:"type"`
		InterruptID     string `json:"interruptId"`
		OuterToolCallID string `json:"outerToolCallId"`
		Continuation    struct {
			Version int `json:"version"`
			Auth    struct {
				Alg   string `json:"alg"`
				Nonce string `json:"nonce"`
			} `json:"auth"`
		} `json:"continuation"`
	}
	raw, err := json.Marshal(results[0].Output)
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(raw, &obj))
	assert.Equal(t, "code-mode-interrupt", obj.Type)
	assert.Equal(t, "c1:tool-2:interrupt", obj.InterruptID)
	assert.Equal(t, "c1", obj.OuterToolCallID)
	assert.Equal(t, 2, obj.Continuation.Version)
	assert.Equal(t, "HMAC-SHA256", obj.Continuation.Auth.Alg)
	assert.Len(t, obj.Continuation.Auth.Nonce, 32)

	// The application stores the conversation (as JSON) and asks a person.
	history := append([]ai.Message{ai.UserText("go")}, res.ResponseMessages...)
	data, err := json.Marshal(history)
	require.NoError(t, err)
	assert.Contains(t, string(data), `"code-mode-interrupt"`)
	restored, err := ai.UnmarshalMessages(data)
	require.NoError(t, err)
	return restored, req
}

func answerApproval(history []ai.Message, approvalID string, approved bool, reason string) []ai.Message {
	return append(history, ai.ToolMessage{Content: []ai.ToolPart{
		ai.ToolApprovalResponsePart{ApprovalID: approvalID, Approved: approved, Reason: reason},
	}})
}

// toolResultOf returns the result the model was sent for a call.
func toolResultOf(t *testing.T, prompt []provider.Message, id string) string {
	t.Helper()
	for _, m := range prompt {
		if tm, ok := m.(provider.ToolMessage); ok {
			for _, p := range tm.Content {
				if r, ok := p.(provider.ToolResultPart); ok && r.ToolCallID == id {
					raw, err := json.Marshal(r.Output)
					require.NoError(t, err)
					return string(raw)
				}
			}
		}
		if am, ok := m.(provider.AssistantMessage); ok {
			for _, p := range am.Content {
				if c, ok := p.(provider.ToolCallPart); ok {
					assert.False(t, strings.Contains(c.ToolCallID, ":tool-"), "a program's call reached the model: %s", c.ToolCallID)
				}
			}
		}
	}
	t.Fatalf("no result for %s in the prompt", id)
	return ""
}

// A program that calls a, b (needs approval) and c pauses at b; approving
// runs b and c once, a never again, and the program's result reaches the
// model; denying rejects b's call inside the program; tampered, expired and
// foreign continuations are refused before anything runs.
func TestCodeModeApprovalInterrupt(t *testing.T) {
	for _, stream := range []bool{false, true} {
		name := "generate"
		if stream {
			name = "stream"
		}
		t.Run(name, func(t *testing.T) {
			t.Run("approved", func(t *testing.T) {
				f := &interruptFixture{}
				tools := f.tools()
				history, req := pausedRun(t, stream, f, interruptOptions(tools, nil))
				model := aitest.NewModel(textStep("done"))
				opts := interruptOptions(tools, model)
				opts.Messages = answerApproval(history, req.ApprovalID, true, "")
				res, types, err := generateOrStream(t, stream, opts)
				require.NoError(t, err)
				assert.Equal(t, "done", res.Text)
				assert.Equal(t, [3]int32{1, 1, 1}, f.counts(), "a ran once, b once, c once")
				require.Len(t, model.Calls(), 1)
				out := toolResultOf(t, model.Calls()[0].Prompt, "c1")
				assert.JSONEq(t, `{"type":"json","value":{"x":"A","y":"B(A)","z":"C"}}`, out)
				if stream {
					assert.Equal(t, []string{"start", "tool-result", "start-step", "text-start", "text-delta", "text-end", "finish-step", "finish"}, types)
				}
			})
			t.Run("denied", func(t *testing.T) {
				f := &interruptFixture{}
				tools := f.tools()
				history, req := pausedRun(t, stream, f, interruptOptions(tools, nil))
				model := aitest.NewModel(textStep("done"))
				opts := interruptOptions(tools, model)
				opts.Messages = answerApproval(history, req.ApprovalID, false, "too risky")
				_, _, err := generateOrStream(t, stream, opts)
				require.NoError(t, err)
				assert.Equal(t, [3]int32{1, 0, 1}, f.counts())
				out := toolResultOf(t, model.Calls()[0].Prompt, "c1")
				assert.JSONEq(t, `{"type":"json","value":{"x":"A","y":"caught CODE_MODE_TOOL_APPROVAL_DENIED: Tool \"b\" approval was denied: too risky","z":"C"}}`, out)
			})
			t.Run("tampered", func(t *testing.T) {
				f := &interruptFixture{}
				tools := f.tools()
				history, req := pausedRun(t, stream, f, interruptOptions(tools, nil))
				data, err := json.Marshal(answerApproval(history, req.ApprovalID, true, ""))
				require.NoError(t, err)
				// The recorded output of a becomes "X".
				forged := strings.Replace(string(data), `\"output\":\"A\"`, `\"output\":\"X\"`, 1)
				require.NotEqual(t, string(data), forged)
				msgs, err := ai.UnmarshalMessages([]byte(forged))
				require.NoError(t, err)
				opts := interruptOptions(tools, aitest.NewModel(textStep("done")))
				opts.Messages = msgs
				_, _, err = generateOrStream(t, stream, opts)
				refused(t, err, f, "invalid signature")
			})
			t.Run("foreign", func(t *testing.T) {
				f := &interruptFixture{}
				tools := f.tools()
				history, req := pausedRun(t, stream, f, interruptOptions(tools, nil))
				// Another deployment's tools sign with another key; the
				// approval itself is accepted unsigned here.
				other := f.tools()
				other[0].Tool = ai.CodeMode(&ai.CodeModeOptions{ApprovalMode: ai.CodeModeApprovalInterrupt, ContinuationSecrets: [][]byte{[]byte("other")}})
				opts := interruptOptions(other, aitest.NewModel(textStep("done")))
				opts.Messages = answerApproval(history, req.ApprovalID, true, "")
				_, _, err := generateOrStream(t, stream, opts)
				refused(t, err, f, "invalid signature")
			})
			t.Run("expired", func(t *testing.T) {
				f := &interruptFixture{}
				tools := f.tools()
				tools[0].Tool = ai.CodeMode(&ai.CodeModeOptions{ApprovalMode: ai.CodeModeApprovalInterrupt, ContinuationMaxAge: time.Millisecond})
				history, req := pausedRun(t, stream, f, interruptOptions(tools, nil))
				time.Sleep(5 * time.Millisecond)
				opts := interruptOptions(tools, aitest.NewModel(textStep("done")))
				opts.Messages = answerApproval(history, req.ApprovalID, true, "")
				_, _, err := generateOrStream(t, stream, opts)
				refused(t, err, f, "the continuation expired")
			})
		})
	}
}

// Math.random and Date.now give a resumed program what they gave it when
// it first ran, so it makes the same calls; a program that pauses twice
// resumes twice, and each call runs once.
func TestCodeModeInterruptReplaysAndPausesAgain(t *testing.T) {
	f := &interruptFixture{}
	tools := f.tools()
	js := `
const first = await tools.a({r: Math.random(), t: Date.now(), d: new Date().toISOString()});
const one = await tools.b({v: "1"});
const two = await tools.b({v: "2"});
return [first, one, two];`
	opts := interruptOptions(tools, aitest.NewModel(toolStep(codeCall("c1", js))))
	opts.Prompt = "go"
	res, err := ai.GenerateText(context.Background(), opts)
	require.NoError(t, err)
	req := res.Steps[0].ApprovalRequests()[0]
	assert.Equal(t, "c1:tool-2:interrupt", req.ApprovalID)
	history := append([]ai.Message{ai.UserText("go")}, res.ResponseMessages...)

	// First answer: the program resumes and pauses again at the second b,
	// in a step that called no model.
	opts = interruptOptions(tools, aitest.NewModel())
	opts.Messages = answerApproval(history, req.ApprovalID, true, "")
	res, err = ai.GenerateText(context.Background(), opts)
	require.NoError(t, err)
	require.Len(t, res.Steps, 1)
	assert.Equal(t, ai.FinishToolCalls, res.Steps[0].FinishReason)
	req2 := res.Steps[0].ApprovalRequests()
	require.Len(t, req2, 1)
	assert.Equal(t, "c1:tool-3:interrupt", req2[0].ApprovalID)
	assert.Equal(t, [3]int32{1, 1, 0}, f.counts())
	history = append(opts.Messages, res.ResponseMessages...)

	// Second answer: the program finishes; a ran once with the same input.
	model := aitest.NewModel(textStep("done"))
	opts = interruptOptions(tools, model)
	opts.Messages = answerApproval(history, req2[0].ApprovalID, true, "")
	res, err = ai.GenerateText(context.Background(), opts)
	require.NoError(t, err)
	assert.Equal(t, "done", res.Text)
	assert.Equal(t, [3]int32{1, 2, 0}, f.counts())
	out := toolResultOf(t, model.Calls()[0].Prompt, "c1")
	assert.JSONEq(t, `{"type":"json","value":["A","B(1)","B(2)"]}`, out)
	require.Len(t, f.aInputs, 1)
}

// An Agent pauses and resumes a program like GenerateText: the conversation
// goes back to the agent with the answer.
func TestCodeModeInterruptAgent(t *testing.T) {
	f := &interruptFixture{}
	model := aitest.NewModel(toolStep(codeCall("c1", interruptJS)), textStep("done"))
	agent := ai.NewAgent(ai.AgentOptions{Settings: interruptOptions(f.tools(), model)})
	res, err := agent.Generate(context.Background(), ai.AgentCall{Prompt: "go"})
	require.NoError(t, err)
	reqs := res.FinalStep().ApprovalRequests()
	require.Len(t, reqs, 1)
	history := append([]ai.Message{ai.UserText("go")}, res.ResponseMessages...)
	res, err = agent.Generate(context.Background(), ai.AgentCall{Messages: answerApproval(history, reqs[0].ApprovalID, true, "")})
	require.NoError(t, err)
	assert.Equal(t, "done", res.Text)
	assert.Equal(t, [3]int32{1, 1, 1}, f.counts())
}

// An answer posted twice resumes the program once: with the program's
// result in the conversation nothing runs again, and without it the
// approval ledger refuses the second use.
func TestCodeModeInterruptReplayedAnswer(t *testing.T) {
	f := &interruptFixture{}
	tools := f.tools()
	ledger := ai.NewApprovalLedger(0)
	history, req := pausedRun(t, false, f, interruptOptions(tools, nil))
	answered := answerApproval(history, req.ApprovalID, true, "")
	opts := interruptOptions(tools, aitest.NewModel(textStep("done")))
	opts.Messages, opts.ApprovalLedger = answered, ledger
	res, err := ai.GenerateText(context.Background(), opts)
	require.NoError(t, err)
	assert.Equal(t, [3]int32{1, 1, 1}, f.counts())

	// The whole conversation again, with the program's result.
	opts = interruptOptions(tools, aitest.NewModel(textStep("again")))
	opts.Messages, opts.ApprovalLedger = append(slices.Clone(answered), res.ResponseMessages...), ledger
	opts.Messages = append(opts.Messages, ai.UserText("and?"))
	_, err = ai.GenerateText(context.Background(), opts)
	require.NoError(t, err)
	assert.Equal(t, [3]int32{1, 1, 1}, f.counts())

	// The answer alone again, as a client replaying the request would.
	opts = interruptOptions(tools, aitest.NewModel(textStep("again")))
	opts.Messages, opts.ApprovalLedger = answered, ledger
	_, err = ai.GenerateText(context.Background(), opts)
	require.NoError(t, err)
	assert.Equal(t, [3]int32{1, 1, 1}, f.counts(), "the ledger refused the second use")
}

// A tool a program calls can ask a person for input: the program pauses
// with the request in the code call's output, the answer comes back as the
// call's result, and the program resumes with it; nothing ran twice.
func TestCodeModeRequestProgramInput(t *testing.T) {
	var asked, after atomic.Int32
	type anyIn = map[string]any
	ask := ai.NewTool(ai.ToolDef[anyIn, string]{Execute: func(ctx context.Context, in anyIn, _ ai.ToolExecutionOptions) (string, error) {
		asked.Add(1)
		answer, err := ai.RequestProgramInput(ctx, "confirm-amount", map[string]any{"question": in["q"]})
		if err != nil {
			return "", err
		}
		var s string
		if err := json.Unmarshal(answer, &s); err != nil {
			return "", err
		}
		return "the user said " + s, nil
	}})
	then := ai.NewTool(ai.ToolDef[anyIn, string]{Execute: func(context.Context, anyIn, ai.ToolExecutionOptions) (string, error) {
		after.Add(1)
		return "C", nil
	}})
	tools := ai.Tools{
		{Name: "code", Tool: ai.CodeMode(&ai.CodeModeOptions{ApprovalMode: ai.CodeModeApprovalInterrupt})},
		{Name: "ask", Tool: ask}, {Name: "finish", Tool: then},
	}
	opts := func(model provider.LanguageModel) ai.GenerateTextOptions {
		return ai.GenerateTextOptions{Model: model, Tools: tools, StopWhen: ai.StepCountIs(5),
			ToolCallers: []ai.CallerRoute{{Tool: "ask", Callers: []string{"code"}}, {Tool: "finish", Callers: []string{"code"}}}}
	}
	o := opts(aitest.NewModel(toolStep(codeCall("c1", `const a = await tools.ask({q: "How much?"}); const c = await tools.finish({}); return [a, c];`))))
	o.Prompt = "go"
	res, err := ai.GenerateText(context.Background(), o)
	require.NoError(t, err)
	require.Len(t, res.Steps, 1)
	assert.Empty(t, res.Steps[0].ApprovalRequests(), "an input request is not an approval")
	calls := res.Steps[0].ToolCalls()
	require.Len(t, calls, 2)
	paused := calls[1]
	assert.Equal(t, "c1:tool-1", paused.ToolCallID)
	codeCallID, ok := ai.ProgramCallOf(paused.ProviderMetadata)
	assert.True(t, ok)
	assert.Equal(t, "c1", codeCallID)
	raw, err := json.Marshal(res.Steps[0].ToolResults()[0].Output)
	require.NoError(t, err)
	assert.Contains(t, string(raw), `"payload":{"kind":"confirm-amount","question":"How much?"}`)
	assert.Equal(t, int32(1), asked.Load())
	assert.Equal(t, int32(0), after.Load())

	// The person answers with the call's result.
	history := append([]ai.Message{ai.UserText("go")}, res.ResponseMessages...)
	history = append(history, ai.ToolMessage{Content: []ai.ToolPart{
		ai.ToolResultPart{ToolCallID: paused.ToolCallID, ToolName: "ask", Output: ai.TextOutput{Value: "five"}},
	}})
	model := aitest.NewModel(textStep("done"))
	o = opts(model)
	o.Messages = history
	res, err = ai.GenerateText(context.Background(), o)
	require.NoError(t, err)
	assert.Equal(t, "done", res.Text)
	assert.Equal(t, int32(2), asked.Load(), "the asking tool runs again to take the answer")
	assert.Equal(t, int32(1), after.Load())
	out := toolResultOf(t, model.Calls()[0].Prompt, "c1")
	assert.JSONEq(t, `{"type":"json","value":["the user said five","C"]}`, out)

	// Outside a pausable program there is nobody to ask.
	_, err = ai.RequestProgramInput(context.Background(), "x", nil)
	assert.ErrorIs(t, err, ai.ErrNotInProgram)
}

// Whatever a client does to a paused conversation, resuming it never runs
// a call the program completed before it paused, runs the paused call at
// most once, and never panics.
func FuzzResumePausedProgram(f *testing.F) {
	seed := &interruptFixture{}
	opts := interruptOptions(seed.tools(), aitest.NewModel(toolStep(codeCall("c1", interruptJS))))
	opts.Prompt = "go"
	res, err := ai.GenerateText(context.Background(), opts)
	if err != nil {
		f.Fatal(err)
	}
	req := res.Steps[0].ApprovalRequests()[0]
	history := append([]ai.Message{ai.UserText("go")}, res.ResponseMessages...)
	data, err := json.Marshal(answerApproval(history, req.ApprovalID, true, ""))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(data)
	f.Add([]byte(strings.Replace(string(data), `"approved":true`, `"approved":false`, 1)))
	f.Fuzz(func(t *testing.T, data []byte) {
		msgs, err := ai.UnmarshalMessages(data)
		if err != nil || len(msgs) == 0 {
			return
		}
		fx := &interruptFixture{}
		o := interruptOptions(fx.tools(), aitest.NewModel(textStep("done"), textStep("done"), textStep("done")))
		o.Messages = msgs
		_, _ = ai.GenerateText(context.Background(), o)
		if n := fx.a.Load(); n != 0 {
			t.Fatalf("a completed before the pause and ran %d more times", n)
		}
		if n := fx.b.Load(); n > 1 {
			t.Fatalf("the paused call ran %d times", n)
		}
	})
}

// A program whose calls returned more than a continuation may hold cannot
// pause: the run fails with CODE_MODE_ERROR, and nothing of it is kept.
func TestCodeModeInterruptRecordIsBounded(t *testing.T) {
	type anyIn = map[string]any
	big := strings.Repeat("x", 3<<20)
	tools := ai.Tools{
		{Name: "code", Tool: ai.CodeMode(&ai.CodeModeOptions{ApprovalMode: ai.CodeModeApprovalInterrupt})},
		{Name: "big", Tool: ai.NewTool(ai.ToolDef[anyIn, string]{Execute: func(context.Context, anyIn, ai.ToolExecutionOptions) (string, error) {
			return big, nil
		}})},
		{Name: "guarded", Tool: ai.NewTool(ai.ToolDef[anyIn, string]{
			NeedsApproval: func(context.Context, anyIn, ai.ApprovalOptions) (bool, error) { return true, nil },
			Execute:       func(context.Context, anyIn, ai.ToolExecutionOptions) (string, error) { return "ran", nil },
		})},
	}
	js := `let n = 0; for (let i = 0; i < 3; i++) n += (await tools.big({})).length; await tools.guarded({}); return n;`
	res, err := ai.GenerateText(context.Background(), ai.GenerateTextOptions{
		Model: aitest.NewModel(toolStep(codeCall("c1", js))), Prompt: "go", Tools: tools,
		ToolCallers: []ai.CallerRoute{{Tool: "big", Callers: []string{"code"}}, {Tool: "guarded", Callers: []string{"code"}}},
	})
	require.NoError(t, err)
	errs := res.Steps[0].ToolErrors()
	require.Len(t, errs, 1)
	assert.Contains(t, errs[0].Error.Error(), "more than the 8388608 bytes a continuation may hold")
	assert.Empty(t, res.Steps[0].ApprovalRequests())
}

// refused checks that resuming failed with an invalid continuation for
// reason and that nothing ran after the first run's call of a.
func refused(t *testing.T, err error, f *interruptFixture, reason string) {
	t.Helper()
	var ice *ai.InvalidCodeModeContinuationError
	require.ErrorAs(t, err, &ice)
	assert.Equal(t, reason, ice.Reason)
	assert.Equal(t, [3]int32{1, 0, 0}, f.counts(), "nothing ran")
}
