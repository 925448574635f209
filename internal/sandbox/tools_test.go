package sandbox

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestToolCall(t *testing.T) {
	rec := &recorder{fn: func(_ context.Context, c ToolCall) (json.RawMessage, error) {
		return json.RawMessage(`{"productId":"p1","availableUnits":42}`), nil
	}}
	got := mustRun(t, `
const r = await tools.getInventory({ productId: "p1", when: new Date(0), skip: undefined, f: () => 1 });
return r.availableUnits + 1;`, Options{CallTool: rec.call})
	assert.Equal(t, "43", got)
	calls := rec.snapshot()
	require.Len(t, calls, 1)
	assert.Equal(t, 1, calls[0].Seq)
	assert.Equal(t, "getInventory", calls[0].Name)
	assert.JSONEq(t, `{"productId":"p1","when":"1970-01-01T00:00:00.000Z"}`, string(calls[0].Input))
}

func TestToolInputs(t *testing.T) {
	rec := &recorder{}
	got := mustRun(t, `
return [await tools.a(), await tools.b(null), await tools.c(3), await tools["web-search"]("q"), await tools.d({}, "ignored")];`,
		Options{CallTool: rec.call})
	assert.JSONEq(t, `[{}, null, 3, "q", {}]`, got)
	calls := rec.snapshot()
	require.Len(t, calls, 5)
	assert.Equal(t, "web-search", calls[3].Name)
}

func TestToolOutputs(t *testing.T) {
	outputs := map[string]string{"undef": "", "num": "1.5", "str": `"s"`, "nested": `{"a":[1,{"b":null}]}`, "ws": " [ 1 ] "}
	tool := func(_ context.Context, c ToolCall) (json.RawMessage, error) {
		return json.RawMessage(outputs[c.Name]), nil
	}
	got := mustRun(t, `
return [typeof (await tools.undef({})), await tools.num({}), await tools.str({}), await tools.nested({}), await tools.ws({})];`,
		Options{CallTool: tool})
	assert.JSONEq(t, `["undefined", 1.5, "s", {"a":[1,{"b":null}]}, [1]]`, got)
}

func TestToolsObject(t *testing.T) {
	got := mustRun(t, `
const t1 = tools;
const awaited = await tools;
return {
  same: awaited === t1,
  then: typeof tools.then,
  sym: typeof (tools as any)[Symbol.iterator],
  fn: typeof tools.anything,
  stable: tools.x === tools.x,
  name: tools.getThing.name,
  inOp: 'whatever' in tools,
  proto: Object.getPrototypeOf(tools),
  keys: Object.keys(tools).length,
  assign: Reflect.set(tools, 'x', 1),
  isPromise: await (async () => { const p = tools.q({}); const ok = p instanceof Promise; await p; return ok; })(),
};`, Options{CallTool: echo})
	assert.JSONEq(t, `{"same":true,"then":"undefined","sym":"undefined","fn":"function","stable":true,"name":"getThing","inOp":true,"proto":null,"keys":0,"assign":false,"isPromise":true}`, got)
}

func TestParallelCallsRunConcurrently(t *testing.T) {
	started := make(chan time.Time, 2)
	release := make(chan struct{})
	var finished atomic.Int32
	var bothStartedBeforeAnyFinished atomic.Bool
	var firstStart atomic.Int64
	tool := func(ctx context.Context, c ToolCall) (json.RawMessage, error) {
		started <- time.Now()
		<-release
		time.Sleep(100 * time.Millisecond)
		finished.Add(1)
		return json.RawMessage(fmt.Sprintf(`%q`, c.Name)), nil
	}
	go func() {
		// Both calls must be running before either is allowed to finish.
		first := <-started
		firstStart.Store(first.UnixNano())
		<-started
		bothStartedBeforeAnyFinished.Store(finished.Load() == 0)
		close(release)
	}()
	start := time.Now()
	got := mustRun(t, `
const [a, b] = await Promise.all([tools.first({}), tools.second({})]);
return a + b;`, Options{CallTool: tool, Limits: Limits{Timeout: 30 * time.Second}})
	end := time.Now()
	assert.Equal(t, `"firstsecond"`, got)
	assert.True(t, bothStartedBeforeAnyFinished.Load())
	// From the first tool starting to the program's result: one tool's
	// duration, not two. The engine's start-up is not part of it.
	span := end.Sub(time.Unix(0, firstStart.Load()))
	assert.GreaterOrEqual(t, span, 100*time.Millisecond)
	if !raceEnabled {
		assert.Less(t, span, 190*time.Millisecond, "two 100ms tools in parallel")
	}
	assert.Less(t, end.Sub(start), promptly(time.Second))
}

