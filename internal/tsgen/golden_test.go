package tsgen

import (
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden catalogs")

// goldenTool is a tool description in a golden input file.
type goldenTool struct {
	Name          string            `json:"name"`
	Description   string            `json:"description"`
	Title         string            `json:"title"`
	InputSchema   json.RawMessage   `json:"inputSchema"`
	OutputSchema  json.RawMessage   `json:"outputSchema"`
	InputExamples []json.RawMessage `json:"inputExamples"`
}

// TestGoldenCatalogs renders the catalog of every testdata/golden/NAME.json
// and compares it with NAME.ts (go test -run Golden -update rewrites them).
func TestGoldenCatalogs(t *testing.T) {
	files, err := filepath.Glob("testdata/golden/*.json")
	if err != nil || len(files) == 0 {
		t.Fatalf("no golden inputs: %v", err)
	}
	for _, f := range files {
		name := strings.TrimSuffix(filepath.Base(f), ".json")
		t.Run(name, func(t *testing.T) {
			data, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			var specs []goldenTool
			if err := json.Unmarshal(data, &specs); err != nil {
				t.Fatal(err)
			}
			tools := make([]Tool, len(specs))
			for i, s := range specs {
				tools[i] = Tool(s)
			}
			got := Catalog(tools) + "\n"
			goldenFile := strings.TrimSuffix(f, ".json") + ".ts"
			if *update {
				if err := os.WriteFile(goldenFile, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(goldenFile)
			if err != nil {
				t.Fatalf("%v (run with -update to create it)", err)
			}
			if got != string(want) {
				t.Errorf("catalog differs from %s:\n--- got\n%s\n--- want\n%s", goldenFile, got, want)
			}
			if again := Catalog(tools) + "\n"; again != got {
				t.Error("rendering is not deterministic")
			}
		})
	}
}
