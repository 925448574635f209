package sandbox

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// firstRunEnv makes TestFirstRunChild measure the first run of its process.
const firstRunEnv = "SANDBOX_FIRST_RUN_CHILD"

// BenchmarkFirstRun measures the first Run of a fresh process: each
// iteration starts this test binary again, which times its first run (the
// start of a worker included) and reports it. The figure is the median of
// those first runs, in ms (first-run-ms), which a busy machine moves less
// than the mean; ns/op includes the start of the process and is not the
// figure.
func BenchmarkFirstRun(b *testing.B) {
	var times []time.Duration
	for b.Loop() {
		cmd := exec.Command(os.Args[0], "-test.run=^TestFirstRunChild$", "-test.count=1")
		cmd.Env = append(os.Environ(), firstRunEnv+"=1")
		out, err := cmd.CombinedOutput()
		if err != nil {
			b.Fatalf("%v: %s", err, out)
		}
		_, rest, ok := strings.Cut(string(out), "first-run-ns=")
		if !ok {
			b.Fatalf("no figure in %s", out)
		}
		ns, err := strconv.ParseInt(strings.Fields(rest)[0], 10, 64)
		if err != nil {
			b.Fatal(err)
		}
		times = append(times, time.Duration(ns))
	}
	slices.Sort(times)
	b.ReportMetric(float64(times[len(times)/2].Microseconds())/1000, "first-run-ms")
}

// TestFirstRunChild is the process BenchmarkFirstRun starts; otherwise it
// does nothing.
func TestFirstRunChild(t *testing.T) {
	if os.Getenv(firstRunEnv) != "1" {
		t.Skip("run by BenchmarkFirstRun")
	}
	start := time.Now()
	res, err := Run(context.Background(), Options{Source: "return 1 + 1"})
	d := time.Since(start)
	if err != nil || string(res.Value) != "2" {
		t.Fatalf("got %v, %v", res, err)
	}
	fmt.Printf("first-run-ns=%d\n", d.Nanoseconds())
	// A spare worker being started ends with the process, once started.
	for {
		workers.mu.Lock()
		starting := workers.starting
		workers.mu.Unlock()
		if starting == 0 {
			return
		}
		time.Sleep(time.Millisecond)
	}
}
