package sandbox

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestConcurrencyLimit(t *testing.T) {
	prev := SetMaxConcurrentRuns(2)
	defer SetMaxConcurrentRuns(prev)
	assert.Equal(t, 2, MaxConcurrentRuns())

	started := make(chan struct{}, 2)
	release := make(chan struct{})
	tool := func(ctx context.Context, _ ToolCall) (json.RawMessage, error) {
		started <- struct{}{}
		select {
		case <-release:
			return json.RawMessage(`1`), nil
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	errs := make(chan error, 2)
	for range 2 {
		go func() {
			_, err := Run(context.Background(), Options{Source: "return await tools.hold({})", CallTool: tool, Limits: quick})
			errs <- err
		}()
	}
	for range 2 {
		select {
		case <-started:
		case <-time.After(promptly(10 * time.Second)):
			t.Fatal("the runs did not start")
		}
	}
	// A third run is refused at once, not queued.
	start := time.Now()
	e := runErr(t, "return 1", Options{})
	assert.Equal(t, CodeConcurrencyLimit, e.Code)
	assert.Equal(t, "CodeModeConcurrencyError", e.Name)
	assert.Equal(t, 2, e.Details["maxConcurrentRuns"])
	assert.Less(t, time.Since(start), promptly(100*time.Millisecond))

	close(release)
	for range 2 {
		assert.NoError(t, <-errs)
	}
	assert.Equal(t, "1", mustRun(t, "return 1", Options{}))

	// n <= 0 restores the default.
	SetMaxConcurrentRuns(0)
	assert.Equal(t, DefaultMaxConcurrentRuns(), MaxConcurrentRuns())
	assert.GreaterOrEqual(t, DefaultMaxConcurrentRuns(), 1)
	assert.LessOrEqual(t, DefaultMaxConcurrentRuns(), 32)
}

func TestErrorsAreCapped(t *testing.T) {
	const limit = 8 << 10
	e := runErr(t, `throw new Error("x".repeat(30 * 1024 * 1024))`, Options{Limits: Limits{Timeout: time.Minute, MemoryBytes: 256 << 20}})
	assert.Equal(t, CodeUserError, e.Code)
	assert.LessOrEqual(t, len(e.Message), limit)
	assert.True(t, strings.HasSuffix(e.Message, "... (31457280 characters in all)"), e.Message[len(e.Message)-60:])

	e = runErr(t, `const err = new Error("m"); err.name = "N".repeat(100000); throw err`, Options{})
	assert.LessOrEqual(t, len(e.Name), 256+40)

	e = runErr(t, `throw "é".repeat(5000)`, Options{Limits: Limits{Timeout: time.Minute, MaxErrorMessageBytes: 1000}})
	assert.LessOrEqual(t, len(e.Message), 1000)
	assert.True(t, strings.HasPrefix(e.Message, "éé"))
	assert.True(t, strings.ToValidUTF8(e.Message, "?") == e.Message, "cut inside a character")

	// A host error is capped too, for the program and for the caller.
	long := &Error{Code: CodeToolError, Message: strings.Repeat("y", 100000)}
	tool := func(context.Context, ToolCall) (json.RawMessage, error) { return nil, long }
	got := mustRun(t, "try { await tools.x({}) } catch (e) { return e.message.length }", Options{CallTool: tool})
	var n int
	require.NoError(t, json.Unmarshal([]byte(got), &n))
	assert.LessOrEqual(t, n, limit)
	e = runErr(t, "await tools.x({})", Options{CallTool: tool})
	assert.LessOrEqual(t, len(e.Message), limit)
	assert.True(t, strings.HasSuffix(e.Message, "... (100000 bytes in all)"), e.Message[len(e.Message)-60:])

	// An error under the limit is the host's own value.
	short := &Error{Code: CodeToolError, Message: "short"}
	_, err := runJS(t, "await tools.x({})", Options{CallTool: func(context.Context, ToolCall) (json.RawMessage, error) { return nil, short }})
	assert.Same(t, short, errors.Unwrap(fmt.Errorf("%w", err)))
}

func TestConsoleStopsAtItsItemLimit(t *testing.T) {
	// An array of a million numbers fits the default memory limit, but a
	// string for each of its indices does not.
	n, m := 1_000_000, 200_000
	if raceEnabled {
		n, m = 300_000, 50_000
	}
	res, err := runJS(t, fmt.Sprintf(`
console.log(Array.from({ length: %[1]d }, (_, i) => i));
const m = new Map(); for (let i = 0; i < %[2]d; i++) m.set(i, i);
console.log(m);
const s = new Set(); for (let i = 0; i < %[2]d; i++) s.add(i);
console.log(s);
console.log(new Uint8Array(%[1]d));
return "ok";`, n, m), Options{Limits: Limits{Timeout: promptly(time.Minute)}})
	require.NoError(t, err)
	assert.Equal(t, `"ok"`, string(res.Value))
	require.Len(t, res.Console, 4)
	last := res.Console[0].Text[max(len(res.Console[0].Text)-60, 0):]
	assert.True(t, strings.HasSuffix(last, fmt.Sprintf("99, ... %d more items ]", n-100)), last)
	assert.True(t, strings.HasPrefix(res.Console[1].Text, fmt.Sprintf("Map(%d) { 0 => 0", m)))
	assert.Contains(t, res.Console[1].Text, fmt.Sprintf("... %d more items", m-100))
	assert.Contains(t, res.Console[2].Text, fmt.Sprintf("... %d more items", m-100))
	assert.Contains(t, res.Console[3].Text, fmt.Sprintf("... %d more items", n-100))
}

func TestStackTraces(t *testing.T) {
	src := `function inner(x: number): number {
  if (x > 1) {
    throw new TypeError("too big: " + x);
  }
  return x;
}
const outer = (x: number) => [x].map(inner)[0];
return outer(5);`
	e := runErr(t, src, Options{})
	assert.Equal(t, "TypeError", e.Name)
	assert.Equal(t, strings.Join([]string{
		"    at inner (code-mode.js:3:24)",
		"    at map (native)",
		"    at outer (code-mode.js:7:37)",
		"    at <anonymous> (code-mode.js:8:13)",
	}, "\n"), e.Details["stack"])

	// On the first line the wrapper's columns are taken off, and after an
	// await the frames are still the program's.
	e = runErr(t, `await null; null.x`, Options{})
	assert.Equal(t, "    at <anonymous> (code-mode.js:1:17)", e.Details["stack"])

	// Inside the program, frames name the program's lines too.
	got := mustRun(t, "\n\ntry { null.x } catch (e) { return e.stack.split('\\n')[0] }", Options{})
	assert.Equal(t, `"    at <anonymous> (code-mode.js:3:11)"`, got)

	// Errors without frames of the program have no stack.
	e = runErr(t, "throw 'plain'", Options{})
	assert.Nil(t, e.Details)
}

func TestOnlyGenuineMemoryExhaustionIsAMemoryError(t *testing.T) {
	for _, src := range []string{
		"throw null",
		"await null; throw null",
		"return Promise.reject(null)",
		`throw new InternalError("out of memory")`,
		`const e = new InternalError("out of memory"); delete e.stack; throw e`,
		`throw Object.setPrototypeOf(new Error("out of memory"), InternalError.prototype)`,
		`throw { name: "InternalError", message: "out of memory" }`,
	} {
		e := runErr(t, src, Options{})
		assert.Equal(t, CodeUserError, e.Code, src)
	}
	// Running out of memory and then throwing null still is.
	limits := Limits{Timeout: time.Minute, MemoryBytes: 4 << 20}
	e := runErr(t, "const a = []; try { for (;;) a.push({}) } catch (e) { throw e }", Options{Limits: limits})
	assert.Equal(t, CodeMemoryLimit, e.Code)
	e = runErr(t, "function fill() { const a = []; for (;;) a.push({ n: a.length }) } fill()", Options{Limits: limits})
	assert.Equal(t, CodeMemoryLimit, e.Code)
}

func TestFrozenBuiltinsFailSilentlyInSloppyCode(t *testing.T) {
	got := mustRun(t, `
Error.prototype.toString = () => "x";
Object.prototype.toString = () => "y";
Object.prototype.hasOwnProperty = () => true;
Array.prototype.toString = () => "z";
return [String(new Error("m")), String({}), ({}).hasOwnProperty("q"), String([1, 2])];`, Options{})
	assert.JSONEq(t, `["Error: m", "[object Object]", false, "1,2"]`, got)
}
