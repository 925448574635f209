package aitemporal_test

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"flag"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.temporal.io/api/enums/v1"
	historypb "go.temporal.io/api/history/v1"
	"go.temporal.io/api/temporalproto"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/worker"

	"github.com/aisdkgo/ai/aitemporal"
)

var recordHistories = flag.Bool("record-histories", false, "write the histories of TestTemporalWorkerCrash's runs to testdata")

// Environment of a worker process started by TestTemporalWorkerCrash.
const (
	envWorker    = "AITEMPORAL_TEST_WORKER"
	envAddress   = "AITEMPORAL_TEST_ADDRESS"
	envTaskQueue = "AITEMPORAL_TEST_TASK_QUEUE"
	envLog       = "AITEMPORAL_TEST_LOG"
)

// slowTool is how long bookHotel takes.
const slowTool = 3 * time.Second

// TestTemporalWorkerCrash runs the trip scenario on a real Temporal server
// and kills the worker while bookHotel runs: a new worker finishes the run
// with the result of an uninterrupted run, retrying only the call the crash
// cut off. The server is the one at TEMPORAL_ADDRESS, or a dev server the
// test starts with the temporal command.
func TestTemporalWorkerCrash(t *testing.T) {
	if os.Getenv(envWorker) != "" {
		runWorkerProcess(t)
		return
	}
	if testing.Short() {
		t.Skip("starts a Temporal server and worker processes")
	}
	address := serverAddress(t)
	c, err := client.Dial(client.Options{HostPort: address, Logger: quietLogger()})
	require.NoError(t, err)
	defer c.Close()

	suffix := randomSuffix()
	queue := "aitemporal-crash-" + suffix
	log := &execLog{path: filepath.Join(t.TempDir(), "executions.log")}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()

	first := startWorker(t, address, queue, log.path)
	crashID := "trip-crash-" + suffix
	run, err := aitemporal.Start(ctx, c, client.StartWorkflowOptions{ID: crashID, TaskQueue: queue}, aitemporal.Input{Agent: "travel", Prompt: tripPrompt})
	require.NoError(t, err)

	// Kill the worker once the server has recorded getWeather's result
	// (two model calls and one tool call completed) and bookHotel runs.
	waitFor(t, ctx, func() bool {
		return log.count(crashID, "start", "bookHotel") == 1 && completedActivities(ctx, c, crashID) == 3
	})
	require.NoError(t, first.Process.Kill())
	_ = first.Wait()
	require.Zero(t, log.count(crashID, "done", "bookHotel"), "the worker died before bookHotel finished")

	second := startWorker(t, address, queue, log.path)
	defer func() {
		_ = second.Process.Kill()
		_ = second.Wait()
	}()
	var crashed aitemporal.Result
	require.NoError(t, run.Get(ctx, &crashed))

	assert.Equal(t, 1, log.count(crashID, "start", "getWeather"), "a completed call does not run again")
	assert.Equal(t, 2, log.count(crashID, "start", "bookHotel"), "the call cut off by the crash is retried")
	assert.Equal(t, 1, log.count(crashID, "done", "bookHotel"))
	keys := log.keys(crashID, "start", "bookHotel")
	require.Len(t, keys, 2)
	assert.Equal(t, keys[0], keys[1], "both attempts of the call have one idempotency key")
	assert.Contains(t, keys[0], crashID, "the key names the run")

	// An uninterrupted run has the same result.
	cleanID := "trip-clean-" + suffix
	run2, err := aitemporal.Start(ctx, c, client.StartWorkflowOptions{ID: cleanID, TaskQueue: queue}, aitemporal.Input{Agent: "travel", Prompt: tripPrompt})
	require.NoError(t, err)
	var clean aitemporal.Result
	require.NoError(t, run2.Get(ctx, &clean))
	assert.Equal(t, 1, log.count(cleanID, "start", "bookHotel"))
	assert.NotEqual(t, keys[0], log.keys(cleanID, "start", "bookHotel")[0], "another run, another key")
	assert.Equal(t, clean.Text, crashed.Text)
	assert.Contains(t, crashed.Text, "Grand Oslo")
	assert.Equal(t, withoutIDs(clean.Steps), withoutIDs(crashed.Steps))
	assert.Equal(t, []string{"getWeather", "bookHotel"}, crashed.Discovered)

	// The progress query answers for a finished run too.
	p, err := aitemporal.QueryProgress(ctx, c, crashID, "")
	require.NoError(t, err)
	assert.True(t, p.Done)
	assert.Len(t, p.Steps, 3)

	// A run that waits for approval, answered by signal.
	mailID := "mail-" + suffix
	run3, err := aitemporal.Start(ctx, c, client.StartWorkflowOptions{ID: mailID, TaskQueue: queue}, aitemporal.Input{Agent: "travel", Prompt: mailPrompt})
	require.NoError(t, err)
	var pending []aitemporal.PendingApproval
	waitFor(t, ctx, func() bool {
		p, err := aitemporal.QueryProgress(ctx, c, mailID, "")
		if err == nil {
			pending = p.PendingApprovals
		}
		return len(pending) == 1
	})
	require.NoError(t, aitemporal.Approve(ctx, c, mailID, "", aitemporal.Approval{ApprovalID: pending[0].ApprovalID, Approved: true}))
	var mailed aitemporal.Result
	require.NoError(t, run3.Get(ctx, &mailed))
	assert.Equal(t, `Done: sendEmail={"type":"text","value":"sent to bob"}`, mailed.Text)
	assert.Equal(t, 1, log.count(mailID, "done", "sendEmail"))

	if *recordHistories {
		writeHistory(t, ctx, c, crashID, "testdata/crash_history.json")
		writeHistory(t, ctx, c, mailID, "testdata/approval_history.json")
	}
}

