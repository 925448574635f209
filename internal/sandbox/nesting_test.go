package sandbox

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// nestedSources are programs up to the default source limit that nest as
// deeply as their size allows, in every way the syntax nests, and programs
// that stay just within the nesting limit but repeat that nesting up to the
// size limit.
func nestedSources() map[string]string {
	size := DefaultLimits().MaxSourceBytes
	r := strings.Repeat
	fill := func(unit string) string { return r(unit, size/len(unit)) }
	within := DefaultLimits().MaxNestingDepth - 10
	return map[string]string{
		"braces":                             r("{", size/2) + r("}", size/2),
		"parens":                             "x = " + r("(", size/2-4) + "1" + r(")", size/2-4),
		"arrays":                             "x = " + r("[", size/2-4) + r("]", size/2-4),
		"objects":                            "x = " + r("{a:", size/4-2) + "1" + r("}", size/4-2),
		"template literals":                  "x = " + r("`${", size/5-2) + r("}`", size/5-2),
		"if chains":                          r("if (a) ", size/7) + ";",
		"else if chains":                     "if (a) {}" + r(" else if (a) {}", size/16),
		"unary operators":                    "x = " + r("!", size-10) + "a",
		"typeof chains":                      "x = " + r("typeof ", size/7-1) + "a",
		"member chains":                      "x = a" + r(".a", size/2-4),
		"call chains":                        "x = a" + r("()", size/2-4),
		"assignments":                        r("a = ", size/4-1) + "1",
		"ternaries":                          "x = " + r("a ? b : ", size/8-1) + "c",
		"arrows":                             "x = " + r("a => ", size/5-1) + "a",
		"string sums":                        "x = " + r("'a' + ", size/6-1) + "'a'",
		"comma sequences":                    "x = (" + r("a, ", size/3-2) + "a)",
		"labels":                             r("a: ", size/3-1) + ";",
		"generics":                           "let x: " + r("A<", size/3-8) + "B" + r(">", size/3-8) + ";",
		"function types":                     "let x: " + r("() => ", size/6-2) + "A;",
		"nested functions":                   r("function f() {", size/15) + r("}", size/15),
		"braces at the limit, repeated":      fill(r("{", within) + r("}", within)),
		"parens at the limit, repeated":      fill("x = " + r("(", within) + "1" + r(")", within) + ";\n"),
		"members at the limit, repeated":     fill("x = a" + r(".a", within) + ";\n"),
		"templates at the limit, repeated":   fill("x = " + r("`${", within/2) + "1" + r("}`", within/2) + ";\n"),
		"else ifs at the limit, repeated":    fill("if (a) {}" + r(" else if (a) {}", within/3) + "\n"),
		"string sums at the limit, repeated": fill("x = " + r("'aaaaaaaaaaaaaaaaaaaa' + ", within) + "'a';\n"),
	}
}

// TestNestedSourcesStayWithinMemory runs every nested source and checks that
// each ends with a result or a clean error, and that neither this process
// nor a worker process grows by more than the engine's memory limit plus
// 64 MiB. It runs in a child process, so that a failure cannot take the
// test binary down.
func TestNestedSourcesStayWithinMemory(t *testing.T) {
	if os.Getenv("SANDBOX_NESTING_CHILD") != "1" {
		cmd := exec.Command(os.Args[0], "-test.run=^TestNestedSourcesStayWithinMemory$", "-test.v", "-test.count=1")
		cmd.Env = append(os.Environ(), "SANDBOX_NESTING_CHILD=1")
		out, err := cmd.CombinedOutput()
		require.NoError(t, err, "%s", out)
		require.Contains(t, string(out), "--- PASS: TestNestedSourcesStayWithinMemory", "%s", out)
		t.Logf("%s", out)
		return
	}

	limit := uint64(DefaultLimits().MemoryBytes) + 64<<20
	// Warm the pool and take the workers' size after an ordinary run.
	mustRun(t, "return [1, 2, 3].map(x => x * 2)", Options{})
	hostBase, hostOK := peakRSS(os.Getpid())
	var workerBase uint64
	for _, pid := range workerPids() {
		if p, ok := peakRSS(pid); ok {
			workerBase = max(workerBase, p)
		}
	}
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	heapBase := ms.HeapAlloc
	var hostGrowth, workerGrowth, heapGrowth uint64
	defer func() {
		t.Logf("largest growth: host heap %d MiB, host peak RSS %d MiB, worker peak RSS %d MiB (limit %d MiB)",
			heapGrowth>>20, hostGrowth>>20, workerGrowth>>20, limit>>20)
	}()

	for name, src := range nestedSources() {
		require.LessOrEqual(t, len(src), DefaultLimits().MaxSourceBytes, name)
		res, err := Run(context.Background(), Options{Source: src, Limits: Limits{Timeout: promptly(20 * time.Second)}})
		if err != nil {
			var e *Error
			require.True(t, errors.As(err, &e), "%s: %v", name, err)
			assert.NotContains(t, e.Message, "ended unexpectedly", name)
			assert.NotEqual(t, CodeTimeout, e.Code, "%s: %v", name, e)
			t.Logf("%-36s %s %s", name, e.Code, truncateUTF8(e.Message, 80))
		} else {
			t.Logf("%-36s ok %s", name, res.Value)
		}
		runtime.ReadMemStats(&ms)
		g := ms.HeapAlloc - min(ms.HeapAlloc, heapBase)
		heapGrowth = max(heapGrowth, g)
		assert.Less(t, g, limit, "host heap after %s", name)
		if hostOK {
			p, _ := peakRSS(os.Getpid())
			hostGrowth = max(hostGrowth, p-min(p, hostBase))
			assert.Less(t, p-min(p, hostBase), limit, "host peak RSS after %s", name)
		}
		for _, pid := range workerPids() {
			// The race detector's shadow memory is part of the resident
			// size, so the workers are only measured without it.
			if p, ok := peakRSS(pid); ok && workerBase > 0 && !raceEnabled {
				workerGrowth = max(workerGrowth, p-min(p, workerBase))
				assert.Less(t, p-min(p, workerBase), limit, "worker peak RSS after %s: %d MiB", name, p>>20)
			}
		}
	}
}

func workerPids() []int {
	var pids []int
	allWorkers.Range(func(k, _ any) bool {
		pids = append(pids, k.(*worker).cmd.Process.Pid)
		return true
	})
	return pids
}

// peakRSS returns the peak resident size of process pid, where the system
// tells it.
func peakRSS(pid int) (uint64, bool) {
	f, err := os.Open(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, false
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), "VmHWM:"); ok {
			fs := strings.Fields(rest)
			if len(fs) > 0 {
				kb, err := strconv.ParseUint(fs[0], 10, 64)
				return kb << 10, err == nil
			}
		}
	}
	return 0, false
}
