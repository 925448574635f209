package main

import (
	"context"
	"strings"
	"testing"
)

func TestRun(t *testing.T) {
	var out strings.Builder
	if err := run(context.Background(), &out); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"[stream call, temperature 0.6, max tokens 512]",
		`reasoning: "The user asks about "`,
		`reasoning: "tomorrow."`,
		`text:      "It will "`,
		`text: "Sunny on Sunday."`,
		`10 answers, the first: "It will rain tomorrow."`,
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("the output lacks %q:\n%s", want, out.String())
		}
	}
	for _, line := range strings.Split(out.String(), "\n") {
		if strings.HasPrefix(strings.TrimSpace(line), "text") || strings.HasPrefix(strings.TrimSpace(line), "reasoning") {
			if strings.ContainsAny(line, "<>") {
				t.Errorf("a tag leaked into %q", line)
			}
		}
	}
}
