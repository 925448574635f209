package aitemporal_test

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/converter"
	"go.temporal.io/sdk/workflow"

	"github.com/aisdkgo/ai"
	"github.com/aisdkgo/ai/aitemporal"
	"github.com/aisdkgo/ai/aitest"
	"github.com/aisdkgo/ai/provider"
	_ "github.com/aisdkgo/ai/quickjs"
)

// Prompts of the code mode scenarios.
const (
	codePrompt         = "Count to five in code."
	codeApprovalPrompt = "Transfer in code."
	twoProgramsPrompt  = "Transfer twice in two programs."
	bigPrompt          = "Fetch big outputs in code."
	parallelPrompt     = "Count in parallel in code."
	storedPrompt       = "Measure a stored output in code."
)

// fiveCalls makes five tool calls one after the other. Each input carries
// Math.random() and Date.now() as the program first saw them: a program
// run again with another seed or clock would make other calls than the
// recorded ones and fail.
const fiveCalls = `const seed = Math.random();
const start = Date.now();
let total = 0;
for (let n = 1; n <= 5; n++) {
  const r = await tools.step({ n, total, seed, start });
  total = r.total;
}
return { total };`

// transferCalls makes a call that needs approval between two others, and
// catches a denial.
const transferCalls = `const a = await tools.step({ n: 1, total: 0 });
let sent;
try {
  sent = await tools.transfer({ amount: 5 });
} catch (e) {
  sent = e.code;
}
const b = await tools.step({ n: 2, total: a.total });
return { sent, total: b.total };`

// codeModel writes the program its prompt asks for, then reports the code
// call's result.
func codeModel() *aitest.Model {
	return &aitest.Model{ModelName: "coder", Respond: func(_ context.Context, _ int, o *provider.CallOptions) (aitest.Response, error) {
		step, user := 0, ""
		var results []string
		for _, m := range o.Prompt {
			switch m := m.(type) {
			case provider.AssistantMessage:
				step++
			case provider.UserMessage:
				if tp, ok := m.Content[0].(provider.TextPart); ok && user == "" {
					user = tp.Text
				}
			case provider.ToolMessage:
				for _, p := range m.Content {
					if tr, ok := p.(provider.ToolResultPart); ok {
						b, _ := json.Marshal(tr.Output)
						results = append(results, tr.ToolName+"="+string(b))
					}
				}
			}
		}
		if step == 0 && user == twoProgramsPrompt {
			one, _ := json.Marshal(map[string]string{"js": "return await tools.transfer({ amount: 1 });"})
			two, _ := json.Marshal(map[string]string{"js": "return await tools.transfer({ amount: 2 });"})
			return toolStep(call("c1", "code", string(one)), call("c2", "code", string(two))), nil
		}
		if step == 0 {
			js := fiveCalls
			switch user {
			case codeApprovalPrompt:
				js = transferCalls
			case parallelPrompt:
				js = "const rs = await Promise.all([1, 2, 3].map((n) => tools.step({ n, total: 10 * n }))); return rs.map((r) => r.total);"
			case storedPrompt:
				js = "const r = await tools.big({}); return r.length;"
			case bigPrompt:
				js = "for (let i = 0; i < 8; i++) await tools.big({}); return 'done';"
			}
			in, _ := json.Marshal(map[string]string{"js": js})
			return toolStep(call("c1", "code", string(in))), nil
		}
		return textStep("Done: " + strings.Join(results, "; ")), nil
	}}
}

type stepIn struct {
	N     int     `json:"n"`
	Total int     `json:"total"`
	Seed  float64 `json:"seed,omitempty"`
	Start int64   `json:"start,omitempty"`
}

type stepOut struct {
	Total int `json:"total"`
}

type transferIn struct {
	Amount int `json:"amount"`
}

