package sandbox

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestMissingGlobals(t *testing.T) {
	got := mustRun(t, `
return [typeof eval, typeof process, typeof require, typeof module, typeof fetch, typeof setTimeout,
  typeof setInterval, typeof queueMicrotask, typeof crypto, typeof performance, typeof SharedArrayBuffer,
  typeof Atomics, typeof WeakRef, typeof FinalizationRegistry, typeof print, typeof std, typeof os,
  typeof __sandbox_call, typeof __sandbox_console, typeof __sandbox_done];`, Options{})
	assert.JSONEq(t, `["undefined","undefined","undefined","undefined","undefined","undefined",
"undefined","undefined","undefined","undefined","undefined","undefined","undefined","undefined",
"undefined","undefined","undefined","undefined","undefined","undefined"]`, got)

	got = mustRun(t, `return Object.getOwnPropertyNames(globalThis).filter(n => n.startsWith('__'))`, Options{})
	assert.JSONEq(t, `[]`, got)
}

func TestFunctionConstructorBlocked(t *testing.T) {
	for _, expr := range []string{
		"Function('return 1')",
		"new Function('return 1')",
		"(function () {}).constructor('return 1')",
		"(() => 1).constructor('return 1')",
		"(async function () {}).constructor('')",
		"(async () => {}).constructor('')",
		"(function* () {}).constructor('')",
		"(async function* () {}).constructor('')",
		"Object.getPrototypeOf(function* () {}).constructor('')",
		"Reflect.construct(Object.getPrototypeOf(async () => {}).constructor, [''])",
		"class A {}; A.constructor('')",
		"Math.max.constructor('')",
		"tools.x.constructor('')",
		"console.log.constructor('')",
		"eval('1')",
		"globalThis['ev' + 'al']('1')",
	} {
		got := mustRun(t, "try { "+expr+"; return 'ran' } catch (e) { return e.name }", Options{})
		if expr == "eval('1')" {
			assert.Equal(t, `"ReferenceError"`, got, expr)
			continue
		}
		assert.Equal(t, `"TypeError"`, got, expr)
	}
	// Functions still work and still are functions.
	got := mustRun(t, "const f = function () {}; return [f instanceof Function, typeof Function, Function.prototype.call === f.call, (x => x * 2)(2)]", Options{})
	assert.JSONEq(t, `[true, "function", true, 4]`, got)
}

func TestIntrinsicsFrozen(t *testing.T) {
	got := mustRun(t, `
return [Object.prototype, Array.prototype, Function.prototype, Promise.prototype, Promise, JSON, Math,
  Object, Array, Error.prototype, TypeError.prototype, Reflect, Symbol, RegExp.prototype, Map.prototype,
  Object.getPrototypeOf(Int8Array), Object.getPrototypeOf([][Symbol.iterator]()),
  Object.getPrototypeOf(function* () {}), console, console.log]
  .map(o => Object.isFrozen(o));`, Options{})
	assert.JSONEq(t, `[true,true,true,true,true,true,true,true,true,true,true,true,true,true,true,true,true,true,true,true]`, got)

	// Assignments to frozen built-ins fail silently in sloppy code, built-in
	// globals cannot be replaced, and common own-property assignments still
	// work.
	got = mustRun(t, `
Array.prototype.hacked = 1;
JSON.parse = () => 'evil';
Math = null;
globalThis.Promise = null;
const o: any = {};
o.toString = () => 'mine';
const e: any = new Error('m');
e.name = 'Renamed';
e.message = 'changed';
class Custom extends Error { constructor() { super('c'); this.name = 'Custom'; } }
return [[].hacked, JSON.parse('1'), typeof Math, typeof Promise, String(o), String(e), String(new Custom())];`, Options{})
	assert.JSONEq(t, `[null, 1, "object", "function", "mine", "Renamed: changed", "Custom: c"]`, got)

	// Strict code gets the usual TypeError.
	got = mustRun(t, `'use strict'; try { (Array.prototype as any).x = 1; return 'assigned' } catch (e) { return e.name }`, Options{})
	assert.Equal(t, `"TypeError"`, got)
}