func TestSeqNumbering(t *testing.T) {
	rec := &recorder{}
	mustRun(t, `
await Promise.all([tools.a({}), tools.b({}), tools.c({})]);
await tools.d({});`, Options{CallTool: rec.call})
	calls := rec.snapshot()
	require.Len(t, calls, 4)
	seqs := map[string]int{}
	for _, c := range calls {
		seqs[c.Name] = c.Seq
	}
	parallel := []int{seqs["a"], seqs["b"], seqs["c"]}
	sort.Ints(parallel)
	assert.Equal(t, []int{1, 2, 3}, parallel)
	assert.Equal(t, 4, seqs["d"])
}

func TestDetachedNeverObserved(t *testing.T) {
	rec := &recorder{}
	e := runErr(t, "tools.x({}); return 'done'", Options{CallTool: rec.call})
	assert.Equal(t, CodeDetachedBridgeRequest, e.Code)
	assert.Equal(t, "x", e.Details["toolName"])
	assert.Contains(t, e.Message, `"x"`)
	assert.Empty(t, rec.snapshot(), "the host must never run an unobserved call")
}

func TestDetachedThenWithoutAwait(t *testing.T) {
	cancelled := make(chan struct{})
	tool := func(ctx context.Context, c ToolCall) (json.RawMessage, error) {
		<-ctx.Done()
		close(cancelled)
		return nil, ctx.Err()
	}
	e := runErr(t, "tools.x({}).then(() => {}); return 'done'", Options{CallTool: tool})
	assert.Equal(t, CodeDetachedBridgeRequest, e.Code)
	assert.Equal(t, "still-running", e.Details["reason"])
	waitClosed(t, cancelled, promptly(time.Second), "the tool's context to be cancelled")
}

func TestObservationForms(t *testing.T) {
	for _, src := range []string{
		"await tools.x({})",
		"await tools.x({}).then(v => v)",
		"await tools.x({}).catch(() => 0)",
		"await tools.x({}).finally(() => 0)",
		"await Promise.all([tools.x({})])",
		"await Promise.allSettled([tools.x({})])",
		"await Promise.race([tools.x({})])",
		"await Promise.any([tools.x({})])",
		"const p = tools.x({}); await 1; await p",
		"async function f() { return tools.x({}) } await f()",
	} {
		rec := &recorder{}
		_, err := runJS(t, src, Options{CallTool: rec.call})
		require.NoError(t, err, src)
		assert.Len(t, rec.snapshot(), 1, src)
	}
}

func TestHostErrorsRedacted(t *testing.T) {
	secret := errors.New("secret database password in here")
	tool := func(context.Context, ToolCall) (json.RawMessage, error) { return nil, secret }

	got := mustRun(t, `
try { await tools.x({}) } catch (e) { return [e instanceof Error, e.name, e.code, e.message, String(e)] }`,
		Options{CallTool: tool})
	assert.JSONEq(t, `[true, "CodeModeError", "CODE_MODE_HOST_TOOL_ERROR", "Host tool failed.", "CodeModeError: Host tool failed."]`, got)
	assert.NotContains(t, got, "secret")

	e := runErr(t, "await tools.x({})", Options{CallTool: tool})
	assert.Equal(t, CodeHostToolError, e.Code)
	assert.Equal(t, "Host tool failed.", e.Message)
	assert.NotContains(t, e.Error(), "secret")
	assert.ErrorIs(t, e, secret)

	// Invalid JSON from the host is a host failure too.
	bad := func(context.Context, ToolCall) (json.RawMessage, error) { return json.RawMessage(`{"a":`), nil }
	e = runErr(t, "await tools.x({})", Options{CallTool: bad})
	assert.Equal(t, CodeHostToolError, e.Code)
}

