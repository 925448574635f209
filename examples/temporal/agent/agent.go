// Package agent is the durable agent of the Temporal example: the models
// and the agent that every worker registers, and the names the starter
// uses.
package agent

import (
	"context"
	"fmt"
	"strings"
	"time"

	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/workflow"

	"github.com/aisdkgo/ai"
	"github.com/aisdkgo/ai/aitemporal"
	"github.com/aisdkgo/ai/aitest"
	"github.com/aisdkgo/ai/provider"
)

// TaskQueue is the default task queue of the example.
const TaskQueue = "ai-agents"

// Name is the agent's name.
const Name = "assistant"

type cityIn struct {
	City string `json:"city"`
}

type forecast struct {
	City    string `json:"city"`
	Summary string `json:"summary"`
}

type emailIn struct {
	To      string `json:"to"`
	Subject string `json:"subject"`
}

// Config returns what a worker registers: the model under the name
// "main" and the agent, whose tools are hidden until a search finds them.
// getWeather is slow (it takes slow to answer, heartbeating meanwhile), so
// that you can kill a worker while it runs and watch another one take over.
func Config(model provider.LanguageModel, slow time.Duration) *aitemporal.Config {
	weather := ai.NewTool(ai.ToolDef[cityIn, forecast]{
		Description:  "Get the weather forecast for a city.",
		DeferLoading: true,
		Execute: func(ctx context.Context, in cityIn, _ ai.ToolExecutionOptions) (forecast, error) {
			info := activity.GetInfo(ctx)
			activity.GetLogger(ctx).Info("getWeather started", "city", in.City, "attempt", info.Attempt)
			select {
			case <-time.After(slow):
			case <-ctx.Done():
				return forecast{}, ctx.Err()
			}
			return forecast{City: in.City, Summary: "sunny, 21 °C"}, nil
		},
	})
	email := ai.NewTool(ai.ToolDef[emailIn, string]{
		Description:  "Send an email.",
		DeferLoading: true,
		NeedsApproval: func(context.Context, emailIn, ai.ApprovalOptions) (bool, error) {
			return true, nil
		},
		Execute: func(_ context.Context, in emailIn, _ ai.ToolExecutionOptions) (string, error) {
			return fmt.Sprintf("sent %q to %s", in.Subject, in.To), nil
		},
	})
	return &aitemporal.Config{
		Models: map[string]provider.LanguageModel{"main": model},
		Agents: map[string]*aitemporal.Agent{Name: {
			Options: ai.GenerateTextOptions{
				Model:        model,
				Instructions: "You are a helpful assistant. Find the tools you need with the search tool.",
				Tools: ai.Tools{
					{Name: "search", Tool: ai.ToolSearch()},
					{Name: "getWeather", Tool: weather},
					{Name: "sendEmail", Tool: email},
				},
				StopWhen: ai.StepCountIs(10),
			},
			ToolActivity: workflow.ActivityOptions{StartToCloseTimeout: 5 * time.Minute, HeartbeatTimeout: 5 * time.Second},
		}},
	}
}

// ScriptedModel stands in for a language model without a key or a
// network: it answers by the conversation it is sent, so that any worker
// gives the same answer to the same step.
func ScriptedModel() provider.LanguageModel {
	return &aitest.Model{ModelName: "scripted", Respond: func(_ context.Context, _ int, o *provider.CallOptions) (aitest.Response, error) {
		step := 0
		var results []string
		for _, m := range o.Prompt {
			switch m := m.(type) {
			case provider.AssistantMessage:
				step++
			case provider.ToolMessage:
				for _, p := range m.Content {
					if tr, ok := p.(provider.ToolResultPart); ok && tr.ToolName != "search" {
						switch out := tr.Output.(type) {
						case provider.TextOutput:
							results = append(results, out.Value)
						case provider.JSONOutput:
							results = append(results, string(out.Value))
						case provider.ExecutionDeniedOutput:
							results = append(results, "the email was not sent")
						}
					}
				}
			}
		}
		calls := func(c ...provider.Content) aitest.Response {
			return aitest.Response{Content: c, FinishReason: aitest.ToolCalls}
		}
		switch step {
		case 0:
			return calls(aitest.ToolCall("c1", "search", `{"query":"weather email"}`)), nil
		case 1:
			return calls(aitest.ToolCall("c2", "getWeather", `{"city":"Lisbon"}`)), nil
		case 2:
			return calls(aitest.ToolCall("c3", "sendEmail", `{"to":"ana@example.com","subject":"Lisbon weather"}`)), nil
		}
		return aitest.Response{Content: []provider.Content{aitest.Text("Done: " + strings.Join(results, "; "))}}, nil
	}}
}
