package ai_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/aisdkgo/ai"
	"github.com/aisdkgo/ai/aitest"
	"github.com/aisdkgo/ai/provider"
)

// resumeJS awaits 50 inventory calls one after the other, then sends their
// sum; in BenchmarkCodeModeResume50 the send needs approval.
const resumeJS = `let s = 0;
for (let k = 0; k < 50; k++) { const r = await tools.getInventory({ productId: "p" + k }); s += r.availableUnits; }
return await tools.send({ total: s });`

// resumeTools returns the code tool (pausing for approval when interrupt is
// set), getInventory and send, which needs approval when interrupt is set.
func resumeTools(interrupt bool) (ai.Tools, []ai.CallerRoute) {
	inventory := ai.NewTool(ai.ToolDef[inventoryIn, inventoryOut]{
		Execute: func(_ context.Context, in inventoryIn, _ ai.ToolExecutionOptions) (inventoryOut, error) {
			return inventoryOut{ProductID: in.ProductID, AvailableUnits: 42}, nil
		},
	})
	type sendIn struct {
		Total int `json:"total"`
	}
	send := ai.NewTool(ai.ToolDef[sendIn, string]{
		NeedsApproval: func(context.Context, sendIn, ai.ApprovalOptions) (bool, error) { return interrupt, nil },
		Execute: func(context.Context, sendIn, ai.ToolExecutionOptions) (string, error) {
			return "sent", nil
		},
	})
	opts := &ai.CodeModeOptions{}
	if interrupt {
		opts.ApprovalMode = ai.CodeModeApprovalInterrupt
	}
	tools := ai.Tools{
		{Name: "code", Tool: ai.CodeMode(opts)},
		{Name: "getInventory", Tool: inventory},
		{Name: "send", Tool: send},
	}
	routes := []ai.CallerRoute{{Tool: "getInventory", Callers: []string{"code"}}, {Tool: "send", Callers: []string{"code"}}}
	return tools, routes
}

// codeOutput returns the output of the code call c1 that the last call of
// model was sent.
func codeOutput(b *testing.B, model *aitest.Model) string {
	b.Helper()
	calls := model.Calls()
	if len(calls) == 0 {
		b.Fatal("the model was not called")
	}
	for _, m := range calls[len(calls)-1].Prompt {
		if tm, ok := m.(provider.ToolMessage); ok {
			for _, p := range tm.Content {
				if r, ok := p.(provider.ToolResultPart); ok && r.ToolCallID == "c1" {
					raw, err := json.Marshal(r.Output)
					if err != nil {
						b.Fatal(err)
					}
					return string(raw)
				}
			}
		}
	}
	b.Fatal("no result of the code call in the prompt")
	return ""
}

// BenchmarkCodeMode50Calls runs resumeJS in a generation (the model calls
// the code tool, then answers), its 51 calls run by their tools: the
// baseline of BenchmarkCodeModeResume50.
func BenchmarkCodeMode50Calls(b *testing.B) {
	tools, routes := resumeTools(false)
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		model := aitest.NewModel(toolStep(codeCall("c1", resumeJS)), textStep("done"))
		_, err := ai.GenerateText(ctx, ai.GenerateTextOptions{
			Model: model,
			Tools: tools, ToolCallers: routes, Prompt: "go", StopWhen: ai.StepCountIs(3),
		})
		if err != nil {
			b.Fatal(err)
		}
		if out := codeOutput(b, model); out != `{"type":"json","value":"sent"}` {
			b.Fatalf("output %s", out)
		}
	}
}

// BenchmarkCodeModeResume50 resumes resumeJS after it paused for approval
// of its send: the 50 inventory calls it completed are answered from the
// continuation, the send runs, and the model answers.
func BenchmarkCodeModeResume50(b *testing.B) {
	tools, routes := resumeTools(true)
	ctx := context.Background()
	secret := [][]byte{[]byte("bench secret")}
	res, err := ai.GenerateText(ctx, ai.GenerateTextOptions{
		Model: aitest.NewModel(toolStep(codeCall("c1", resumeJS)), textStep("never")),
		Tools: tools, ToolCallers: routes, Prompt: "go", StopWhen: ai.StepCountIs(3), ToolApprovalSecrets: secret,
	})
	if err != nil {
		b.Fatal(err)
	}
	reqs := res.Steps[len(res.Steps)-1].ApprovalRequests()
	if len(reqs) != 1 || reqs[0].ToolCall.ToolName != "send" {
		b.Fatalf("the program did not pause at send: %+v", reqs)
	}
	history := append([]ai.Message{ai.UserText("go")}, res.ResponseMessages...)
	history = answerApproval(history, reqs[0].ApprovalID, true, "")
	b.ReportAllocs()
	for b.Loop() {
		model := aitest.NewModel(textStep("done"))
		_, err := ai.GenerateText(ctx, ai.GenerateTextOptions{
			Model: model,
			Tools: tools, ToolCallers: routes, Messages: history, StopWhen: ai.StepCountIs(3), ToolApprovalSecrets: secret,
		})
		if err != nil {
			b.Fatal(err)
		}
		if out := codeOutput(b, model); out != `{"type":"json","value":"sent"}` {
			b.Fatalf("output %s", out)
		}
	}
}

// codeModeFirstRunEnv makes TestCodeModeFirstRunChild time the first
// RunCodeMode of its process.
const codeModeFirstRunEnv = "AI_CODE_MODE_FIRST_RUN_CHILD"

// BenchmarkCodeModeFirstRun measures the first RunCodeMode of a fresh
// process, the start of its worker process included: each iteration starts
// this test binary again, which times its first run and prints it. The
// figure is the median of those runs (first-run-ms); ns/op includes starting
// the test binary and is not the figure.
func BenchmarkCodeModeFirstRun(b *testing.B) {
	var times []time.Duration
	for b.Loop() {
		cmd := exec.Command(os.Args[0], "-test.run=^TestCodeModeFirstRunChild$", "-test.count=1")
		cmd.Env = append(os.Environ(), codeModeFirstRunEnv+"=1")
		out, err := cmd.CombinedOutput()
		if err != nil {
			b.Fatalf("%v: %s", err, out)
		}
		_, rest, ok := strings.Cut(string(out), "first-run-ns=")
		if !ok {
			b.Fatalf("no figure in %s", out)
		}
		ns, err := strconv.ParseInt(strings.Fields(rest)[0], 10, 64)
		if err != nil {
			b.Fatal(err)
		}
		times = append(times, time.Duration(ns))
	}
	slices.Sort(times)
	b.ReportMetric(float64(times[len(times)/2].Microseconds())/1000, "first-run-ms")
}

// TestCodeModeFirstRunChild is the process BenchmarkCodeModeFirstRun
// starts; otherwise it does nothing.
func TestCodeModeFirstRunChild(t *testing.T) {
	if os.Getenv(codeModeFirstRunEnv) != "1" {
		t.Skip("run by BenchmarkCodeModeFirstRun")
	}
	start := time.Now()
	res, err := ai.RunCodeMode(context.Background(), ai.RunCodeModeOptions{JS: "const x: number = 1; return x + 1;"})
	d := time.Since(start)
	if err != nil || string(res.Value) != "2" {
		t.Fatalf("got %v, %v", res, err)
	}
	fmt.Printf("first-run-ns=%d\n", d.Nanoseconds())
}