// codeAgent is an agent whose tools are only callable from programs: step
// (call 4 takes slow to finish) and transfer, which needs approval. Both
// log their executions as "step<n>" and "transfer".
func codeAgent(model provider.LanguageModel, log *execLog, slow time.Duration) *aitemporal.Agent {
	step := ai.NewTool(ai.ToolDef[stepIn, stepOut]{
		Description: "Add n to total.",
		Execute: func(ctx context.Context, in stepIn, _ ai.ToolExecutionOptions) (stepOut, error) {
			name := fmt.Sprintf("step%d", in.N)
			log.add(ctx, "start", name)
			if in.N == 4 {
				select {
				case <-time.After(slow):
				case <-ctx.Done():
					return stepOut{}, ctx.Err()
				}
			}
			log.add(ctx, "done", name)
			return stepOut{Total: in.Total + in.N}, nil
		},
	})
	transfer := ai.NewTool(ai.ToolDef[transferIn, string]{
		Description:   "Transfer money.",
		NeedsApproval: func(context.Context, transferIn, ai.ApprovalOptions) (bool, error) { return true, nil },
		Execute: func(ctx context.Context, in transferIn, _ ai.ToolExecutionOptions) (string, error) {
			log.add(ctx, "done", "transfer")
			return fmt.Sprintf("sent %d", in.Amount), nil
		},
	})
	return &aitemporal.Agent{
		Options: ai.GenerateTextOptions{
			Model: model,
			Tools: ai.Tools{
				{Name: "code", Tool: ai.CodeMode(nil)},
				{Name: "step", Tool: step},
				{Name: "transfer", Tool: transfer},
			},
			ToolCallers: []ai.CallerRoute{{Tool: "step", Callers: []string{"code"}}, {Tool: "transfer", Callers: []string{"code"}}},
			StopWhen:    ai.StepCountIs(5),
		},
		ToolActivity: workflow.ActivityOptions{
			StartToCloseTimeout: time.Minute,
			HeartbeatTimeout:    2 * time.Second,
		},
	}
}

// A durable program's five calls each run once, in order, each as its own
// tool activity; the program's result reaches the model.
func TestCodeModeRun(t *testing.T) {
	log := &execLog{path: filepath.Join(t.TempDir(), "executions.log")}
	env := newEnv(t, scenarioConfig(log, 0))
	started := map[string]int{}
	env.SetOnActivityStartedListener(func(info *activity.Info, _ context.Context, _ converter.EncodedValues) {
		started[info.ActivityType.Name]++
	})
	env.ExecuteWorkflow(aitemporal.WorkflowName, aitemporal.Input{Agent: "coder", Prompt: codePrompt})
	res := result(t, env)
	assert.Equal(t, `Done: code={"type":"json","value":{"total":15}}`, res.Text)
	for n := 1; n <= 5; n++ {
		assert.Equal(t, 1, log.count(testWorkflowID, "start", fmt.Sprintf("step%d", n)), "call %d", n)
	}
	// The program ran six times: before each call and to finish.
	assert.Equal(t, 6, started[aitemporal.ProgramActivity])
	assert.Equal(t, 5, started[aitemporal.ToolActivity])
}

// Calls a program dispatches together run together, each once.
func TestCodeModeParallelCalls(t *testing.T) {
	log := &execLog{path: filepath.Join(t.TempDir(), "executions.log")}
	env := newEnv(t, scenarioConfig(log, 0))
	env.ExecuteWorkflow(aitemporal.WorkflowName, aitemporal.Input{Agent: "coder", Prompt: parallelPrompt})
	res := result(t, env)
	assert.Equal(t, `Done: code={"type":"json","value":[11,22,33]}`, res.Text)
	for n := 1; n <= 3; n++ {
		assert.Equal(t, 1, log.count(testWorkflowID, "start", fmt.Sprintf("step%d", n)), "call %d", n)
	}
}

// testWorkflowID is the id of the test environment's runs.
const testWorkflowID = "default-test-workflow-id"

