package httpx

import (
	"encoding/json"
	"strconv"
	"testing"
)

// TestTextDecodesAsString checks Text against encoding/json's decoding of
// the same literal into a string.
func TestTextDecodesAsString(t *testing.T) {
	for _, lit := range []string{
		`""`, `"plain"`, `"line\nbreak \"quoted\" back\\slash \/ \b\f\r\t"`,
		`"\u00e9\u4e16"`, `"\ud83d\ude00 pair"`, `"\ud83d alone"`, `"\ude00 low"`, `"\ud83d\u0041"`,
		`"é世😀"`, "\"bad \xff byte\"", `null`, `12`, `{"a":1}`,
	} {
		var want string
		wantErr := json.Unmarshal([]byte(lit), &want)
		var got Text
		gotErr := json.Unmarshal([]byte(lit), &got)
		if (wantErr != nil) != (gotErr != nil) {
			t.Errorf("%s: error %v, want %v", lit, gotErr, wantErr)
			continue
		}
		if string(got) != want {
			t.Errorf("%s: got %q, want %q", lit, got, want)
		}
	}
}

func FuzzText(f *testing.F) {
	for _, s := range []string{"a\nb", "\"\\", "\u00e9", "😀", "\x00\x1f", "\xff"} {
		f.Add(strconv.Quote(s))
		f.Add(`"\ud83d` + s + `"`)
	}
	f.Fuzz(func(t *testing.T, lit string) {
		var want string
		wantErr := json.Unmarshal([]byte(lit), &want)
		var got Text
		gotErr := json.Unmarshal([]byte(lit), &got)
		if (wantErr != nil) != (gotErr != nil) {
			t.Fatalf("%q: error %v, want %v", lit, gotErr, wantErr)
		}
		if wantErr == nil && string(got) != want {
			t.Fatalf("%q: got %q, want %q", lit, got, want)
		}
	})
}