func TestHostSandboxErrorsKept(t *testing.T) {
	unknown := &Error{Code: CodeToolError, Name: "CodeModeToolError", Message: "Unknown tool: nope",
		Details: map[string]any{"toolName": "nope", "availableTools": []string{"a"}}}
	tool := func(context.Context, ToolCall) (json.RawMessage, error) {
		return nil, fmt.Errorf("wrapped: %w", unknown)
	}
	got := mustRun(t, `
try { await tools.nope({}) } catch (e) { return [e.name, e.code, e.message, e.details] }`, Options{CallTool: tool})
	assert.JSONEq(t, `["CodeModeToolError", "CODE_MODE_TOOL_ERROR", "Unknown tool: nope", {"toolName":"nope","availableTools":["a"]}]`, got)

	// Uncaught, the original error comes back, also when rethrown.
	for _, src := range []string{"await tools.nope({})", "try { await tools.nope({}) } catch (e) { throw e }"} {
		_, err := runJS(t, src, Options{CallTool: tool})
		var e *Error
		require.ErrorAs(t, err, &e)
		assert.Same(t, unknown, e, src)
	}

	// A new error with the same text is the program's own.
	e := runErr(t, "try { await tools.nope({}) } catch (e) { throw new Error(e.message) }", Options{CallTool: tool})
	assert.Equal(t, CodeUserError, e.Code)
	assert.Equal(t, "Unknown tool: nope", e.Message)

	// Codes the sandbox does not know pass through.
	approval := &Error{Code: "CODE_MODE_TOOL_APPROVAL_REQUIRED", Name: "CodeModeToolApprovalRequiredError", Message: "needs approval"}
	_, err := runJS(t, "await tools.x({})", Options{CallTool: func(context.Context, ToolCall) (json.RawMessage, error) { return nil, approval }})
	assert.Same(t, approval, errors.Unwrap(fmt.Errorf("%w", err)))
}

func TestNilCallTool(t *testing.T) {
	got := mustRun(t, "try { await tools.x({}) } catch (e) { return [e.code, e.message] }", Options{})
	assert.JSONEq(t, `["CODE_MODE_TOOL_ERROR", "Unknown tool: x"]`, got)
	e := runErr(t, "await tools.x({})", Options{})
	assert.Equal(t, CodeToolError, e.Code)
}

func TestToolPanicFailsRun(t *testing.T) {
	tool := func(context.Context, ToolCall) (json.RawMessage, error) { panic("tool exploded") }
	e := runErr(t, "try { await tools.x({}) } catch (e) { return 'caught' }", Options{CallTool: tool})
	assert.Equal(t, CodeError, e.Code)
	var pe *panicError
	require.ErrorAs(t, e, &pe)
	assert.Equal(t, "tool exploded", pe.value)
}

func TestUncaughtRejectionCancelsSiblings(t *testing.T) {
	cancelled := make(chan struct{})
	tool := func(ctx context.Context, c ToolCall) (json.RawMessage, error) {
		if c.Name == "fails" {
			return nil, &Error{Code: CodeToolError, Message: "no"}
		}
		<-ctx.Done()
		close(cancelled)
		return nil, ctx.Err()
	}
	start := time.Now()
	e := runErr(t, "await Promise.all([tools.slow({}), tools.fails({})])", Options{CallTool: tool, Limits: quick})
	assert.Equal(t, CodeToolError, e.Code)
	assert.Less(t, time.Since(start), promptly(time.Second))
	waitClosed(t, cancelled, promptly(time.Second), "the sibling's context to be cancelled")
}

func TestBridgeLimits(t *testing.T) {
	rec := &recorder{}
	e := runErr(t, "await tools.a({}); await tools.b({}); return 1", Options{CallTool: rec.call, Limits: Limits{Timeout: 30 * time.Second, MaxToolCalls: 1}})
	assert.Equal(t, CodeBridgeLimit, e.Code)
	assert.Equal(t, "MaxToolCalls", e.Details["limit"])
	assert.Len(t, rec.snapshot(), 1)

	// The limit cannot be caught.
	e = runErr(t, "await tools.a({}); try { await tools.b({}) } catch (e) {} return 1", Options{CallTool: rec.call, Limits: Limits{Timeout: 30 * time.Second, MaxToolCalls: 1}})
	assert.Equal(t, CodeBridgeLimit, e.Code)

	cancelled := make(chan struct{})
	slow := func(ctx context.Context, c ToolCall) (json.RawMessage, error) {
		<-ctx.Done()
		close(cancelled)
		return nil, ctx.Err()
	}
	e = runErr(t, "await Promise.all([tools.a({}), tools.b({})])", Options{CallTool: slow, Limits: Limits{Timeout: 30 * time.Second, MaxConcurrentToolCalls: 1}})
	assert.Equal(t, CodeBridgeLimit, e.Code)
	assert.Equal(t, "MaxConcurrentToolCalls", e.Details["limit"])
	waitClosed(t, cancelled, promptly(time.Second), "the call in flight to be cancelled")

	// Sequential calls do not count as concurrent.
	got := mustRun(t, "for (let i = 0; i < 5; i++) await tools.a({}); return 'ok'", Options{CallTool: echo, Limits: Limits{Timeout: 30 * time.Second, MaxConcurrentToolCalls: 1}})
	assert.Equal(t, `"ok"`, got)
}

