package aitemporal_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"sync"
	"time"

	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/workflow"

	"github.com/aisdkgo/ai"
	"github.com/aisdkgo/ai/aitemporal"
	"github.com/aisdkgo/ai/aitest"
	"github.com/aisdkgo/ai/provider"
)

// The scenarios below run in worker processes that may die at any point,
// so the scripted model answers by the conversation it is sent (the number
// of assistant messages so far), not by a count of its own calls, and the
// tools log their executions to a file every process appends to.

// Prompts of the scenarios.
const (
	tripPrompt = "Plan a trip to Oslo."
	mailPrompt = "Mail bob."
)

// scenarioModel answers the trip and mail scenarios.
func scenarioModel() *aitest.Model {
	return &aitest.Model{ModelName: "scenario", Respond: func(_ context.Context, _ int, o *provider.CallOptions) (aitest.Response, error) {
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
					if tr, ok := p.(provider.ToolResultPart); ok && tr.ToolName != "search" {
						b, _ := json.Marshal(tr.Output)
						results = append(results, tr.ToolName+"="+string(b))
					}
				}
			}
		}
		switch {
		case step == 0 && user == tripPrompt:
			return toolStep(call("c1", "search", `{"query":"weather hotel"}`)), nil
		case step == 1 && user == tripPrompt:
			return toolStep(call("c2", "getWeather", `{"city":"Oslo"}`), call("c3", "bookHotel", `{"city":"Oslo"}`)), nil
		case step == 0 && user == mailPrompt:
			return toolStep(call("c1", "search", `{"query":"email"}`)), nil
		case step == 1 && user == mailPrompt:
			return toolStep(call("c2", "sendEmail", `{"to":"bob"}`)), nil
		}
		return textStep("Done: " + strings.Join(results, "; ")), nil
	}}
}

// execLog records tool executions in a file shared by processes: one line
// "<workflow id> <event> <tool> <attempt>" per event.
type execLog struct {
	path string
	mu   sync.Mutex
}

func (l *execLog) add(ctx context.Context, event, tool string) {
	if l == nil || l.path == "" {
		return
	}
	info := activity.GetInfo(ctx)
	l.mu.Lock()
	defer l.mu.Unlock()
	f, err := os.OpenFile(l.path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		panic(err)
	}
	defer f.Close()
	key, _ := aitemporal.IdempotencyKey(ctx)
	fmt.Fprintf(f, "%s %s %s %d %s\n", info.WorkflowExecution.ID, event, tool, info.Attempt, key)
}

// keys returns the idempotency keys of the matching lines, in order.
func (l *execLog) keys(workflowID, event, tool string) []string {
	data, _ := os.ReadFile(l.path)
	var out []string
	for _, line := range strings.Split(string(data), "\n") {
		f := strings.Fields(line)
		if len(f) == 5 && f[0] == workflowID && f[1] == event && f[2] == tool {
			out = append(out, f[4])
		}
	}
	return out
}

// count returns how many lines of the log match.
func (l *execLog) count(workflowID, event, tool string) int {
	data, _ := os.ReadFile(l.path)
	n := 0
	for _, line := range strings.Split(string(data), "\n") {
		f := strings.Fields(line)
		if len(f) == 5 && f[0] == workflowID && f[1] == event && f[2] == tool {
			n++
		}
	}
	return n
}

type hotelIn struct {
	City string `json:"city"`
}

type booking struct {
	Hotel string `json:"hotel"`
	Night string `json:"night"`
}

// scenarioConfig is the configuration every worker of the scenarios runs.
// bookHotel takes slow to finish (respecting cancellation).
func scenarioConfig(log *execLog, slow time.Duration) *aitemporal.Config {
	model := scenarioModel()
	weather := ai.NewTool(ai.ToolDef[cityIn, forecast]{
		Description:  "Get the weather forecast for a city.",
		DeferLoading: true,
		Execute: func(ctx context.Context, in cityIn, _ ai.ToolExecutionOptions) (forecast, error) {
			log.add(ctx, "start", "getWeather")
			defer log.add(ctx, "done", "getWeather")
			return forecast{City: in.City, Temp: 21}, nil
		},
	})
	hotel := ai.NewTool(ai.ToolDef[hotelIn, booking]{
		Description:  "Book a hotel in a city.",
		DeferLoading: true,
		Execute: func(ctx context.Context, in hotelIn, _ ai.ToolExecutionOptions) (booking, error) {
			log.add(ctx, "start", "bookHotel")
			select {
			case <-time.After(slow):
			case <-ctx.Done():
				return booking{}, ctx.Err()
			}
			log.add(ctx, "done", "bookHotel")
			return booking{Hotel: "Grand " + in.City, Night: "2027-01-01"}, nil
		},
	})
	mail := ai.NewTool(ai.ToolDef[mailIn, string]{
		Description:  "Send an email.",
		DeferLoading: true,
		NeedsApproval: func(context.Context, mailIn, ai.ApprovalOptions) (bool, error) {
			return true, nil
		},
		Execute: func(ctx context.Context, in mailIn, _ ai.ToolExecutionOptions) (string, error) {
			log.add(ctx, "done", "sendEmail")
			return "sent to " + in.To, nil
		},
	})
	coder := codeModel()
	return &aitemporal.Config{
		Models: map[string]provider.LanguageModel{"scenario": model, "coder": coder},
		Agents: map[string]*aitemporal.Agent{"coder": codeAgent(coder, log, slow), "travel": {
			Options: ai.GenerateTextOptions{
				Model:        model,
				Instructions: "You plan trips.",
				Tools: ai.Tools{
					{Name: "search", Tool: ai.ToolSearch()},
					{Name: "getWeather", Tool: weather},
					{Name: "bookHotel", Tool: hotel},
					{Name: "sendEmail", Tool: mail},
				},
				StopWhen: ai.StepCountIs(10),
			},
			ToolActivity: workflow.ActivityOptions{
				StartToCloseTimeout: time.Minute,
				HeartbeatTimeout:    2 * time.Second,
			},
		}},
	}
}
