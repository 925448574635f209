package sandbox

import (
	"encoding/json"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// textLink answers a tool call "text" with the JSON of a string holding
// text, and any other call with text itself.
type textLink struct {
	text  string
	ready []settlement
}

func (l *textLink) sendCall(id, seq int, name, input string) {
	st := settlement{id: id, kind: "ok", payload: l.text}
	if name == "text" {
		b, _ := json.Marshal(l.text)
		st.payload = string(b)
	}
	l.ready = append(l.ready, st)
}

func (l *textLink) sendConsole(string, string) {}

func (l *textLink) next(time.Time, int) (settlement, bool) {
	if len(l.ready) == 0 {
		return settlement{}, false
	}
	st := l.ready[0]
	l.ready = l.ready[1:]
	return st, true
}

// sameAsParse compares the value a tool output becomes with what JSON.parse
// makes of its text: the same types, numbers (-0 included), strings, keys
// in the same order, prototypes and property flags.
const sameAsParse = `
const text = await tools.text({});
let got: any, want: any, gotErr = "", wantErr = "";
try { got = await tools.value({}); } catch (e: any) { gotErr = e.code + " " + e.message; }
try { want = JSON.parse(text); } catch (e: any) { wantErr = "CODE_MODE_SERIALIZATION_ERROR The output of tool \"value\" cannot be parsed: " + e.message; }
if (gotErr !== "" || wantErr !== "") return gotErr === wantErr ? "same error" : "got " + gotErr + ", want " + wantErr;
const diff = (a: any, b: any, path: string): string => {
  if (typeof a !== typeof b) return path + ": " + typeof a + " vs " + typeof b;
  if (a === null || typeof a !== "object") return Object.is(a, b) ? "" : path + ": " + String(a) + " vs " + String(b);
  if (b === null) return path + ": object vs null";
  if (Object.getPrototypeOf(a) !== Object.getPrototypeOf(b)) return path + ": prototype";
  if (Array.isArray(a) !== Array.isArray(b)) return path + ": array";
  const ka = Reflect.ownKeys(a), kb = Reflect.ownKeys(b);
  if (ka.join("\u0000") !== kb.join("\u0000")) return path + ": keys " + ka.join() + " vs " + kb.join();
  for (const k of ka) {
    const da: any = Object.getOwnPropertyDescriptor(a, k), db: any = Object.getOwnPropertyDescriptor(b, k);
    if (da.writable !== db.writable || da.enumerable !== db.enumerable || da.configurable !== db.configurable) return path + "." + String(k) + ": flags";
    const d = diff(da.value, db.value, path + "." + String(k));
    if (d !== "") return d;
  }
  return Object.isExtensible(a) === Object.isExtensible(b) ? "" : path + ": extensible";
};
return diff(got, want, "$") || "same";`

// compareWithParse runs sameAsParse for text in a realm of tmpl.
func compareWithParse(t *testing.T, tmpl realmTemplate, text string, limits Limits) report {
	t.Helper()
	return runSession(t, newTemplateSession(tmpl, &textLink{text: text}), sameAsParse, limits)
}

func TestBuiltToolOutputsMatchJSONParse(t *testing.T) {
	tmpl := newTestTemplate(t)
	for _, text := range []string{
		`null`, `true`, `false`, `0`, `-0`, `1`, `-1`, `2147483647`, `2147483648`, `-2147483648`, `-2147483649`,
		`999999999`, `1000000000`, `12345678901234567890`, `1.0`, `1e2`, `1E+2`, `-1e-2`, `0.1`, `1e400`, `-1e400`,
		`1e-400`, `4.9e-324`, `1.7976931348623157e308`, `0.30000000000000004`, `123.456e-7`,
		`""`, `"a"`, `"é"`, `"\u00e9\u4e2d\ud83d\ude00"`, `"\ud83d\ude00"`, `"😀 中文"`, `"\"\\\/\b\f\n\r\t"`,
		`"\u0000"`, `"a\u0000b"`, `"\ud800"`, `"\udc00x"`, `"\ud800\u0041"`,
		`[]`, `{}`, `[1,[2,[3,[]]]]`, ` [ 1 , 2 ] `, "\t{\n\"a\" :\r1}\n",
		`{"a":1,"b":2}`, `{"b":1,"a":2}`, `{"a":1,"a":2}`, `{"a":1,"b":2,"a":3}`, `{"2":1,"1":2,"x":3,"0":4}`,
		`{"4294967295":1,"4294967294":2,"-1":3,"01":4}`, `{"__proto__":{"polluted":1}}`, `{"constructor":1,"toString":2}`,
		`{"":1}`, `{"\u0061":1,"a":2}`, `{"é":{"é":[]}}`, `[{"id":1,"name":"x"},{"id":2,"name":"y"},{"name":"z","id":3}]`,
		strings.Repeat("[", maxBuildDepth) + strings.Repeat("]", maxBuildDepth),
		strings.Repeat("[", maxBuildDepth+1) + strings.Repeat("]", maxBuildDepth+1),
		strings.Repeat(`{"a":`, 100) + "1" + strings.Repeat("}", 100),
		`[` + strings.Repeat(`{"k":"v","n":[1,2.5,-3e9]},`, 1000) + `0]`,
		`"` + strings.Repeat("x", 100000) + `"`,
		`[1,`, `{"a":}`, `[1,2]x`, `01`, `1.`, `.5`, `-`, `+1`, `1e`, `NaN`, `'s'`, `{"a" 1}`, `{a:1}`, `[1 2]`,
		"\"\x01\"", "\"\xff\"", "\ufeff1", `tru`, `nul`,
	} {
		rep := compareWithParse(t, tmpl, text, Limits{})
		require.Equal(t, byte(reportValue), rep.kind, "%q: %v", text, rep.err)
		assert.Contains(t, []string{`"same"`, `"same error"`}, rep.value, "%q", text)
	}
}

func TestBuiltToolOutputsRespectLimits(t *testing.T) {
	tmpl := newTestTemplate(t)
	// Nesting the engine's stack cannot hold fails as it does in JSON.parse,
	// and so does running out of memory.
	deep := strings.Repeat("[", 500) + strings.Repeat("]", 500)
	rep := compareWithParse(t, tmpl, deep, Limits{Timeout: 30 * time.Second, StackBytes: 1})
	assert.Equal(t, report{kind: reportValue, value: `"same error"`}, rep)
	big := `[` + strings.Repeat(`{"k":"v","n":[1,2.5,-3e9]},`, 20000) + `0]`
	rep = runSession(t, newTemplateSession(tmpl, &textLink{text: big}),
		"try { await tools.value({}); return 'parsed' } catch (e: any) { return e === null ? 'null' : e.message }",
		Limits{Timeout: 30 * time.Second, MemoryBytes: 2 << 20})
	// The engine throws null when it cannot even make the error.
	assert.Contains(t, []report{{kind: reportValue, value: `"out of memory"`}, {kind: reportValue, value: `"null"`}}, rep)
	rep = runSession(t, newTemplateSession(tmpl, &textLink{text: big}),
		"const v = await tools.value({}); return v.length", Limits{Timeout: 30 * time.Second, MemoryBytes: 64 << 20})
	assert.Equal(t, report{kind: reportValue, value: `20001`}, rep)
}

// FuzzBuiltToolOutput checks that every text becomes the value JSON.parse
// makes of it, or fails as JSON.parse does.
func FuzzBuiltToolOutput(f *testing.F) {
	for _, seed := range []string{
		`null`, `-0`, `1e400`, `"\ud800"`, `{"a":1,"a":2}`, `{"__proto__":1}`, `{"1":1,"0":2}`, `[1,{"b":[true,false,null]}]`,
		`"\u00e9\ud83d\ude00"`, `123456789012`, `[1,`, "\"\xff\"",
	} {
		f.Add(seed)
	}
	tmpl, err := newPreludeTemplate(defaultEngine)
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, text string) {
		if !utf8.ValidString(text) {
			// Left to JSON.parse, after the same repair as before; the
			// comparison here would repair the text differently.
			return
		}
		rep := compareWithParse(t, tmpl, text, Limits{Timeout: 10 * time.Second, MemoryBytes: 16 << 20})
		if rep.kind == reportError && rep.err.Code == CodeMemoryLimit {
			return
		}
		require.Equal(t, byte(reportValue), rep.kind, "%q: %v", text, rep.err)
		assert.Contains(t, []string{`"same"`, `"same error"`}, rep.value, "%q", text)
	})
}
