// Command chaos runs many durable agent runs at once on a Temporal server
// while it kills their workers, and checks what durability promises: every
// run completes, no activity whose completion the history recorded runs
// again, and a tool that passes its IdempotencyKey to the system it changes
// changes it once per call. It reports runs per second and the median and
// 99th percentile of the run time.
//
//	go run ./aitemporal/internal/chaos                # 200 runs, dev server started with the temporal CLI
//	go run ./aitemporal/internal/chaos -runs 50       # fewer (or AITEMPORAL_CHAOS_RUNS=50)
//	go run ./aitemporal/internal/chaos -address 127.0.0.1:7233
//
// Each run is a three-step tool loop: the model asks for reserve, then for
// confirm, then answers; model calls take 200 ms and tools 500 ms. Two
// worker processes (this program with -worker) serve the task queue, and
// every 5 seconds one of them, in turn, is killed and started again.
package main

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"go.temporal.io/api/enums/v1"
	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/log"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"

	"github.com/aisdkgo/ai"
	"github.com/aisdkgo/ai/aitemporal"
	"github.com/aisdkgo/ai/aitest"
	"github.com/aisdkgo/ai/provider"
)

const (
	modelTime = 200 * time.Millisecond
	toolTime  = 500 * time.Millisecond
)

func main() {
	runs := flag.Int("runs", envInt("AITEMPORAL_CHAOS_RUNS", 200), "number of runs started at once")
	address := flag.String("address", os.Getenv("TEMPORAL_ADDRESS"), "Temporal server; empty starts a dev server with the temporal command")
	killEvery := flag.Duration("kill-every", 5*time.Second, "interval between worker kills")
	workerMode := flag.Bool("worker", false, "run as a worker process (used by the program itself)")
	queue := flag.String("queue", "", "task queue (worker mode)")
	dir := flag.String("dir", "", "directory of the execution log and the effects (worker mode)")
	flag.Parse()
	if *workerMode {
		if err := runWorker(*address, *queue, *dir); err != nil {
			fmt.Fprintln(os.Stderr, "worker:", err)
			os.Exit(1)
		}
		return
	}
	if err := run(*runs, *address, *killEvery); err != nil {
		fmt.Fprintln(os.Stderr, "chaos:", err)
		os.Exit(1)
	}
}

func envInt(name string, def int) int {
	if n, err := strconv.Atoi(os.Getenv(name)); err == nil && n > 0 {
		return n
	}
	return def
}

func quiet() log.Logger { return log.NewStructuredLogger(slog.New(slog.DiscardHandler)) }

// config is what every worker runs: the scripted model and two tools that
// record their effects under their idempotency keys.
func config(dir string) *aitemporal.Config {
	model := &aitest.Model{ModelName: "chaos", Respond: func(ctx context.Context, _ int, o *provider.CallOptions) (aitest.Response, error) {
		step := 0
		for _, m := range o.Prompt {
			if _, ok := m.(provider.AssistantMessage); ok {
				step++
			}
		}
		record(ctx, dir, "start")
		select {
		case <-time.After(modelTime):
		case <-ctx.Done():
			return aitest.Response{}, ctx.Err()
		}
		record(ctx, dir, "done")
		switch step {
		case 0:
			return aitest.Response{Content: []provider.Content{aitest.ToolCall("c1", "reserve", `{"item":"room"}`)}, FinishReason: aitest.ToolCalls}, nil
		case 1:
			return aitest.Response{Content: []provider.Content{aitest.ToolCall("c2", "confirm", `{"item":"room"}`)}, FinishReason: aitest.ToolCalls}, nil
		}
		return aitest.Response{Content: []provider.Content{aitest.Text("Booked.")}}, nil
	}}
	tool := func(name string) ai.Tool {
		return ai.NewTool(ai.ToolDef[struct {
			Item string `json:"item"`
		}, string]{
			Description: name + " an item.",
			Execute: func(ctx context.Context, in struct {
				Item string `json:"item"`
			}, _ ai.ToolExecutionOptions) (string, error) {
				record(ctx, dir, "start")
				select {
				case <-time.After(toolTime):
				case <-ctx.Done():
					return "", ctx.Err()
				}
				key, ok := aitemporal.IdempotencyKey(ctx)
				if !ok {
					return "", errors.New("no idempotency key")
				}
				// The effect: a file named by the key, created once.
				f, err := os.OpenFile(filepath.Join(dir, "effects", strings.NewReplacer("/", "_").Replace(key)), os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o644)
				if err == nil {
					f.Close()
				} else if !errors.Is(err, os.ErrExist) {
					return "", err
				}
				record(ctx, dir, "done")
				return name + "ed " + in.Item, nil
			},
		})
	}
	fast := workflow.ActivityOptions{StartToCloseTimeout: time.Minute, HeartbeatTimeout: 2 * time.Second,
		RetryPolicy: &temporal.RetryPolicy{InitialInterval: 100 * time.Millisecond, MaximumAttempts: 20}}
	return &aitemporal.Config{
		Models: map[string]provider.LanguageModel{"chaos": model},
		Agents: map[string]*aitemporal.Agent{"booker": {
			Options: ai.GenerateTextOptions{
				Model:    model,
				Tools:    ai.Tools{{Name: "reserve", Tool: tool("reserve")}, {Name: "confirm", Tool: tool("confirm")}},
				StopWhen: ai.StepCountIs(5),
			},
			ModelActivity: fast,
			ToolActivity:  fast,
		}},
	}
}