// runWorkerProcess is the body of a worker process: it runs until killed.
func runWorkerProcess(t *testing.T) {
	c, err := client.Dial(client.Options{HostPort: os.Getenv(envAddress), Logger: quietLogger()})
	if err != nil {
		t.Fatal(err)
	}
	w := worker.New(c, os.Getenv(envTaskQueue), worker.Options{})
	if err := aitemporal.Register(w, scenarioConfig(&execLog{path: os.Getenv(envLog)}, slowTool)); err != nil {
		t.Fatal(err)
	}
	if err := w.Run(worker.InterruptCh()); err != nil {
		t.Fatal(err)
	}
}

// startWorker starts a worker process: this test binary, running only
// TestTemporalWorkerCrash in worker mode.
func startWorker(t *testing.T, address, queue, logPath string) *exec.Cmd {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestTemporalWorkerCrash$", "-test.count=1")
	cmd.Env = append(os.Environ(), envWorker+"=1", envAddress+"="+address, envTaskQueue+"="+queue, envLog+"="+logPath)
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	require.NoError(t, cmd.Start())
	return cmd
}

// serverAddress returns the address of the Temporal server to use: the
// one at TEMPORAL_ADDRESS, or a dev server started for the test.
func serverAddress(t *testing.T) string {
	if a := os.Getenv("TEMPORAL_ADDRESS"); a != "" {
		return a
	}
	bin := temporalBinary()
	if bin == "" {
		t.Skip("no temporal command found on PATH or in $(go env GOPATH)/bin: install it with " +
			"`go install github.com/temporalio/cli/cmd/temporal@v1.5.1` (.ci/run does) or set TEMPORAL_ADDRESS")
	}
	port, httpPort, metricsPort := freePort(t), freePort(t), freePort(t)
	cmd := exec.Command(bin, "server", "start-dev", "--headless", "--ip", "127.0.0.1",
		"--port", port, "--http-port", httpPort, "--metrics-port", metricsPort, "--log-level", "error")
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	require.NoError(t, cmd.Start())
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	})
	address := "127.0.0.1:" + port
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	waitFor(t, ctx, func() bool {
		c, err := client.Dial(client.Options{HostPort: address, Logger: quietLogger()})
		if err != nil {
			return false
		}
		defer c.Close()
		_, err = c.CheckHealth(ctx, nil)
		return err == nil
	})
	return address
}

func temporalBinary() string {
	if p, err := exec.LookPath("temporal"); err == nil {
		return p
	}
	if out, err := exec.Command("go", "env", "GOPATH").Output(); err == nil {
		p := filepath.Join(strings.TrimSpace(string(out)), "bin", "temporal")
		if _, err := os.Stat(p); err == nil {
			return p
		}
	}
	return ""
}

func freePort(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer l.Close()
	return fmt.Sprint(l.Addr().(*net.TCPAddr).Port)
}

func randomSuffix() string {
	b := make([]byte, 6)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

// waitFor polls cond until it holds or ctx ends.
func waitFor(t *testing.T, ctx context.Context, cond func() bool) {
	t.Helper()
	for !cond() {
		select {
		case <-ctx.Done():
			t.Fatal("timed out waiting")
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// writeHistory writes a run's history as the replayer reads it.
func writeHistory(t *testing.T, ctx context.Context, c client.Client, workflowID, path string) {
	t.Helper()
	it := c.GetWorkflowHistory(ctx, workflowID, "", false, enums.HISTORY_EVENT_FILTER_TYPE_ALL_EVENT)
	h := &historypb.History{}
	for it.HasNext() {
		e, err := it.Next()
		require.NoError(t, err)
		h.Events = append(h.Events, e)
	}
	data, err := temporalproto.CustomJSONMarshalOptions{Indent: "  "}.Marshal(h)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(path, append(data, '\n'), 0o644))
}

// withoutIDs returns the steps without their response ids, which differ
// from run to run.
func withoutIDs(steps []aitemporal.Step) []aitemporal.Step {
	out := slices.Clone(steps)
	for i := range out {
		out[i].ResponseID = ""
	}
	return out
}

// completedActivities counts the activities a run's history records as
// completed.
func completedActivities(ctx context.Context, c client.Client, workflowID string) int {
	it := c.GetWorkflowHistory(ctx, workflowID, "", false, enums.HISTORY_EVENT_FILTER_TYPE_ALL_EVENT)
	n := 0
	for it.HasNext() {
		e, err := it.Next()
		if err != nil {
			return -1
		}
		if e.GetEventType() == enums.EVENT_TYPE_ACTIVITY_TASK_COMPLETED {
			n++
		}
	}
	return n
}