func TestNothingReachableIsLeftUnfrozen(t *testing.T) {
	// Walk every object reachable from the global object, through property
	// values, accessors and prototypes, plus the hidden intrinsics, and list
	// the ones that are not frozen. Plain built-in functions (not
	// constructors) are allowed to stay unfrozen; they own only length and
	// name.
	got := mustRun(t, `
const P = Object.getPrototypeOf;
const roots: any[] = [globalThis, P(function* () {}), P(async function () {}), P(async function* () {}),
  P([][Symbol.iterator]()), P(new Map()[Symbol.iterator]()), P(new Set()[Symbol.iterator]()), P(''[Symbol.iterator]()),
  P(/a/g[Symbol.matchAll]('')), P(P((function* () {})())), P(P((async function* () {})())), P([].values().map((x: any) => x)),
  P(Iterator.from({ next() { return { done: true, value: undefined } } })), tools.x];
const call = tools.x({}); roots.push(P(call)); await call;
const seen = new Set<any>();
const open: string[] = [];
const stack: [any, string][] = roots.map((r, i) => [r, 'root' + i]);
while (stack.length) {
  const [o, path] = stack.pop()!;
  if (o === null || (typeof o !== 'object' && typeof o !== 'function') || seen.has(o)) continue;
  seen.add(o);
  if (o === tools) continue;
  const plainFunction = typeof o === 'function' && !Object.prototype.hasOwnProperty.call(o, 'prototype');
  if (!Object.isFrozen(o) && !plainFunction && o !== globalThis) open.push(path);
  stack.push([Object.getPrototypeOf(o), path + '.__proto__']);
  for (const k of Reflect.ownKeys(o)) {
    const d = Object.getOwnPropertyDescriptor(o, k)!;
    const name = path + '.' + String(k);
    if ('value' in d) stack.push([d.value, name]);
    else { stack.push([d.get, name + '<get>']); stack.push([d.set, name + '<set>']); }
  }
}
return { open, count: seen.size };`, Options{CallTool: echo})
	assert.Contains(t, got, `"open":[]`)
}

func TestRunsAreIsolated(t *testing.T) {
	mustRun(t, `
globalThis.leak = 1;
(globalThis as any).Array.prototype.hacked = 1;
try { Object.defineProperty(Object.prototype, 'polluted', { value: 1 }) } catch (e) {}
return 1;`, Options{})
	got := mustRun(t, "return [typeof (globalThis as any).leak, typeof ([] as any).hacked, typeof ({} as any).polluted]", Options{})
	assert.JSONEq(t, `["undefined","undefined","undefined"]`, got)
}

func TestPrototypeTamperingCannotReachBridge(t *testing.T) {
	// Attempts to intercept the prelude's own machinery fail, and tool calls
	// keep working.
	got := mustRun(t, `
const attempts = [
  () => { (Promise.prototype as any).then = () => 'hijacked'; },
  () => { Object.defineProperty(Promise.prototype, 'then', { value: () => 0 }); },
  () => { (JSON as any).stringify = () => '{"evil":1}'; },
  () => { Object.setPrototypeOf(tools, {}); },
  () => { Object.defineProperty(tools, 'x', { value: 1 }); },
  () => { (Map.prototype as any).get = () => undefined; },
];
const failed = attempts.map(f => { try { f(); return false; } catch (e) { return true; } });
return { failed, value: await tools.echo({ ok: true }) };`, Options{CallTool: echo})
	assert.JSONEq(t, `{"failed":[false,true,false,true,true,false],"value":{"ok":true}}`, got)
}

func TestFrozenRootsAreDataProperties(t *testing.T) {
	// The prelude reads global bindings and the prototype property of
	// built-in functions as plain values and makes the global bindings
	// read-only with a descriptor that has no value: both are only right
	// for data properties. Check that the bare engine has no accessor there.
	rlm, err := defaultEngine.newRealm(prewarmLimits)
	require.NoError(t, err)
	defer rlm.close()
	var got string
	require.NoError(t, rlm.define("report", func(args []string) string { got = args[0]; return "" }))
	_, err = rlm.evalFunction(`
const accessors = [];
for (const k of Reflect.ownKeys(globalThis)) {
  const d = Object.getOwnPropertyDescriptor(globalThis, k);
  if (!('value' in d)) accessors.push(String(k));
  else if (typeof d.value === 'function') {
    const p = Object.getOwnPropertyDescriptor(d.value, 'prototype');
    if (p !== undefined && !('value' in p)) accessors.push(String(k) + '.prototype');
  }
}
report(JSON.stringify(accessors));
(function () {})`, "probe.js", false)
	require.NoError(t, err)
	assert.Equal(t, "[]", got)
}

