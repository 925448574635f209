package ai

import "testing"

func TestParameterText(t *testing.T) {
	for schema, want := range map[string]string{
		`{"type":"object","properties":{"city":{"type":"string","description":"The city."},"days":{"type":"integer"}},"required":["city"]}`: "city: The city.\ndays",
		`{"required":["a"],"properties":{"b":{"description":"B"}}}`:                                                                         "b: B",
		`{"type":"object"}`: "",
		`[1,2]`:             "",
		``:                  "",
		`{"properties":`:    "",
	} {
		if got := parameterText([]byte(schema)); got != want {
			t.Errorf("parameterText(%s) = %q, want %q", schema, got, want)
		}
	}
	long := `{"properties":{`
	for i := range 300 {
		if i > 0 {
			long += ","
		}
		long += `"p` + string(rune('a'+i%26)) + string(rune('a'+i/26)) + `":{"description":"a parameter described at some length"}`
	}
	long += `}}`
	if got := parameterText([]byte(long)); len(got) > maxParameterText || len(got) < maxParameterText/2 {
		t.Errorf("long schema: %d bytes", len(got))
	}
}
