package sandbox

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestReturnValues(t *testing.T) {
	for _, tc := range []struct {
		src, want string
	}{
		{"return 1 + 1", "2"},
		{"const x = 1; return x + 1;", "2"},
		{"return 'a' + 'b'", `"ab"`},
		{"return { v: Infinity, f: () => 1 }", `{"v":null}`},
		{"return [NaN, undefined, () => 1]", `[null,null,null]`},
		{"return null", "null"},
		{"return new Date(0)", `"1970-01-01T00:00:00.000Z"`},
		{"return { toJSON() { return 7 } }", "7"},
		{"const r = await Promise.resolve(3); return r * 2", "6"},
		{"return 'é€😀'", `"é€😀"`},
	} {
		t.Run(tc.src, func(t *testing.T) {
			assert.JSONEq(t, tc.want, mustRun(t, tc.src, Options{}))
		})
	}
}

func TestUndefinedResult(t *testing.T) {
	for _, src := range []string{"", "return", "return undefined", "return () => 1", "const x = 1;"} {
		res, err := runJS(t, src, Options{})
		require.NoError(t, err, src)
		assert.Nil(t, res.Value, src)
	}
}

func TestTypeScript(t *testing.T) {
	src := `
interface Item { id: string; units: number }
type Pair<A, B> = [A, B];
function first<T>(xs: T[]): T | undefined { return xs[0]; }
const items: Item[] = [{ id: "a", units: 2 }, { id: "b", units: 3 }];
const pair: Pair<string, number> = ["n", 1];
const total = items.reduce((n: number, it: Item) => n + it.units, 0) satisfies number;
class Box<T> { constructor(private readonly value: T) {} get(): T { return this.value; } }
enum Color { Red, Green }
const v = new Box<number>(total).get() as number;
return { first: first<Item>(items)!.id, total: v, pair, green: Color.Green };
`
	assert.JSONEq(t, `{"first":"a","total":5,"pair":["n",1],"green":1}`, mustRun(t, src, Options{}))
}

func TestSyntaxErrors(t *testing.T) {
	e := runErr(t, "return ; }", Options{})
	assert.Equal(t, CodeUserError, e.Code)
	assert.Equal(t, "SyntaxError", e.Name)
	assert.True(t, strings.HasPrefix(e.Error(), "SyntaxError: "), e.Error())

	e = runErr(t, "const x = ;\nreturn x", Options{})
	assert.Equal(t, "SyntaxError", e.Name)
	assert.Equal(t, 1, e.Details["line"])
	assert.Contains(t, e.Message, "line 1")

	e = runErr(t, "let a = 1\nlet b = (", Options{})
	assert.Equal(t, "SyntaxError", e.Name)

	e = runErr(t, "namespace N { export const a = 1 }\nreturn N.a", Options{})
	assert.Equal(t, "SyntaxError", e.Name)

	for _, src := range []string{"import x from 'y'\nreturn x", "import { a } from 'b'; return a", "export const a = 1"} {
		e = runErr(t, src, Options{})
		assert.Equal(t, CodeUserError, e.Code, src)
		assert.Equal(t, "SyntaxError", e.Name, src)
		assert.Contains(t, e.Message, "import and export", src)
	}
}

func TestUserErrors(t *testing.T) {
	e := runErr(t, "throw new Error('x')", Options{})
	assert.Equal(t, CodeUserError, e.Code)
	assert.Equal(t, "Error", e.Name)
	assert.Equal(t, "x", e.Message)
	assert.Equal(t, "Error: x", e.Error())

	e = runErr(t, "const o = {}; o.f()", Options{})
	assert.Equal(t, CodeUserError, e.Code)
	assert.Equal(t, "TypeError", e.Name)
	assert.Contains(t, e.Message, "not a function")

	e = runErr(t, "await null; undefinedVariable", Options{})
	assert.Equal(t, "ReferenceError", e.Name)

	e = runErr(t, "class MyError extends Error { constructor(m: string) { super(m); this.name = 'MyError'; } }\nthrow new MyError('custom')", Options{})
	assert.Equal(t, "MyError", e.Name)
	assert.Equal(t, "custom", e.Message)

	e = runErr(t, "throw 'plain'", Options{})
	assert.Equal(t, CodeUserError, e.Code)
	assert.Equal(t, "Error", e.Name)
	assert.Equal(t, "plain", e.Message)

	e = runErr(t, "throw { reason: 1 }", Options{})
	assert.Equal(t, "{ reason: 1 }", e.Message)
}