// A program's call that needs approval waits for the approval signal, for
// days if need be; the program then goes on without running its earlier
// calls again. A denial rejects the call inside the program.
func TestCodeModeApproval(t *testing.T) {
	for _, approved := range []bool{true, false} {
		t.Run(approvalWord(approved), func(t *testing.T) {
			log := &execLog{path: filepath.Join(t.TempDir(), "executions.log")}
			env := newEnv(t, scenarioConfig(log, 0))
			var waiting aitemporal.Progress
			env.RegisterDelayedCallback(func() {
				v, err := env.QueryWorkflow(aitemporal.ProgressQuery)
				require.NoError(t, err)
				require.NoError(t, v.Get(&waiting))
				require.Len(t, waiting.PendingApprovals, 1)
				assert.Equal(t, 0, log.count(testWorkflowID, "done", "transfer"), "nothing runs before the answer")
				env.SignalWorkflow(aitemporal.ApprovalSignal, aitemporal.Approval{ApprovalID: "unknown", Approved: true})
				env.SignalWorkflow(aitemporal.ApprovalSignal, aitemporal.Approval{ApprovalID: waiting.PendingApprovals[0].ApprovalID, Approved: approved})
			}, 72*time.Hour)
			env.ExecuteWorkflow(aitemporal.WorkflowName, aitemporal.Input{Agent: "coder", Prompt: codeApprovalPrompt})
			res := result(t, env)

			p := waiting.PendingApprovals[0]
			assert.Equal(t, "transfer", p.ToolName)
			assert.Equal(t, "c1:tool-2", p.ToolCallID)
			assert.JSONEq(t, `{"amount":5}`, string(p.Input))
			if approved {
				assert.Equal(t, `Done: code={"type":"json","value":{"sent":"sent 5","total":3}}`, res.Text)
				assert.Equal(t, 1, log.count(testWorkflowID, "done", "transfer"))
			} else {
				assert.Equal(t, `Done: code={"type":"json","value":{"sent":"CODE_MODE_TOOL_APPROVAL_DENIED","total":3}}`, res.Text)
				assert.Equal(t, 0, log.count(testWorkflowID, "done", "transfer"))
			}
			assert.Equal(t, 1, log.count(testWorkflowID, "start", "step1"), "the call before the pause ran once")
			assert.Equal(t, 1, log.count(testWorkflowID, "start", "step2"))

			v, err := env.QueryWorkflow(aitemporal.ProgressQuery)
			require.NoError(t, err)
			var after aitemporal.Progress
			require.NoError(t, v.Get(&after))
			assert.Empty(t, after.PendingApprovals)
			require.Len(t, after.IgnoredApprovals, 1)
			assert.Equal(t, "unknown", after.IgnoredApprovals[0].ApprovalID)
		})
	}
}

func approvalWord(approved bool) string {
	if approved {
		return "approved"
	}
	return "denied"
}

// Two programs that run at once wait for approval together; each takes
// the signal that answers its call, whatever the order of the signals.
func TestCodeModeApprovalsOfTwoPrograms(t *testing.T) {
	log := &execLog{path: filepath.Join(t.TempDir(), "executions.log")}
	env := newEnv(t, scenarioConfig(log, 0))
	var waiting aitemporal.Progress
	env.RegisterDelayedCallback(func() {
		v, err := env.QueryWorkflow(aitemporal.ProgressQuery)
		require.NoError(t, err)
		require.NoError(t, v.Get(&waiting))
		require.Len(t, waiting.PendingApprovals, 2)
		for _, i := range []int{1, 0} {
			env.SignalWorkflow(aitemporal.ApprovalSignal, aitemporal.Approval{ApprovalID: waiting.PendingApprovals[i].ApprovalID, Approved: true})
		}
	}, time.Hour)
	env.ExecuteWorkflow(aitemporal.WorkflowName, aitemporal.Input{Agent: "coder", Prompt: twoProgramsPrompt})
	res := result(t, env)

	var ids []string
	for _, p := range waiting.PendingApprovals {
		ids = append(ids, p.ApprovalID)
	}
	assert.ElementsMatch(t, []string{"c1:tool-1:approval", "c2:tool-1:approval"}, ids)
	assert.Contains(t, res.Text, "sent 1")
	assert.Contains(t, res.Text, "sent 2")
	assert.Equal(t, 2, log.count(testWorkflowID, "done", "transfer"))
}

