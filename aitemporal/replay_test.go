package aitemporal_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/worker"

	"github.com/aisdkgo/ai"
	"github.com/aisdkgo/ai/aitemporal"
)

// The histories in testdata were recorded by TestTemporalWorkerCrash and
// TestTemporalCodeModeCrash on a dev server (run them with -args
// -record-histories to record them again): the trip run whose worker was
// killed mid-tool, the mail run that waited for an approval signal, and
// the same for a code mode program. Replaying them against the current code
// must issue the same commands: a change that makes the workflow
// nondeterministic fails here.
func TestReplayRecordedHistories(t *testing.T) {
	for _, file := range []string{"testdata/crash_history.json", "testdata/approval_history.json",
		"testdata/code_crash_history.json", "testdata/code_approval_history.json"} {
		t.Run(file, func(t *testing.T) {
			r := worker.NewWorkflowReplayer()
			require.NoError(t, aitemporal.RegisterWorkflow(r, scenarioConfig(nil, slowTool)))
			require.NoError(t, r.ReplayWorkflowHistoryFromJSONFile(quietLogger(), file))
		})
	}
}

// Replay notices a workflow whose decisions changed: with a step limit of
// one, the recorded tool call is never scheduled.
func TestReplayDetectsChangedDecisions(t *testing.T) {
	cfg := scenarioConfig(nil, slowTool)
	cfg.Agents["travel"].Options.StopWhen = ai.StepCountIs(1)
	r := worker.NewWorkflowReplayer()
	require.NoError(t, aitemporal.RegisterWorkflow(r, cfg))
	err := r.ReplayWorkflowHistoryFromJSONFile(quietLogger(), "testdata/crash_history.json")
	assert.ErrorContains(t, err, "TMPRL1100", "the nondeterminism error")
}
