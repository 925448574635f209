package main

import (
	"context"
	"regexp"
	"strings"
	"testing"
)

func TestTree(t *testing.T) {
	for _, stream := range []bool{false, true} {
		var out strings.Builder
		if err := run(context.Background(), &out, stream, false, true, ""); err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, line := range strings.Split(out.String(), "\n") {
			if m := regexp.MustCompile(`^(\s*)([a-zA-Z_]+ [^ ]+) \(`).FindStringSubmatch(line); m != nil {
				names = append(names, m[1]+m[2])
			}
		}
		want := []string{
			"invoke_agent scripted",
			"  step 0", "    chat scripted", "    execute_tool search",
			"  step 1", "    chat scripted", "    execute_tool getForecast", "      GET /forecast",
			"  step 2", "    chat scripted",
		}
		if strings.Join(names, "\n") != strings.Join(want, "\n") {
			t.Errorf("stream=%v: span tree\n%s\nwant\n%s\n\n%s", stream, strings.Join(names, "\n"), strings.Join(want, "\n"), out.String())
		}
		for _, attr := range []string{"ai.step.discovered_tools = [\"getForecast\"]", "gen_ai.input.messages = ", "answer: Yes"} {
			if !strings.Contains(out.String(), attr) {
				t.Errorf("the output lacks %q", attr)
			}
		}
	}
}

func TestJSON(t *testing.T) {
	var out strings.Builder
	if err := run(context.Background(), &out, false, true, false, ""); err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(out.String(), `"Name": "chat scripted"`); n != 3 {
		t.Errorf("%d chat spans in the stdout exporter's output, want 3", n)
	}
}