// A program whose recorded calls outgrow the bound fails with
// CODE_MODE_ERROR, which the model sees.
func TestCodeModeLedgerIsBounded(t *testing.T) {
	var runs counter
	big := ai.NewTool(ai.ToolDef[struct{}, string]{
		Execute: func(context.Context, struct{}, ai.ToolExecutionOptions) (string, error) {
			runs.add("big")
			return strings.Repeat("x", 200<<10), nil
		},
	})
	model := codeModel()
	cfg := config(model, ai.Tools{{Name: "code", Tool: ai.CodeMode(nil)}, {Name: "big", Tool: big}}, func(a *aitemporal.Agent) {
		a.Options.ToolCallers = []ai.CallerRoute{{Tool: "big", Callers: []string{"code"}}}
	})
	env := newEnv(t, cfg)
	env.ExecuteWorkflow(aitemporal.WorkflowName, aitemporal.Input{Agent: "travel", Prompt: bigPrompt})
	res := result(t, env)
	assert.Contains(t, res.Text, fmt.Sprintf("more than the %d bytes", aitemporal.MaxProgramLedgerBytes))
	assert.Equal(t, 6, runs.get("big"), "the call that outgrew the bound was the last")
}

// With signed approvals, a program's call is signed like a direct one: an
// approval without the signature is ignored, one with it is taken.
func TestCodeModeSignedApproval(t *testing.T) {
	secrets := [][]byte{[]byte("secret")}
	log := &execLog{path: filepath.Join(t.TempDir(), "executions.log")}
	cfg := scenarioConfig(log, 0)
	cfg.Agents["coder"].Options.ToolApprovalSecrets = secrets
	env := newEnv(t, cfg)
	var waiting aitemporal.Progress
	env.RegisterDelayedCallback(func() {
		v, err := env.QueryWorkflow(aitemporal.ProgressQuery)
		require.NoError(t, err)
		require.NoError(t, v.Get(&waiting))
		require.Len(t, waiting.PendingApprovals, 1)
		p := waiting.PendingApprovals[0]
		env.SignalWorkflow(aitemporal.ApprovalSignal, aitemporal.Approval{ApprovalID: p.ApprovalID, Approved: true})
		env.SignalWorkflow(aitemporal.ApprovalSignal, aitemporal.Approval{ApprovalID: p.ApprovalID, Approved: true, Signature: p.Signature})
	}, time.Hour)
	env.ExecuteWorkflow(aitemporal.WorkflowName, aitemporal.Input{Agent: "coder", Prompt: codeApprovalPrompt})
	res := result(t, env)

	p := waiting.PendingApprovals[0]
	assert.True(t, ai.VerifyToolApprovalSignature(secrets, p.Signature, p.ApprovalID, p.ToolCallID, p.ToolName, p.Input))
	assert.Equal(t, `Done: code={"type":"json","value":{"sent":"sent 5","total":3}}`, res.Text)
	v, err := env.QueryWorkflow(aitemporal.ProgressQuery)
	require.NoError(t, err)
	var after aitemporal.Progress
	require.NoError(t, v.Get(&after))
	require.Len(t, after.IgnoredApprovals, 1)
	assert.Equal(t, "missing signature", after.IgnoredApprovals[0].Reason)
}

// A nested call's output over the bound goes to the store: the ledger
// holds its key, and the program reads the whole output.
func TestCodeModeStoredOutput(t *testing.T) {
	big := ai.NewTool(ai.ToolDef[struct{}, string]{
		Execute: func(context.Context, struct{}, ai.ToolExecutionOptions) (string, error) {
			return strings.Repeat("x", 200), nil
		},
	})
	cfg := config(codeModel(), ai.Tools{{Name: "code", Tool: ai.CodeMode(nil)}, {Name: "big", Tool: big}}, func(a *aitemporal.Agent) {
		a.Options.ToolCallers = []ai.CallerRoute{{Tool: "big", Callers: []string{"code"}}}
	})
	store := &memStore{data: map[string]json.RawMessage{}}
	cfg.Store, cfg.MaxOutputBytes = store, 100
	env := newEnv(t, cfg)
	env.ExecuteWorkflow(aitemporal.WorkflowName, aitemporal.Input{Agent: "travel", Prompt: storedPrompt})
	res := result(t, env)
	assert.Equal(t, `Done: code={"type":"json","value":200}`, res.Text)
	assert.Len(t, store.data, 1)
}
