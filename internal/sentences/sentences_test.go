package sentences

import (
	"slices"
	"testing"
)

func TestSplitAndCount(t *testing.T) {
	for q, want := range map[string][]string{
		"":                       nil,
		"send an email":          {"send an email"},
		"Send it. Book a flight": {"Send it", "Book a flight"},
		"Send it.Book v1.2 now":  {"Send it.Book v1.2 now"},
		"What? Why!\nHow; when.": {"What", "Why", "How", "when"},
		"  .  ; ok .":            {"ok"},
		"one.\n\ntwo":            {"one.", "two"}, // a full stop before a line break stays
		"tab\tand\r\nreturn":     {"tab\tand", "return"},
		"One. Two? Three!":       {"One", "Two", "Three"},
		"Pi is 3.14 exactly.":    {"Pi is 3.14 exactly"},
		"a; b\nc":                {"a", "b", "c"},
		" . ? ":                  nil,
	} {
		if got := Split(q); !slices.Equal(got, want) {
			t.Errorf("Split(%q) = %q, want %q", q, got, want)
		}
		if got := Count(q); got != len(want) {
			t.Errorf("Count(%q) = %d, want %d", q, got, len(want))
		}
	}
}
