package ai_test

import (
	"context"
	"errors"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/aisdkgo/ai"
	"github.com/aisdkgo/ai/aitest"
	"github.com/aisdkgo/ai/provider"
)

// searchAgentModel answers every call: a search first, then a call of the
// found tool, then text, keyed by how many steps the conversation has.
func searchAgentModel() *aitest.Model {
	return &aitest.Model{Respond: func(_ context.Context, _ int, o *provider.CallOptions) (aitest.Response, error) {
		n := len(o.Prompt)
		if _, ok := o.Prompt[0].(provider.SystemMessage); ok {
			n--
		}
		switch n {
		case 1:
			return toolStep(tc("c1", "search", `{"query":"weather forecast"}`)), nil
		case 3:
			return toolStep(tc("c2", "getForecast", `{"city":"Oslo"}`)), nil
		}
		return textStep("done"), nil
	}}
}

func TestAgentCallsAreIndependent(t *testing.T) {
	model := searchAgentModel()
	var ends []string
	agent := ai.NewAgent(ai.AgentOptions{Settings: ai.GenerateTextOptions{
		Model:        model,
		Instructions: "Be brief.",
		Tools:        ai.Tools{{Name: "search", Tool: ai.ToolSearch()}, {Name: "getForecast", Tool: ai.WithDeferLoading(weatherTool(nil), true)}},
		OnStepEnd:    func(s *ai.StepResult) { ends = append(ends, "agent") },
	}})
	for range 2 {
		res, err := agent.Generate(context.Background(), ai.AgentCall{
			Prompt:    "weather?",
			OnStepEnd: func(*ai.StepResult) { ends = append(ends, "call") },
		})
		require.NoError(t, err)
		assert.Equal(t, "done", res.Text)
		assert.Len(t, res.Steps, 3, "an agent runs several steps by default")
	}
	calls := model.Calls()
	require.Len(t, calls, 6)
	assert.Equal(t, []string{"search"}, names(calls[3].Tools), "the second call starts undiscovered")
	assert.Equal(t, []string{"agent", "call", "agent", "call"}, ends[:4])
	assert.Equal(t, "Be brief.", calls[0].Prompt[0].(provider.SystemMessage).Content)
}

func TestAgentDefaultStepLimit(t *testing.T) {
	model := &aitest.Model{Respond: func(context.Context, int, *provider.CallOptions) (aitest.Response, error) {
		return toolStep(tc("c", "echo", `{}`)), nil
	}}
	agent := ai.NewAgent(ai.AgentOptions{Settings: ai.GenerateTextOptions{Model: model, Tools: ai.Tools{{Name: "echo", Tool: echoTool()}}}})
	res, err := agent.Generate(context.Background(), ai.AgentCall{Prompt: "loop"})
	require.NoError(t, err)
	assert.Len(t, res.Steps, ai.DefaultAgentSteps)
}

func TestAgentConcurrentUse(t *testing.T) {
	agent := ai.NewAgent(ai.AgentOptions{Settings: ai.GenerateTextOptions{
		Tools: ai.Tools{{Name: "search", Tool: ai.ToolSearch()}, {Name: "getForecast", Tool: ai.WithDeferLoading(weatherTool(nil), true)}},
	}, PrepareCall: func(_ context.Context, o *ai.GenerateTextOptions) error {
		o.Model = searchAgentModel() // one model per call
		return nil
	}})
	var wg sync.WaitGroup
	for range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			stream, err := agent.Stream(context.Background(), ai.AgentCall{Prompt: "weather?"})
			if !assert.NoError(t, err) {
				return
			}
			text, err := stream.Text()
			assert.NoError(t, err)
			assert.Equal(t, "done", text)
		}()
	}
	wg.Wait()
}

func TestAgentPrepareCallCanFail(t *testing.T) {
	agent := ai.NewAgent(ai.AgentOptions{PrepareCall: func(context.Context, *ai.GenerateTextOptions) error {
		return errors.New("not today")
	}})
	_, err := agent.Generate(context.Background(), ai.AgentCall{Prompt: "x"})
	assert.EqualError(t, err, "not today")
}
