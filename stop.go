package ai

import (
	"context"
	"slices"
)

// StopCondition decides, after a step that produced tool results, whether
// the generation stops. It sees all finished steps, the last one included.
// An error fails the generation.
type StopCondition func(ctx context.Context, steps []*StepResult) (bool, error)

// StepCountIs stops when n steps have run.
func StepCountIs(n int) StopCondition {
	return func(_ context.Context, steps []*StepResult) (bool, error) {
		return len(steps) == n, nil
	}
}

// HasToolCall stops after a step that called one of the named tools.
func HasToolCall(names ...string) StopCondition {
	return func(_ context.Context, steps []*StepResult) (bool, error) {
		if len(steps) == 0 {
			return false, nil
		}
		for _, p := range steps[len(steps)-1].Content {
			if c, ok := p.(ToolCall); ok && slices.Contains(names, c.ToolName) {
				return true, nil
			}
		}
		return false, nil
	}
}

// StopWhenAny stops as soon as one of the conditions holds. Conditions are
// evaluated in order; the first error is returned.
func StopWhenAny(conds ...StopCondition) StopCondition {
	return func(ctx context.Context, steps []*StepResult) (bool, error) {
		for _, c := range conds {
			if c == nil {
				continue
			}
			stop, err := c(ctx, steps)
			if err != nil || stop {
				return stop, err
			}
		}
		return false, nil
	}
}
