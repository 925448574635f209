package main

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aisdkgo/ai"
	"github.com/aisdkgo/ai/aitest"
)

// goList returns the dependencies of the packages.
func goList(t *testing.T, pkgs ...string) []string {
	t.Helper()
	out, err := exec.Command("go", append([]string{"list", "-deps"}, pkgs...)...).Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	return strings.Fields(string(out))
}

// The core package links no JavaScript engine, no esbuild, no HTTP stack,
// no OpenTelemetry and no AWS SDK; the providers, the test model, the
// model middleware and the registry depend on the contract only.
func TestCoreDependencies(t *testing.T) {
	for _, dep := range goList(t, "github.com/aisdkgo/ai") {
		for _, heavy := range []string{"modernc.org/quickjs", "github.com/evanw/esbuild", "net/http", "go.opentelemetry.io", "go.temporal.io", "github.com/aws/"} {
			if strings.HasPrefix(dep, heavy) {
				t.Errorf("the core depends on %s", dep)
			}
		}
	}
	for _, dep := range goList(t, "github.com/aisdkgo/ai/providers/...", "github.com/aisdkgo/ai/aitest", "github.com/aisdkgo/ai/middleware",
		"github.com/aisdkgo/ai/registry") {
		if dep == "github.com/aisdkgo/ai" {
			t.Error("a provider package, aitest, middleware or registry imports the root package")
		}
	}
}

// A program that makes one GenerateText call on the scripted model stays
// small.
func TestMinimalProgramSize(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a program")
	}
	bin := filepath.Join(t.TempDir(), "minimal")
	if out, err := exec.Command("go", "build", "-o", bin, "github.com/aisdkgo/ai/internal/minimal").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	fi, err := os.Stat(bin)
	if err != nil {
		t.Fatal(err)
	}
	const limit = 6 << 20
	if fi.Size() > limit {
		t.Errorf("the minimal program is %d bytes, more than %d", fi.Size(), limit)
	}
}

// Code mode without an engine fails before any model call, saying what to
// import.
func TestCodeModeWithoutEngine(t *testing.T) {
	model := aitest.NewModel()
	_, err := ai.GenerateText(context.Background(), ai.GenerateTextOptions{
		Model: model, Tools: ai.Tools{{Name: "code", Tool: ai.CodeMode(nil)}}, Prompt: "go",
	})
	var ia *ai.InvalidArgumentError
	if !errors.As(err, &ia) || !strings.Contains(err.Error(), "github.com/aisdkgo/ai/quickjs") {
		t.Errorf("got %v, want an invalid argument naming the engine package", err)
	}
	if len(model.Calls()) != 0 {
		t.Error("the model was called")
	}
	if _, err := ai.RunCodeMode(context.Background(), ai.RunCodeModeOptions{JS: "return 1"}); !errors.Is(err, ai.ErrNoCodeEngine) {
		t.Errorf("RunCodeMode: got %v, want ErrNoCodeEngine", err)
	}
}

// Only the Bedrock provider imports the AWS SDK.
func TestAWSOnlyInBedrock(t *testing.T) {
	out, err := exec.Command("go", "list", "-f", `{{.ImportPath}} {{join .Imports " "}}`, "github.com/aisdkgo/ai/...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		fields := strings.Fields(line)
		if len(fields) == 0 || fields[0] == "github.com/aisdkgo/ai/providers/bedrock" {
			continue
		}
		for _, imp := range fields[1:] {
			if strings.HasPrefix(imp, "github.com/aws/") {
				t.Errorf("%s imports %s", fields[0], imp)
			}
		}
	}
}