var logMu sync.Mutex

// record appends "<workflow id> <activity id> <attempt> <event>" to the
// execution log every process shares (one short O_APPEND write per line).
func record(ctx context.Context, dir, event string) {
	info := activity.GetInfo(ctx)
	line := fmt.Sprintf("%s %s %d %s\n", info.WorkflowExecution.ID, info.ActivityID, info.Attempt, event)
	logMu.Lock()
	defer logMu.Unlock()
	f, err := os.OpenFile(filepath.Join(dir, "executions.log"), os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		panic(err)
	}
	defer f.Close()
	if _, err := f.WriteString(line); err != nil {
		panic(err)
	}
}

func runWorker(address, queue, dir string) error {
	c, err := client.Dial(client.Options{HostPort: address, Logger: quiet()})
	if err != nil {
		return err
	}
	defer c.Close()
	w := worker.New(c, queue, worker.Options{})
	if err := aitemporal.Register(w, config(dir)); err != nil {
		return err
	}
	return w.Run(worker.InterruptCh())
}

func run(n int, address string, killEvery time.Duration) error {
	dir, err := os.MkdirTemp("", "aitemporal-chaos-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	if err := os.Mkdir(filepath.Join(dir, "effects"), 0o755); err != nil {
		return err
	}
	if address == "" {
		stop, addr, err := startDevServer()
		if err != nil {
			return err
		}
		defer stop()
		address = addr
	}
	c, err := client.Dial(client.Options{HostPort: address, Logger: quiet()})
	if err != nil {
		return err
	}
	defer c.Close()
	queue := fmt.Sprintf("aitemporal-chaos-%d", time.Now().UnixNano())

	var mu sync.Mutex
	workers := make([]*exec.Cmd, 2)
	startWorker := func(i int) error {
		cmd := exec.Command(os.Args[0], "-worker", "-address", address, "-queue", queue, "-dir", dir)
		cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
		if err := cmd.Start(); err != nil {
			return err
		}
		mu.Lock()
		workers[i] = cmd
		mu.Unlock()
		return nil
	}
	for i := range workers {
		if err := startWorker(i); err != nil {
			return err
		}
	}
	defer func() {
		mu.Lock()
		defer mu.Unlock()
		for _, w := range workers {
			_ = w.Process.Kill()
			_ = w.Wait()
		}
	}()

	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Minute)
	defer cancel()
	start := time.Now()
	durations := make([]time.Duration, n)
	ids := make([]string, n)
	errs := make(chan error, n)
	var wg sync.WaitGroup
	for i := range n {
		ids[i] = fmt.Sprintf("%s-run-%d", queue, i)
		r, err := aitemporal.Start(ctx, c, client.StartWorkflowOptions{ID: ids[i], TaskQueue: queue},
			aitemporal.Input{Agent: "booker", Prompt: "Book a room."})
		if err != nil {
			return err
		}
		began := time.Now()
		wg.Add(1)
		go func() {
			defer wg.Done()
			var res aitemporal.Result
			if err := r.Get(ctx, &res); err != nil {
				errs <- fmt.Errorf("run %s: %w", ids[i], err)
				return
			}
			if res.Text != "Booked." || len(res.Steps) != 3 {
				errs <- fmt.Errorf("run %s: unexpected result %q after %d steps", ids[i], res.Text, len(res.Steps))
				return
			}
			durations[i] = time.Since(began)
		}()
	}

	// Kill one worker in turn every killEvery until the runs are done.
	done := make(chan struct{})
	go func() {
		wg.Wait()
		close(done)
	}()
	kills := 0
	t := time.NewTicker(killEvery)
	defer t.Stop()