func TestSerialization(t *testing.T) {
	e := runErr(t, "return 1n", Options{})
	assert.Equal(t, CodeSerialization, e.Code)
	assert.Contains(t, e.Message, "BigInt")

	e = runErr(t, "const o: any = {}; o.self = o; return o", Options{})
	assert.Equal(t, CodeSerialization, e.Code)

	e = runErr(t, "return 'abcdef'", Options{Limits: Limits{Timeout: 30 * time.Second, MaxResultBytes: 4}})
	assert.Equal(t, CodeSerialization, e.Code)
	assert.Equal(t, 8, e.Details["bytes"])
	assert.Equal(t, 4, e.Details["maxBytes"])
}

func TestLimitsValidation(t *testing.T) {
	l, err := Limits{}.Resolve()
	require.NoError(t, err)
	assert.Equal(t, DefaultLimits(), l)

	l, err = Limits{MaxToolCalls: 3}.Resolve()
	require.NoError(t, err)
	assert.Equal(t, 3, l.MaxToolCalls)
	assert.Equal(t, 30*time.Second, l.Timeout)

	for _, tc := range []struct {
		l     Limits
		field string
	}{
		{Limits{Timeout: -1}, "Limits.Timeout"},
		{Limits{MemoryBytes: -1}, "Limits.MemoryBytes"},
		{Limits{MaxConcurrentToolCalls: -5}, "Limits.MaxConcurrentToolCalls"},
	} {
		_, err := Run(context.Background(), Options{Source: "return 1", Limits: tc.l})
		var e *Error
		require.ErrorAs(t, err, &e)
		assert.Equal(t, CodeError, e.Code)
		assert.Contains(t, e.Message, tc.field)
		assert.Equal(t, tc.field, e.Details["field"])
	}
}

func TestSourceTooLarge(t *testing.T) {
	e := runErr(t, "return 'this is long'", Options{Limits: Limits{MaxSourceBytes: 10}})
	assert.Equal(t, CodeSourceTooLarge, e.Code)
	assert.Equal(t, 21, e.Details["bytes"])
	assert.Equal(t, 10, e.Details["maxBytes"])
	assert.Equal(t, "CodeModeSourceTooLargeError", e.Name)

	// Bytes, not characters.
	e = runErr(t, "return 'ééééé'", Options{Limits: Limits{MaxSourceBytes: 16}})
	assert.Equal(t, 19, e.Details["bytes"])
}

func TestTimeoutTightLoop(t *testing.T) {
	start := time.Now()
	e := runErr(t, "while (true) {}", Options{Limits: Limits{Timeout: 150 * time.Millisecond}})
	elapsed := time.Since(start)
	assert.Equal(t, CodeTimeout, e.Code)
	assert.Equal(t, "CodeModeTimeoutError", e.Name)
	assert.Equal(t, int64(150), e.Details["timeoutMs"])
	assert.GreaterOrEqual(t, elapsed, 150*time.Millisecond)
	assert.Less(t, elapsed, promptly(time.Second))

	// The next run is unaffected.
	assert.Equal(t, "2", mustRun(t, "return 1 + 1", Options{}))
}

func TestTimeoutVariants(t *testing.T) {
	limits := Limits{Timeout: 100 * time.Millisecond}
	for _, src := range []string{
		"for (;;) { try { while (true) {} } catch (e) {} }", // the interrupt cannot be caught
		"async function spin() { for (;;) await null; } await spin();",
		"const f = () => Promise.resolve().then(f); f(); await new Promise(() => {});",
		"let s = ''; for (;;) { s += 'x'; if (s.length > 1000) s = ''; }",
	} {
		start := time.Now()
		e := runErr(t, src, Options{Limits: limits})
		assert.Equal(t, CodeTimeout, e.Code, src)
		assert.Less(t, time.Since(start), promptly(time.Second), src)
	}
}

