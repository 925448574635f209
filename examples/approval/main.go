// Command approval shows a human in the loop: a tool that transfers money
// needs approval, so the generation stops with an approval request. The
// application stores the conversation, asks a person, and resumes: once with
// an approval (the transfer runs before the model is called again) and once
// with a denial (the transfer never runs and the model is told why).
//
//	go run ./examples/approval
package main

import (
	"context"
	"encoding/json"
	"fmt"
	"log"

	"github.com/aisdkgo/ai"
	"github.com/aisdkgo/ai/aitest"
	"github.com/aisdkgo/ai/provider"
)

type transferIn struct {
	To     string `json:"to"`
	Amount int    `json:"amount" jsonschema:"amount in euros"`
}

func main() {
	transfers := 0
	transfer := ai.NewTool(ai.ToolDef[transferIn, string]{
		Description: "Transfer money to a recipient.",
		Execute: func(_ context.Context, in transferIn, _ ai.ToolExecutionOptions) (string, error) {
			transfers++
			return fmt.Sprintf("transferred %d EUR to %s", in.Amount, in.To), nil
		},
	})
	balance := ai.NewTool(ai.ToolDef[struct{}, int]{
		Description: "Get the account balance in euros.",
		Execute:     func(context.Context, struct{}, ai.ToolExecutionOptions) (int, error) { return 1200, nil },
	})
	tools := ai.Tools{{Name: "transfer", Tool: transfer}, {Name: "balance", Tool: balance}}
	// Transfers above 100 EUR wait for a person; smaller ones are approved
	// by policy, and reading the balance needs no approval at all.
	approval := &ai.ToolApproval{Tools: map[string]ai.ApprovalRule{
		"transfer": {Func: func(_ context.Context, input json.RawMessage, _ ai.ApprovalRequest) (ai.ApprovalStatus, error) {
			var in transferIn
			if err := json.Unmarshal(input, &in); err != nil {
				return ai.Denied.WithReason("unreadable transfer"), nil
			}
			if in.Amount > 100 {
				return ai.RequiresApproval.WithReason("transfers above 100 EUR need a second pair of eyes"), nil
			}
			return ai.Approved, nil
		}},
	}}

	ctx := context.Background()
	prompt := "Pay Alice 500 EUR for the design work."
	first, err := ai.GenerateText(ctx, ai.GenerateTextOptions{
		Model: aitest.NewModel(aitest.Response{
			Content: []provider.Content{
				aitest.ToolCall("call-1", "balance", `{}`),
				aitest.ToolCall("call-2", "transfer", `{"to":"alice@example.com","amount":500}`),
			},
			FinishReason: aitest.ToolCalls,
		}),
		Tools: tools, ToolApproval: approval, StopWhen: ai.StepCountIs(5), Prompt: prompt,
	})
	if err != nil {
		log.Fatal(err)
	}
	step := first.FinalStep()
	fmt.Printf("the model called %d tools; results: %d; the generation stopped (%s)\n",
		len(step.ToolCalls()), len(step.ToolResults()), first.FinishReason)
	req := step.ApprovalRequests()[0]
	fmt.Printf("approval needed: %s %s (%s), id %s\n\n", req.ToolCall.ToolName, req.ToolCall.Input, req.Reason, req.ApprovalID)

	// The conversation is stored as JSON, as an application would.
	history, err := json.Marshal(append([]ai.Message{ai.UserText(prompt)}, first.ResponseMessages...))
	if err != nil {
		log.Fatal(err)
	}

	for _, decision := range []ai.ToolApprovalResponsePart{
		{ApprovalID: req.ApprovalID, Approved: true, Reason: "invoice checked"},
		{ApprovalID: req.ApprovalID, Approved: false, Reason: "the invoice is not due yet"},
	} {
		msgs, err := ai.UnmarshalMessages(history)
		if err != nil {
			log.Fatal(err)
		}
		msgs = append(msgs, ai.ToolMessage{Content: []ai.ToolPart{decision}})
		before := transfers
		model := aitest.NewModel(aitest.Response{Content: []provider.Content{aitest.Text(answer(decision.Approved))}})
		res, err := ai.GenerateText(ctx, ai.GenerateTextOptions{
			Model: model, Tools: tools, ToolApproval: approval, StopWhen: ai.StepCountIs(5), Messages: msgs,
		})
		if err != nil {
			log.Fatal(err)
		}
		verb := "approved"
		if !decision.Approved {
			verb = "denied"
		}
		fmt.Printf("resumed, %s (%q): transfers executed: %d\n", verb, decision.Reason, transfers-before)
		result := res.ResponseMessages[0].(ai.ToolMessage).Content[0].(ai.ToolResultPart)
		out, _ := json.Marshal(result.Output)
		fmt.Printf("  the model was told: %s\n", out)
		fmt.Printf("  answer: %s\n\n", res.Text)
	}
}

func answer(approved bool) string {
	if approved {
		return "Done: 500 EUR are on their way to Alice."
	}
	return "I did not pay Alice: the transfer was declined because the invoice is not due yet."
}