loop:
	for {
		select {
		case <-done:
			break loop
		case <-ctx.Done():
			return ctx.Err()
		case <-t.C:
			i := kills % 2
			mu.Lock()
			w := workers[i]
			mu.Unlock()
			_ = w.Process.Kill()
			_ = w.Wait()
			kills++
			if err := startWorker(i); err != nil {
				return err
			}
		}
	}
	elapsed := time.Since(start)
	close(errs)
	var failed []error
	for err := range errs {
		failed = append(failed, err)
	}
	if len(failed) > 0 {
		return fmt.Errorf("%d of %d runs failed; first: %w", len(failed), n, failed[0])
	}

	again, executions, err := check(ctx, c, ids, dir)
	if err != nil {
		return err
	}
	effects, err := os.ReadDir(filepath.Join(dir, "effects"))
	if err != nil {
		return err
	}
	slices.Sort(durations)
	pct := func(p float64) time.Duration { return durations[min(len(durations)-1, int(p*float64(len(durations))))] }
	fmt.Printf("runs: %d completed, %d workers killed\n", n, kills)
	fmt.Printf("activity executions: %d for %d activities (retries after kills included)\n", executions, 5*n)
	fmt.Printf("recorded completions that ran again: %d\n", again)
	fmt.Printf("tool effects: %d for %d tool calls\n", len(effects), 2*n)
	fmt.Printf("throughput: %.1f runs/s (%s for all)\n", float64(n)/elapsed.Seconds(), elapsed.Round(time.Millisecond))
	longest := durations[len(durations)-1]
	fmt.Printf("run time: p50 %s, p99 %s, longest %s\n", pct(0.5).Round(time.Millisecond), pct(0.99).Round(time.Millisecond), longest.Round(time.Millisecond))
	if again > 0 || len(effects) != 2*n {
		return errors.New("durability violated")
	}
	if longest > time.Minute {
		// A lost worker must be noticed within seconds, not after an
		// activity's whole timeout.
		return fmt.Errorf("a run took %s, more than a minute", longest.Round(time.Millisecond))
	}
	return nil
}

// check compares the execution log with the histories: an activity whose
// completion the history records at attempt a must have run no attempt
// after a, and each attempt at most once. It returns the executions that
// broke the rule and the number of executions.
func check(ctx context.Context, c client.Client, ids []string, dir string) (again, executions int, err error) {
	type key struct{ workflow, activity string }
	starts := map[key][]int{}
	f, err := os.Open(filepath.Join(dir, "executions.log"))
	if err != nil {
		return 0, 0, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) != 4 || fields[3] != "start" {
			continue
		}
		a, _ := strconv.Atoi(fields[2])
		k := key{fields[0], fields[1]}
		starts[k] = append(starts[k], a)
		executions++
	}
	if err := sc.Err(); err != nil {
		return 0, 0, err
	}
	for _, id := range ids {
		completed := map[string]int{} // activity id -> attempt that completed
		scheduled := map[int64]string{}
		started := map[int64]int{}
		it := c.GetWorkflowHistory(ctx, id, "", false, enums.HISTORY_EVENT_FILTER_TYPE_ALL_EVENT)
		for it.HasNext() {
			e, err := it.Next()
			if err != nil {
				return 0, 0, err
			}
			switch e.GetEventType() {
			case enums.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED:
				scheduled[e.GetEventId()] = e.GetActivityTaskScheduledEventAttributes().GetActivityId()
			case enums.EVENT_TYPE_ACTIVITY_TASK_STARTED:
				a := e.GetActivityTaskStartedEventAttributes()
				started[a.GetScheduledEventId()] = int(a.GetAttempt())
			case enums.EVENT_TYPE_ACTIVITY_TASK_COMPLETED:
				s := e.GetActivityTaskCompletedEventAttributes().GetScheduledEventId()
				completed[scheduled[s]] = started[s]
			}
		}
		if len(completed) != 5 {
			return 0, 0, fmt.Errorf("run %s: %d activities completed, want 5", id, len(completed))
		}
		for act, attempt := range completed {
			seen := map[int]bool{}
			for _, a := range starts[key{id, act}] {
				if a > attempt || seen[a] {
					again++
				}
				seen[a] = true
			}
		}
	}
	return again, executions, nil
}

// startDevServer starts `temporal server start-dev` on free ports.
func startDevServer() (stop func(), address string, err error) {
	bin, err := exec.LookPath("temporal")
	if err != nil {
		out, gerr := exec.Command("go", "env", "GOPATH").Output()
		if gerr != nil {
			return nil, "", err
		}
		bin = filepath.Join(strings.TrimSpace(string(out)), "bin", "temporal")
		if _, serr := os.Stat(bin); serr != nil {
			return nil, "", errors.New("no temporal command: go install github.com/temporalio/cli/cmd/temporal@v1.5.1, or pass -address")
		}
	}
	port := func() string {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			panic(err)
		}
		defer l.Close()
		return strconv.Itoa(l.Addr().(*net.TCPAddr).Port)
	}
	p := port()
	cmd := exec.Command(bin, "server", "start-dev", "--headless", "--ip", "127.0.0.1", "--port", p,
		"--http-port", port(), "--metrics-port", port(), "--log-level", "error")
	// The server logs the requests that killed workers left behind; they
	// are expected here.
	cmd.Stdout, cmd.Stderr = nil, nil
	if err := cmd.Start(); err != nil {
		return nil, "", err
	}
	stop = func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	}
	address = "127.0.0.1:" + p
	deadline := time.Now().Add(2 * time.Minute)
	for {
		c, err := client.Dial(client.Options{HostPort: address, Logger: quiet()})
		if err == nil {
			_, err = c.CheckHealth(context.Background(), nil)
			c.Close()
			if err == nil {
				return stop, address, nil
			}
		}
		if time.Now().After(deadline) {
			stop()
			return nil, "", fmt.Errorf("the dev server did not start: %w", err)
		}
		time.Sleep(200 * time.Millisecond)
	}
}
