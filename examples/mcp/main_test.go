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
		"The server offers 200 tools",
		"Step 0: the model sees 1 tool ",
		"tool_search returned the matches ops_weather_forecast",
		"tool_search returned the matches ops_currency_convert",
		"Step 1: the model sees 3 tools",
		`ops_currency_convert returned text "250.00 EUR = 40250.00 JPY"`,
		`ops_weather_forecast returned JSON {"city":"Lisbon"`,
		"Answer: Lisbon",
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("the output lacks %q:\n%s", want, out.String())
		}
	}
	if strings.Contains(out.String(), "failed") {
		t.Errorf("a call failed:\n%s", out.String())
	}
}