// realmProbe describes the state of a fresh realm that programs could
// change: global bindings, the keys and flags of the main prototypes and
// what a few common operations do.
const realmProbe = `
const P = (o: any) => Reflect.ownKeys(o).map(String).sort().join(",");
return {
  globals: P(globalThis),
  object: P(Object.prototype), array: P(Array.prototype), fn: P(Function.prototype),
  promise: P(Promise.prototype), error: P(Error.prototype), string: P(String.prototype),
  frozen: [Object.prototype, Array.prototype, Promise.prototype, JSON, Math].every(o => Object.isFrozen(o)),
  ops: [String({}), [1, 2].map(x => x * 2).join(), JSON.stringify({ a: [1] }), typeof tools.x, String(new Error("m"))],
};`

// tampering are programs that change, or try to change, their realm.
var tampering = []struct {
	src    string
	limits Limits
}{
	{src: "globalThis.leak = 1; (globalThis as any).Array.prototype.hacked = 1; return 1"},
	{src: "var v = 1; function f() {} (globalThis as any).g = f; return v"},
	{src: "try { Object.defineProperty(Object.prototype, 'polluted', { value: 1 }) } catch (e) {} return 1"},
	{src: "try { (Object.prototype as any).__proto__ = { evil: 1 } } catch (e) {} return 1"},
	{src: "(Error.prototype as any).name = 'Hacked'; (Promise.prototype as any).then = null; return 1"},
	{src: "Object.defineProperty(globalThis, 'Symbol', { value: 1 }); return 1"},
	{src: "using x = null; class A { @((v: any) => v) m() {} } return 1"},
	{src: "const a: any[] = []; while (true) a.push({})", limits: Limits{Timeout: 30 * time.Second, MemoryBytes: 4 << 20}},
	{src: "while (true) {}", limits: Limits{Timeout: 50 * time.Millisecond}},
	{src: "function f(): any { return f() } return f()"},
	{src: "await new Promise(() => {})"},
	{src: "throw new Error('x')"},
	{src: "return ; }"},
	{src: "tools.x({}); return 1"},
	{src: "console.log(globalThis); (console as any).log = null; return 1"},
	{src: "Symbol.for('registered'); (globalThis as any)[Symbol.for('k')] = 1; return 1"},
	{src: "const m = new Map(); for (let i = 0; i < 20000; i++) m.set('atom' + i, { ['key' + i]: i }); return m.size"},
}

func TestManyRunsStayIsolated(t *testing.T) {
	base := mustRun(t, realmProbe, Options{})
	rounds := 3
	if raceEnabled {
		rounds = 1
	}
	for i := 0; i < rounds; i++ {
		for _, tc := range tampering {
			limits := tc.limits
			if limits == (Limits{}) {
				limits = quick
			}
			_, _ = Run(context.Background(), Options{Source: tc.src, Limits: limits, CallTool: echo})
			assert.Equal(t, base, mustRun(t, realmProbe, Options{}), "after %q", tc.src)
		}
	}
}

func TestMemoryOfEarlierRunsIsNotCounted(t *testing.T) {
	// Each run may use most of its limit, whatever the runs before it did,
	// including one that ran out of memory.
	const limit = 16 << 20
	limits := Limits{Timeout: 30 * time.Second, MemoryBytes: limit}
	big := fmt.Sprintf("const a = new Uint8Array(%d); a.fill(1); return a.length", limit*6/10)
	for i := 0; i < 3; i++ {
		assert.Equal(t, fmt.Sprint(limit*6/10), mustRun(t, big, Options{Limits: limits}), "run %d", i)
	}
	e := runErr(t, fmt.Sprintf("const a = new Uint8Array(%d); return a.length", limit*2), Options{Limits: limits})
	assert.Equal(t, CodeMemoryLimit, e.Code)
	assert.Equal(t, fmt.Sprint(limit*6/10), mustRun(t, big, Options{Limits: limits}))
}

func TestCyclicGarbageIsCollectedBeforeTheLimit(t *testing.T) {
	// Far more cyclic garbage than the limit allows at once: the engine's
	// cycle collector must run before the limit is reached.
	src := `
let kept = 0;
for (let i = 0; i < 1200; i++) {
  const a: any = { pad: new Array(400).fill(i) };
  const b: any = { a };
  a.b = b;
  kept += a.b.a.pad[399];
}
return kept;`
	for _, limit := range []int{1 << 20, 4 << 20} {
		assert.Equal(t, "719400", mustRun(t, src, Options{Limits: Limits{Timeout: time.Minute, MemoryBytes: limit}}), "limit %d", limit)
	}
}