func TestTimeoutWhileWaitingForTool(t *testing.T) {
	// On a loaded machine a short timeout can pass before the program gets
	// to the call; then the run is repeated with a longer one.
	for timeout := 300 * time.Millisecond; ; timeout *= 2 {
		started := make(chan struct{})
		cancelled := make(chan struct{})
		tool := func(ctx context.Context, c ToolCall) (json.RawMessage, error) {
			close(started)
			<-ctx.Done()
			close(cancelled)
			return nil, ctx.Err()
		}
		start := time.Now()
		e := runErr(t, "return await tools.slow({})", Options{CallTool: tool, Limits: Limits{Timeout: timeout}})
		elapsed := time.Since(start)
		assert.Equal(t, CodeTimeout, e.Code)
		if !toolStarted(t, started, timeout) {
			continue
		}
		assert.Less(t, elapsed, timeout+promptly(700*time.Millisecond))
		waitClosed(t, cancelled, promptly(time.Second), "the tool's context to be cancelled")
		return
	}
}

// toolStarted reports whether a run that timed out after timeout had called
// its tool. When it had not, the program did not get to the call in time,
// which a loaded machine explains for short timeouts; the test fails only
// when that happens with a long one.
func toolStarted(t *testing.T, started <-chan struct{}, timeout time.Duration) bool {
	t.Helper()
	select {
	case <-started:
		return true
	default:
	}
	if timeout >= 20*time.Second {
		t.Fatalf("the program did not call its tool within %v", timeout)
	}
	return false
}

func TestMemoryLimit(t *testing.T) {
	limits := Limits{Timeout: time.Minute, MemoryBytes: 4 << 20}
	for _, src := range []string{
		"const a = []; while (true) a.push({ n: a.length });",
		"const a: string[] = []; while (true) a.push('x'.repeat(1000) + a.length);",
		"return 'x'.repeat(1 << 28).length",
		"const a = []; for (;;) a.push(new Array(10000).fill(1));",
	} {
		e := runErr(t, src, Options{Limits: limits})
		assert.Equal(t, CodeMemoryLimit, e.Code, src)
		assert.Equal(t, "CodeModeMemoryLimitError", e.Name)
		assert.Equal(t, 4<<20, e.Details["memoryBytes"])
	}
	// Recovering from running out of memory is allowed.
	assert.Equal(t, `"caught"`, mustRun(t, "try { 'x'.repeat(1 << 28) } catch (e) { return 'caught' }", Options{Limits: limits}))
	assert.Equal(t, "2", mustRun(t, "return 1 + 1", Options{}))
}

func TestStackOverflow(t *testing.T) {
	// The default stack, except under the race detector, where deep
	// recursion is very slow. The limits are generous because this is not
	// about time.
	limits := Limits{Timeout: time.Minute}
	if raceEnabled {
		limits.StackBytes = 512 << 10
	}
	got := mustRun(t, `
function f(n: number): number { return f(n + 1) + 1; }
try { f(0); } catch (e) { return [e instanceof InternalError, e.name, e.message]; }`, Options{Limits: limits})
	assert.JSONEq(t, `[true, "InternalError", "stack overflow"]`, got)

	small := Options{Limits: Limits{Timeout: time.Minute, StackBytes: 256 << 10}}
	e := runErr(t, "function f(): number { return f() } return f()", small)
	assert.Equal(t, CodeUserError, e.Code)
	assert.Equal(t, "InternalError", e.Name)
	assert.Equal(t, "stack overflow", e.Message)

	// A smaller stack limits the depth.
	depth := func(stackBytes int) int {
		res, err := runJS(t, "let d = 0; function f() { d++; f(); } try { f() } catch (e) {} return d", Options{Limits: Limits{Timeout: time.Minute, StackBytes: stackBytes}})
		require.NoError(t, err)
		var n int
		require.NoError(t, json.Unmarshal(res.Value, &n))
		return n
	}
	assert.Less(t, depth(128<<10), depth(512<<10))
}

