package aitemporal

import (
	"context"

	"go.temporal.io/sdk/client"
)

// Start starts a run of an agent on the workers of opts.TaskQueue. Wait for
// its [Result] with the returned run's Get.
func Start(ctx context.Context, c client.Client, opts client.StartWorkflowOptions, in Input) (client.WorkflowRun, error) {
	return c.ExecuteWorkflow(ctx, opts, WorkflowName, in)
}

// Approve answers an approval request of a run (an empty runID means the
// latest run of the workflow).
func Approve(ctx context.Context, c client.Client, workflowID, runID string, a Approval) error {
	return c.SignalWorkflow(ctx, workflowID, runID, ApprovalSignal, a)
}

// QueryProgress returns a run's progress: its finished steps, the tools it
// discovered and the approvals it waits for.
func QueryProgress(ctx context.Context, c client.Client, workflowID, runID string) (*Progress, error) {
	v, err := c.QueryWorkflow(ctx, workflowID, runID, ProgressQuery)
	if err != nil {
		return nil, err
	}
	var p Progress
	if err := v.Get(&p); err != nil {
		return nil, err
	}
	return &p, nil
}
