package aitemporal_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/client"

	"github.com/aisdkgo/ai/aitemporal"
)

// TestTemporalCodeModeCrash runs a program with five tool calls on a real
// Temporal server and kills the worker once the history recorded the third
// call and the fourth runs: a new worker finishes the program, replaying
// the recorded calls, so that each of the five completes exactly once and
// only the call the crash cut off is tried again (with the same
// idempotency key).
func TestTemporalCodeModeCrash(t *testing.T) {
	if os.Getenv(envWorker) != "" {
		t.Skip("worker processes run TestTemporalWorkerCrash")
	}
	if testing.Short() {
		t.Skip("starts a Temporal server and worker processes")
	}
	address := serverAddress(t)
	c, err := client.Dial(client.Options{HostPort: address, Logger: quietLogger()})
	require.NoError(t, err)
	defer c.Close()

	suffix := randomSuffix()
	queue := "aitemporal-code-crash-" + suffix
	log := &execLog{path: filepath.Join(t.TempDir(), "executions.log")}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()

	first := startWorker(t, address, queue, log.path)
	id := "code-crash-" + suffix
	run, err := aitemporal.Start(ctx, c, client.StartWorkflowOptions{ID: id, TaskQueue: queue}, aitemporal.Input{Agent: "coder", Prompt: codePrompt})
	require.NoError(t, err)

	// The history holds the model call, four program runs and three tool
	// calls when the fourth call runs.
	waitFor(t, ctx, func() bool {
		return log.count(id, "start", "step4") == 1 && completedActivities(ctx, c, id) == 8
	})
	require.NoError(t, first.Process.Kill())
	_ = first.Wait()
	require.Zero(t, log.count(id, "done", "step4"), "the worker died before the fourth call finished")

	second := startWorker(t, address, queue, log.path)
	defer func() {
		_ = second.Process.Kill()
		_ = second.Wait()
	}()
	var res aitemporal.Result
	require.NoError(t, run.Get(ctx, &res))
	assert.Equal(t, `Done: code={"type":"json","value":{"total":15}}`, res.Text)

	for n := 1; n <= 5; n++ {
		name := fmt.Sprintf("step%d", n)
		assert.Equal(t, 1, log.count(id, "done", name), "call %d completed once", n)
		if n != 4 {
			assert.Equal(t, 1, log.count(id, "start", name), "call %d ran once", n)
		}
	}
	assert.Equal(t, 2, log.count(id, "start", "step4"), "the call cut off by the crash is tried again")
	keys := log.keys(id, "start", "step4")
	require.Len(t, keys, 2)
	assert.Equal(t, keys[0], keys[1], "both attempts of the call have one idempotency key")
	assert.Contains(t, keys[0], "c1:tool-4", "the key names the program's call")

	// A program whose call waits for approval, answered by signal.
	payID := "code-approval-" + suffix
	run2, err := aitemporal.Start(ctx, c, client.StartWorkflowOptions{ID: payID, TaskQueue: queue}, aitemporal.Input{Agent: "coder", Prompt: codeApprovalPrompt})
	require.NoError(t, err)
	var pending []aitemporal.PendingApproval
	waitFor(t, ctx, func() bool {
		p, err := aitemporal.QueryProgress(ctx, c, payID, "")
		if err == nil {
			pending = p.PendingApprovals
		}
		return len(pending) == 1
	})
	assert.Equal(t, "c1:tool-2:approval", pending[0].ApprovalID)
	require.NoError(t, aitemporal.Approve(ctx, c, payID, "", aitemporal.Approval{ApprovalID: pending[0].ApprovalID, Approved: true}))
	var paid aitemporal.Result
	require.NoError(t, run2.Get(ctx, &paid))
	assert.Equal(t, `Done: code={"type":"json","value":{"sent":"sent 5","total":3}}`, paid.Text)
	assert.Equal(t, 1, log.count(payID, "start", "step1"))
	assert.Equal(t, 1, log.count(payID, "done", "transfer"))

	if *recordHistories {
		writeHistory(t, ctx, c, id, "testdata/code_crash_history.json")
		writeHistory(t, ctx, c, payID, "testdata/code_approval_history.json")
	}
}