func TestAbort(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(50*time.Millisecond, cancel)
	start := time.Now()
	_, err := Run(ctx, Options{Source: "while (true) {}", Limits: quick})
	var e *Error
	require.ErrorAs(t, err, &e)
	assert.Equal(t, CodeAborted, e.Code)
	assert.Equal(t, "CodeModeAbortedError", e.Name)
	assert.ErrorIs(t, err, context.Canceled)
	assert.Less(t, time.Since(start), promptly(time.Second))

	// Already cancelled.
	_, err = Run(ctx, Options{Source: "return 1"})
	require.ErrorAs(t, err, &e)
	assert.Equal(t, CodeAborted, e.Code)
}

func TestAbortWhileWaitingForTool(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	started := make(chan struct{})
	cancelled := make(chan struct{})
	tool := func(tctx context.Context, c ToolCall) (json.RawMessage, error) {
		close(started)
		<-tctx.Done()
		close(cancelled)
		return nil, tctx.Err()
	}
	go func() {
		<-started
		cancel()
	}()
	start := time.Now()
	_, err := Run(ctx, Options{Source: "await tools.wait({}); return 1", CallTool: tool, Limits: quick})
	var e *Error
	require.ErrorAs(t, err, &e)
	assert.Equal(t, CodeAborted, e.Code)
	assert.Less(t, time.Since(start), promptly(time.Second))
	waitClosed(t, cancelled, promptly(time.Second), "the tool's context to be cancelled")
}

func TestConsole(t *testing.T) {
	var streamed []ConsoleLine
	res, err := runJS(t, `
console.log('plain', 1, true, null, undefined);
console.info('%s has %d items costing %f (%i) %j %%', 'cart', 3, 1.5, 2.9, {a: 1});
console.debug({ a: [1, 'two', { b: { c: { d: 1 } } }], 'k-y': -0, s: Symbol('x') }, [1, , 3]);
console.error(new TypeError('bad'), new Map([['k', 1]]), new Set([1]), 10n);
console.warn(function named() {}, class K {}, () => 1, /re/g, new Date(0));
console.log('multi\nline');
const c: any = { name: 'c' }; c.self = c; console.log(c);
console.log(Object.create(null), new (class Point { x = 1 })(), new Uint8Array([1, 2]));
return 'ok';`, Options{Console: func(stream, line string) {
		streamed = append(streamed, ConsoleLine{stream, line})
	}})
	require.NoError(t, err)
	assert.Equal(t, `"ok"`, string(res.Value))
	want := []ConsoleLine{
		{"stdout", "plain 1 true null undefined"},
		{"stdout", `cart has 3 items costing 1.5 (2) {"a":1} %`},
		{"stdout", "{ a: [ 1, 'two', { b: [Object] } ], 'k-y': -0, s: Symbol(x) } [ 1, <1 empty item>, 3 ]"},
		{"stderr", "TypeError: bad Map(1) { 'k' => 1 } Set(1) { 1 } 10n"},
		{"stderr", "[Function: named] [class K] [Function (anonymous)] /re/g 1970-01-01T00:00:00.000Z"},
		{"stdout", "multi\nline"},
		{"stdout", "{ name: 'c', self: [Circular] }"},
		{"stdout", "[Object: null prototype] {} Point { x: 1 } Uint8Array(2) [ 1, 2 ]"},
	}
	assert.Equal(t, want, res.Console)
	assert.Equal(t, want, streamed)
}

func TestConsoleBudget(t *testing.T) {
	var streamed []string
	res, err := runJS(t, `
console.log('aaaa');          // 5 bytes with the newline
console.error('bbbb');        // 10
console.log('cccccccccc');    // 21: dropped
console.log('d');             // would fit, but everything after the first drop is dropped
for (let i = 0; i < 1000; i++) console.log('x'.repeat(100));
return 42;`, Options{
		Limits:  Limits{Timeout: 30 * time.Second, MaxConsoleBytes: 12},
		Console: func(_, line string) { streamed = append(streamed, line) },
	})
	require.NoError(t, err)
	assert.Equal(t, "42", string(res.Value))
	assert.Equal(t, []ConsoleLine{{"stdout", "aaaa"}, {"stderr", "bbbb"}}, res.Console)
	assert.Equal(t, []string{"aaaa", "bbbb"}, streamed)
}