func TestToolInputLimits(t *testing.T) {
	rec := &recorder{}
	opts := Options{CallTool: rec.call, Limits: Limits{Timeout: 30 * time.Second, MaxToolInputBytes: 4}}
	e := runErr(t, "await tools.x({ long: 'value' })", opts)
	assert.Equal(t, CodeSerialization, e.Code)
	assert.Equal(t, "x", e.Details["toolName"])
	got := mustRun(t, "try { await tools.x({ long: 'value' }) } catch (e) { return e.code }", opts)
	assert.Equal(t, `"CODE_MODE_SERIALIZATION_ERROR"`, got)
	assert.Empty(t, rec.snapshot())

	e = runErr(t, "const o: any = {}; o.o = o; await tools.x(o)", Options{CallTool: rec.call})
	assert.Equal(t, CodeSerialization, e.Code)
	e = runErr(t, "await tools.x({ n: 1n })", Options{CallTool: rec.call})
	assert.Equal(t, CodeSerialization, e.Code)
	assert.Empty(t, rec.snapshot())
}

func TestToolOutputLimit(t *testing.T) {
	tool := func(context.Context, ToolCall) (json.RawMessage, error) { return json.RawMessage(`"abcdefgh"`), nil }
	opts := Options{CallTool: tool, Limits: Limits{Timeout: 30 * time.Second, MaxToolOutputBytes: 4}}
	e := runErr(t, "await tools.x({})", opts)
	assert.Equal(t, CodeSerialization, e.Code)
	assert.Equal(t, 10, e.Details["bytes"])
}

func TestManyCallsAndLargeOutput(t *testing.T) {
	big := make([]int, 50000)
	for i := range big {
		big[i] = i
	}
	out, err := json.Marshal(big)
	require.NoError(t, err)
	tool := func(_ context.Context, c ToolCall) (json.RawMessage, error) {
		if c.Name == "big" {
			return out, nil
		}
		return c.Input, nil
	}
	got := mustRun(t, `
const xs = await tools.big({});
let sum = 0;
for (let k = 0; k < 200; k++) sum += (await tools.echo({ k })).k;
const par = await Promise.all(Array.from({ length: 30 }, (_, k) => tools.echo({ k })));
return [xs.length, xs.filter((x: number) => x % 2 === 0).length, sum, par.length];`, Options{CallTool: tool})
	assert.JSONEq(t, `[50000, 25000, 19900, 30]`, got)
}

func TestToolOutputTooDeepForTheEngine(t *testing.T) {
	deep := strings.Repeat("[", 9000) + strings.Repeat("]", 9000)
	tool := func(context.Context, ToolCall) (json.RawMessage, error) { return json.RawMessage(deep), nil }
	got := mustRun(t, "try { await tools.deep({}) } catch (e) { return [e.code, e.details.toolName] }",
		Options{CallTool: tool, Limits: Limits{Timeout: 30 * time.Second, StackBytes: 256 << 10}})
	assert.JSONEq(t, `["CODE_MODE_SERIALIZATION_ERROR", "deep"]`, got)
}

func TestLargeValuesOverLimits(t *testing.T) {
	// Values longer than their limit are refused in the guest, before being
	// copied to the host.
	limits := Limits{Timeout: 30 * time.Second, MaxResultBytes: 1000, MaxToolInputBytes: 1000, MaxConsoleBytes: 1000}
	e := runErr(t, "return 'x'.repeat(200_000)", Options{Limits: limits})
	assert.Equal(t, CodeSerialization, e.Code)
	assert.Equal(t, 200_002, e.Details["bytes"])
	assert.Contains(t, e.Message, "at least")

	rec := &recorder{}
	e = runErr(t, "await tools.x({ s: 'x'.repeat(200_000) })", Options{CallTool: rec.call, Limits: limits})
	assert.Equal(t, CodeSerialization, e.Code)
	assert.Empty(t, rec.snapshot())

	res, err := runJS(t, "console.log('x'.repeat(200_000)); console.log('after'); return 1", Options{Limits: limits})
	require.NoError(t, err)
	assert.Empty(t, res.Console)
}

