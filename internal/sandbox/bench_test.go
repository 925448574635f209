package sandbox

import (
	"context"
	"encoding/json"
	"errors"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	"go.uber.org/goleak"
)

func BenchmarkRunTrivial(b *testing.B) {
	b.ReportAllocs()
	ctx := context.Background()
	opts := Options{Source: "const x = 1; return x + 1;"}
	for b.Loop() {
		if _, err := Run(ctx, opts); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkRunTrivialUncached runs a different program every time, so that
// the TypeScript transform is never cached.
func BenchmarkRunTrivialUncached(b *testing.B) {
	b.ReportAllocs()
	ctx := context.Background()
	i := 0
	for b.Loop() {
		i++
		src := "const x: number = 1; return x + 1; // " + strconv.Itoa(i)
		if _, err := Run(ctx, Options{Source: src}); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkRun100Calls(b *testing.B) {
	b.ReportAllocs()
	ctx := context.Background()
	tool := func(_ context.Context, c ToolCall) (json.RawMessage, error) {
		var in struct {
			ProductID string `json:"productId"`
		}
		if err := json.Unmarshal(c.Input, &in); err != nil {
			return nil, err
		}
		return json.RawMessage(`{"productId":` + strconv.Quote(in.ProductID) + `,"availableUnits":42}`), nil
	}
	opts := Options{
		Source: `
let total = 0;
for (let k = 0; k < 100; k++) {
  const r = await tools.getInventory({ productId: "p" + k });
  total += r.availableUnits;
}
return total;`,
		CallTool: tool,
	}
	for b.Loop() {
		res, err := Run(ctx, opts)
		if err != nil {
			b.Fatal(err)
		}
		if string(res.Value) != "4200" {
			b.Fatalf("got %s", res.Value)
		}
	}
}

func FuzzRun(f *testing.F) {
	for _, seed := range []string{
		"return 1 + 1",
		"while (true) {}",
		"return ; }",
		"const a: number[] = []; for (;;) a.push(1)",
		"throw null",
		"await tools.x({})",
		"tools.x({}).then(() => {}); return 1",
		"console.log('%s %d %j', {}, [], 1n)",
		"function f(): any { return f() } return f()",
		"return new Proxy({}, { get() { throw 1 } })",
		"}); (function(){",
		"\x00\xff`${",
		"async function* g() { yield* g() } for await (const x of g()) {}",
		"throw new Error('x'.repeat(30 * 1024 * 1024))",
		"console.log(Array.from({ length: 1e6 }, (_, i) => i)); return 'ok'",
		"Error.prototype.toString = () => 'x'; return String(new Error('m'))",
		"throw new InternalError('out of memory')",
		"function f() { throw new TypeError('t') } [1].map(f)",
		strings.Repeat("{", 40000) + strings.Repeat("}", 40000),
		"x = " + strings.Repeat("(", 3000) + "1" + strings.Repeat(")", 3000),
		"x = " + strings.Repeat("`${", 2000) + "1" + strings.Repeat("}`", 2000),
		strings.Repeat("if (a) ", 5000) + ";",
		"x = " + strings.Repeat("!", 20000) + "a",
		"x = a" + strings.Repeat(".a", 10000),
		"return (\n 1\n)",
		"a\n++b",
	} {
		f.Add(seed)
	}
	for _, p := range runaways {
		f.Add(p.src)
	}
	tool := func(ctx context.Context, c ToolCall) (json.RawMessage, error) {
		if c.Name == "x" {
			return c.Input, nil
		}
		return nil, &Error{Code: CodeToolError, Message: "Unknown tool: " + c.Name}
	}
	f.Fuzz(func(t *testing.T, src string) {
		done := make(chan struct{})
		go func() {
			defer close(done)
			_, err := Run(context.Background(), Options{
				Source:   src,
				CallTool: tool,
				Limits:   Limits{Timeout: 100 * time.Millisecond, MemoryBytes: 8 << 20, StackBytes: 256 << 10, MaxConsoleBytes: 1024},
			})
			if err != nil {
				e, ok := err.(*Error)
				switch {
				case !ok:
					t.Errorf("error %T is not an *Error: %v", err, err)
				case strings.Contains(e.Message, "ended unexpectedly"):
					t.Errorf("the worker crashed: %v", e)
				}
			}
		}()
		select {
		case <-done:
		case <-time.After(20 * time.Second):
			t.Fatalf("Run did not return for %q", src)
		}
	})
}

// FuzzToolOutput hands arbitrary bytes to a program as the output of its
// tool calls: the run must end within its limits with an *Error or a result,
// never panic or leave a goroutine behind, and the program must see valid
// JSON as a value and anything else as a failed call.
func FuzzToolOutput(f *testing.F) {
	for _, seed := range []string{
		``, ` `, `null`, `1`, `-0`, `1e999`, `"s"`, `"\ud800"`, `"\u0000"`, "\"\xff\xfe\"", `{"a":[1,{"b":null}]}`,
		`{"__proto__":{"polluted":1},"constructor":{"prototype":1}}`, `{"a":1,"a":2}`, "\ufeff1", "1\x00", `[1,`, `{"a":}`,
		`NaN`, `undefined`, `'single'`, `[1,2,3]garbage`, `1 2`, "\t\n\r [ ] ",
		strings.Repeat("[", 5000) + strings.Repeat("]", 5000),
		strings.Repeat(`{"a":`, 3000) + "1" + strings.Repeat("}", 3000),
		strings.Repeat("[", 100),
		`[` + strings.Repeat(`"xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx",`, 3000) + `0]`,
		`"` + strings.Repeat("\\u00e9", 50000) + `"`,
		`"` + strings.Repeat("x", 1<<20) + `"`,
		`"` + strings.Repeat("x", 1<<20),
		`[` + strings.Repeat(`{"k":"v","n":[1,2.5,-3e9]},`, 1000) + `0]`,
	} {
		f.Add([]byte(seed))
	}
	const maxOutput = 1 << 20
	limits := Limits{
		Timeout:            2 * time.Second,
		MemoryBytes:        8 << 20,
		StackBytes:         256 << 10,
		MaxToolOutputBytes: maxOutput,
		MaxResultBytes:     4096,
		MaxConsoleBytes:    1024,
	}
	// The program reads the output three times, awaiting one call and then
	// two at once, walks each value and reports what it saw.
	src := `
const describe = (v: any) => {
  let nodes = 0;
  const stack = [v];
  while (stack.length > 0 && nodes < 2000) {
    const x = stack.pop();
    nodes++;
    if (x !== null && typeof x === "object") for (const k of Object.keys(x)) stack.push(x[k]);
  }
  let json: any;
  try { json = JSON.stringify(v); } catch (e) { json = "unserializable"; }
  return [typeof v, nodes, typeof json === "string" ? json.length : String(json)];
};
const read = async (name: string) => {
  try {
    return ["ok", ...describe(await tools[name]({}))];
  } catch (e: any) {
    return ["error", e === null ? "null" : String(e?.code)];
  }
};
const first = await read("a");
const [second, third] = await Promise.all([read("b"), read("c")]);
console.log(first, second);
return [first, second, third];`
	f.Fuzz(func(t *testing.T, output []byte) {
		defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
		tool := func(context.Context, ToolCall) (json.RawMessage, error) {
			return json.RawMessage(output), nil
		}
		type outcome struct {
			res *Result
			err error
		}
		done := make(chan outcome, 1)
		start := time.Now()
		go func() {
			res, err := Run(context.Background(), Options{Source: src, CallTool: tool, Limits: limits})
			done <- outcome{res, err}
		}()
		var o outcome
		select {
		case o = <-done:
		case <-time.After(promptly(20 * time.Second)):
			t.Fatalf("Run did not return for an output of %d bytes", len(output))
		}
		if d := time.Since(start); d > limits.Timeout+toolExitGrace+promptly(time.Second) {
			t.Errorf("Run took %v, more than its limit", d)
		}
		if o.err != nil {
			var e *Error
			if !errors.As(o.err, &e) {
				t.Fatalf("error %T is not an *Error: %v", o.err, o.err)
			}
			// The program catches every failed call; only running out of
			// memory or time can end it otherwise.
			switch e.Code {
			case CodeMemoryLimit, CodeTimeout, CodeUserError:
			default:
				t.Errorf("unexpected failure %s: %v", e.Code, e)
			}
			return
		}
		var reads [][]any
		if err := json.Unmarshal(o.res.Value, &reads); err != nil || len(reads) != 3 || len(reads[0]) < 2 {
			t.Fatalf("unreadable result %s: %v", o.res.Value, err)
		}
		for _, r := range reads[1:] {
			// The second and third read run at the same time and may
			// run out of memory where the first did not.
			if !reflect.DeepEqual(r, reads[0]) && !reflect.DeepEqual(r, []any{"error", "null"}) && !reflect.DeepEqual(r, []any{"error", "undefined"}) {
				t.Errorf("the same output was read differently: %s", o.res.Value)
			}
		}
		kind, detail := reads[0][0], reads[0][1]
		switch {
		case len(output) == 0:
			if kind != "ok" || detail != "undefined" {
				t.Errorf("empty output: got %v", reads[0])
			}
		case len(output) > maxOutput:
			// The size is checked first: an output over the limit is not
			// scanned at all.
			if kind != "error" || detail != CodeSerialization {
				t.Errorf("output over the limit: got %v", reads[0])
			}
		case !json.Valid(output):
			if kind != "error" || detail != CodeHostToolError {
				t.Errorf("invalid JSON %q: got %v", truncate(output), reads[0])
			}
		case kind == "error":
			// Valid JSON the engine cannot hold: too deep or too large.
			if detail != CodeSerialization && detail != "null" && detail != "undefined" {
				t.Errorf("valid JSON %q: got %v", truncate(output), reads[0])
			}
		}
	})
}

func truncate(b []byte) string {
	if len(b) > 200 {
		return string(b[:200]) + "..."
	}
	return string(b)
}
