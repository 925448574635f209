package conformance

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestPublicScenarios replays every scenario of testdata/public and
// compares the trace with the recorded reference trace.
func TestPublicScenarios(t *testing.T) { replayDir(t, "testdata/public", 30, RunScenario) }

// TestPublicScenariosThroughAgent replays the public scenarios through an
// ai.Agent: the traces must be the same.
func TestPublicScenariosThroughAgent(t *testing.T) {
	replayDir(t, "testdata/public", 30, RunScenarioThroughAgent)
}

// TestExtraScenarios replays the scenarios of testdata/extra, which cover
// approval, resumed conversations, per-step preparation, tool order,
// model-output mapping, dynamic tools, failing searches, invalid inputs and
// stream errors.
func TestExtraScenarios(t *testing.T) { replayDir(t, "testdata/extra", 40, RunScenario) }

// TestExtraScenariosThroughAgent replays the extra scenarios through an
// ai.Agent.
func TestExtraScenariosThroughAgent(t *testing.T) {
	replayDir(t, "testdata/extra", 40, RunScenarioThroughAgent)
}

// TestOutputScenarios replays the scenarios of testdata/output: object,
// array, choice, JSON and text outputs, with tools, invalid output, and
// streamed partial outputs and elements.
func TestOutputScenarios(t *testing.T) { replayDir(t, "testdata/output", 30, RunScenario) }

// TestOutputScenariosThroughAgent replays the output scenarios through an
// ai.Agent.
func TestOutputScenariosThroughAgent(t *testing.T) {
	replayDir(t, "testdata/output", 30, RunScenarioThroughAgent)
}

func replayDir(t *testing.T, dir string, atLeast int, run func(context.Context, *Scenario) (map[string]any, error)) {
	files, err := filepath.Glob(filepath.Join(dir, "*.json"))
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, f := range files {
		if strings.HasSuffix(f, ".trace.json") {
			continue
		}
		n++
		name := strings.TrimSuffix(filepath.Base(f), ".json")
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			checkScenario(t, f, strings.TrimSuffix(f, ".json")+".trace.json", run)
		})
	}
	if n < atLeast {
		t.Fatalf("found only %d scenarios in %s", n, dir)
	}
}

func checkScenario(t *testing.T, scenarioFile, traceFile string, run func(context.Context, *Scenario) (map[string]any, error)) {
	t.Helper()
	data, err := os.ReadFile(scenarioFile)
	if err != nil {
		t.Fatal(err)
	}
	s, err := ParseScenario(data)
	if err != nil {
		t.Fatal(err)
	}
	trace, err := run(context.Background(), s)
	if err != nil {
		t.Fatal(err)
	}
	actualJSON, err := MarshalTrace(trace)
	if err != nil {
		t.Fatal(err)
	}
	var actual any
	if err := json.Unmarshal(actualJSON, &actual); err != nil {
		t.Fatal(err)
	}
	expData, err := os.ReadFile(traceFile)
	if err != nil {
		t.Fatal(err)
	}
	var expected any
	if err := json.Unmarshal(expData, &expected); err != nil {
		t.Fatal(err)
	}
	if diffs := Compare(expected, actual); len(diffs) > 0 {
		if len(diffs) > 40 {
			diffs = diffs[:40]
		}
		t.Errorf("%d difference(s):\n  %s\nactual trace:\n%s", len(diffs), strings.Join(diffs, "\n  "), actualJSON)
	}
}