func TestToolIgnoringCancellation(t *testing.T) {
	for timeout := 300 * time.Millisecond; ; timeout *= 2 {
		started := make(chan struct{})
		release := make(chan struct{})
		returned := make(chan struct{})
		tool := func(context.Context, ToolCall) (json.RawMessage, error) {
			defer close(returned)
			close(started)
			<-release // ignores its context
			return json.RawMessage(`1`), nil
		}
		start := time.Now()
		e := runErr(t, "return await tools.stuck({})", Options{CallTool: tool, Limits: Limits{Timeout: timeout}})
		elapsed := time.Since(start)
		assert.Equal(t, CodeTimeout, e.Code)
		if !toolStarted(t, started, timeout) {
			close(release)
			continue
		}
		assert.Less(t, elapsed, timeout+toolExitGrace+promptly(300*time.Millisecond), "Run must not wait for the tool")
		close(release)
		waitClosed(t, returned, promptly(time.Second), "the stuck tool to return")
		return
	}
}

func TestConcurrentRuns(t *testing.T) {
	const n = 8
	errs := make(chan error, n)
	for i := range n {
		go func() {
			res, err := Run(context.Background(), Options{
				Source: fmt.Sprintf(`
const xs = await Promise.all([tools.a({ i: %d }), tools.b({ i: %d })]);
console.log('run', %d);
return xs.map(x => x.i).reduce((a, b) => a + b, 0);`, i, i, i),
				CallTool: func(_ context.Context, c ToolCall) (json.RawMessage, error) {
					time.Sleep(time.Millisecond)
					return c.Input, nil
				},
				Limits: quick,
			})
			if err == nil && string(res.Value) != fmt.Sprint(2*i) {
				err = fmt.Errorf("run %d: got %s", i, res.Value)
			}
			errs <- err
		}()
	}
	for range n {
		assert.NoError(t, <-errs)
	}
}

func TestCallsAfterACallAwaitedAloneRunConcurrently(t *testing.T) {
	// The first call is awaited alone, so it holds the host's reading
	// goroutine; the two after it must still run at the same time: each
	// waits for the other to start.
	var mu sync.Mutex
	started := map[string]chan struct{}{"a": make(chan struct{}), "b": make(chan struct{})}
	tool := func(ctx context.Context, c ToolCall) (json.RawMessage, error) {
		if c.Name == "first" {
			return json.RawMessage(`1`), nil
		}
		other := map[string]string{"a": "b", "b": "a"}[c.Name]
		mu.Lock()
		close(started[c.Name])
		mu.Unlock()
		select {
		case <-started[other]:
			return json.RawMessage(`1`), nil
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	got := mustRun(t, `
const x = await tools.first({});
const [a, b] = await Promise.all([tools.a({}), tools.b({})]);
return x + a + b;`, Options{CallTool: tool, Limits: Limits{Timeout: 30 * time.Second}})
	assert.Equal(t, "3", got)
}

func TestCallsReachTheHostWhileTheProgramRunsOn(t *testing.T) {
	// A call observed early in a long stretch of JavaScript reaches the
	// host while that stretch still runs, not only when it ends.
	started := make(chan struct{})
	var once sync.Once
	tool := func(ctx context.Context, c ToolCall) (json.RawMessage, error) {
		once.Do(func() { close(started) })
		return json.RawMessage(`1`), nil
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		select {
		case <-started:
		case <-time.After(promptly(10 * time.Second)):
		}
		cancel()
	}()
	_, err := Run(ctx, Options{Source: `
const p = tools.early({});
p.then(() => {});
const end = Date.now() + 60000;
while (Date.now() < end) {}
return await p;`, CallTool: tool, Limits: Limits{Timeout: time.Minute}})
	var e *Error
	require.ErrorAs(t, err, &e)
	assert.Equal(t, CodeAborted, e.Code)
	select {
	case <-started:
	default:
		t.Fatal("the call did not reach the host while the program ran")
	}
}