func TestConsoleCallbackPanic(t *testing.T) {
	e := runErr(t, "console.log('x'); return 1", Options{Console: func(string, string) { panic("boom") }})
	assert.Equal(t, CodeError, e.Code)
	var pe *panicError
	assert.ErrorAs(t, e, &pe)
	// The next run works.
	assert.Equal(t, "1", mustRun(t, "console.log('x'); return 1", Options{}))
}

func TestStalledProgram(t *testing.T) {
	start := time.Now()
	e := runErr(t, "await new Promise(() => {}); return 1", Options{Limits: quick})
	assert.Equal(t, CodeError, e.Code)
	assert.Contains(t, e.Message, "never settle")
	assert.Less(t, time.Since(start), promptly(time.Second))
}

func TestErrorsAs(t *testing.T) {
	for _, src := range []string{"throw 1", "return 1n", "return ; }", "while(true){}"} {
		_, err := Run(context.Background(), Options{Source: src, Limits: Limits{Timeout: 50 * time.Millisecond}})
		var e *Error
		assert.True(t, errors.As(err, &e), src)
		assert.NotEmpty(t, e.Code)
	}
}

func TestErrorRendering(t *testing.T) {
	assert.Equal(t, "CodeModeTimeoutError: late", (&Error{Code: CodeTimeout, Message: "late"}).Error())
	assert.Equal(t, "Custom: m", (&Error{Code: CodeTimeout, Name: "Custom", Message: "m"}).Error())
	assert.Equal(t, "CodeModeError: m", (&Error{Code: "CODE_MODE_TOOL_APPROVAL_REQUIRED", Message: "m"}).Error())
	cause := errors.New("inner")
	assert.ErrorIs(t, &Error{Code: CodeError, Cause: cause}, cause)
}

func TestTinyMemoryLimit(t *testing.T) {
	// Too little memory even for the sandbox itself is still a memory error.
	e := runErr(t, "return 1", Options{Limits: Limits{Timeout: 30 * time.Second, MemoryBytes: 1}})
	assert.Equal(t, CodeMemoryLimit, e.Code)
	assert.Equal(t, "1", mustRun(t, "return 1", Options{Limits: Limits{Timeout: 30 * time.Second, MemoryBytes: 1 << 20}}))
}

func TestNewerSyntaxIsLowered(t *testing.T) {
	got := mustRun(t, `
function logged(value: any, context: any) { return value; }
class A { @logged m() { return 4 } }
using nothing = null;
return new A().m();`, Options{})
	assert.Equal(t, "4", got)
}

// A run given a seed and a time draws the same random numbers and sees the
// same clock every time; without them, the real clock and fresh numbers.
func TestReplaySeedAndTime(t *testing.T) {
	prog := `return [Math.random(), Math.random(), Date.now(), new Date().getTime(), Date(), new Date(5).getTime(), new Date() instanceof Date, typeof Date.parse]`
	at := time.Date(2026, 12, 5, 8, 0, 0, 0, time.UTC)
	run := func(seed uint64, tm time.Time) []any {
		res, err := Run(context.Background(), Options{Source: prog, Seed: seed, Time: tm})
		require.NoError(t, err)
		var out []any
		require.NoError(t, json.Unmarshal(res.Value, &out))
		return out
	}
	a, b := run(42, at), run(42, at)
	assert.Equal(t, a, b)
	assert.NotEqual(t, a[0], a[1])
	assert.Equal(t, float64(at.UnixMilli()), a[2])
	assert.Equal(t, float64(at.UnixMilli()), a[3])
	assert.Contains(t, a[4], "2026")
	assert.Equal(t, float64(5), a[5])
	assert.Equal(t, true, a[6])
	assert.Equal(t, "function", a[7])
	c := run(43, at)
	assert.NotEqual(t, a[0], c[0])

	free1, free2 := run(0, time.Time{}), run(0, time.Time{})
	assert.NotEqual(t, free1[0], free2[0])
	assert.InDelta(t, float64(time.Now().UnixMilli()), free1[2], float64(time.Minute/time.Millisecond))
}
