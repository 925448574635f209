package sandbox

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	lib "modernc.org/libquickjs"
)

// echoLink answers every tool call of an in-process session with its
// input.
type echoLink struct {
	ready   []settlement
	console []string
}

func (l *echoLink) sendCall(id, seq int, name, input string) {
	l.ready = append(l.ready, settlement{id: id, kind: "ok", payload: input})
}

func (l *echoLink) sendConsole(stream, text string) { l.console = append(l.console, text) }

func (l *echoLink) next(time.Time, int) (settlement, bool) {
	if len(l.ready) == 0 {
		return settlement{}, false
	}
	st := l.ready[0]
	l.ready = l.ready[1:]
	return st, true
}

// runSession runs src in s under limits (quick where zero) and closes s.
func runSession(t *testing.T, s *session, src string, limits Limits) report {
	t.Helper()
	defer s.close()
	if limits == (Limits{}) {
		limits = quick
	}
	limits, err := limits.Resolve()
	require.NoError(t, err)
	tr, serr := transformSource(src)
	if serr != nil {
		return report{kind: reportError, err: serr}
	}
	return s.run(runRequest{script: tr.script, shift: tr.shift, limits: limits,
		deadline: time.Now().Add(limits.Timeout), hasTools: true})
}

func newTestTemplate(t *testing.T) *qjsTemplate {
	t.Helper()
	tmpl, err := newPreludeTemplate(defaultEngine)
	require.NoError(t, err)
	return tmpl.(*qjsTemplate)
}

// heapState is what the engine counts of its memory.
func (t *qjsTemplate) heapState() (count, size lib.Tsize_t) {
	ms := cptr[lib.TJSRuntime](t.rt).Fmalloc_ctx.Fmalloc_state
	return ms.Fmalloc_count, ms.Fmalloc_size
}

func TestPreludeTemplateFitsItsArena(t *testing.T) {
	// Workers build exactly this template; should the prelude outgrow the
	// arena, every run would build its own realm again.
	tmpl := newTestTemplate(t)
	assert.Less(t, len(tmpl.a.saved), arenaBytes/2)
}

func TestTemplateRealmsStartAsBuilt(t *testing.T) {
	// A realm from a template is the same as one built for the run,
	// whatever the runs before it on the same template did.
	fresh := runSession(t, newSession(defaultEngine, &echoLink{}), realmProbe, Limits{})
	require.Equal(t, byte(reportValue), fresh.kind, "%v", fresh.err)
	tmpl := newTestTemplate(t)
	count, size := tmpl.heapState()
	for _, tc := range tampering {
		runSession(t, newTemplateSession(tmpl, &echoLink{}), tc.src, tc.limits)
		assert.Empty(t, tmpl.a.outside, "after %q", tc.src)
		c, s := tmpl.heapState()
		assert.Equal(t, count, c, "after %q", tc.src)
		assert.Equal(t, size, s, "after %q", tc.src)
		got := runSession(t, newTemplateSession(tmpl, &echoLink{}), realmProbe, Limits{})
		assert.Equal(t, fresh, got, "after %q", tc.src)
	}
}

func TestTemplateRealmsSeeNoEarlierValues(t *testing.T) {
	tmpl := newTestTemplate(t)
	rep := runSession(t, newTemplateSession(tmpl, &echoLink{}), `
(globalThis as any).kept = { n: 1 };
(globalThis as any)[Symbol.for("kept")] = 2;
Object.defineProperty(globalThis, "hidden", { value: 3, enumerable: false });
return 1;`, Limits{})
	require.Equal(t, byte(reportValue), rep.kind, "%v", rep.err)
	rep = runSession(t, newTemplateSession(tmpl, &echoLink{}), `
return [typeof (globalThis as any).kept, typeof (globalThis as any)[Symbol.for("kept")],
  Object.getOwnPropertyNames(globalThis).includes("hidden"), "kept" in globalThis];`, Limits{})
	assert.Equal(t, report{kind: reportValue, value: `["undefined","undefined",false,false]`}, rep)
}

func TestTemplateRealmsHaveTheirOwnRandomSeed(t *testing.T) {
	// A copy of the template's memory would otherwise repeat the numbers
	// of every earlier run.
	tmpl := newTestTemplate(t)
	seen := map[string]bool{}
	for i := 0; i < 3; i++ {
		rep := runSession(t, newTemplateSession(tmpl, &echoLink{}), "return [Math.random(), Math.random()]", Limits{})
		require.Equal(t, byte(reportValue), rep.kind, "%v", rep.err)
		assert.False(t, seen[rep.value], "run %d repeats %s", i, rep.value)
		seen[rep.value] = true
	}
}

func TestTemplateRealmsKeepTheirLimits(t *testing.T) {
	tmpl := newTestTemplate(t)
	mem := Limits{Timeout: 30 * time.Second, MemoryBytes: 4 << 20}
	rep := runSession(t, newTemplateSession(tmpl, &echoLink{}), "const a: any[] = []; while (true) a.push({})", mem)
	require.Equal(t, byte(reportError), rep.kind)
	assert.Equal(t, CodeMemoryLimit, rep.err.Code)
	// The next run is not charged for that memory, and an error that looks
	// like running out of memory is the program's own again.
	rep = runSession(t, newTemplateSession(tmpl, &echoLink{}), "const a = new Uint8Array(3 << 20); return a.length", mem)
	assert.Equal(t, report{kind: reportValue, value: "3145728"}, rep)
	rep = runSession(t, newTemplateSession(tmpl, &echoLink{}), "throw new InternalError('out of memory')", mem)
	require.Equal(t, byte(reportError), rep.kind)
	assert.Equal(t, CodeUserError, rep.err.Code)

	rep = runSession(t, newTemplateSession(tmpl, &echoLink{}), "function f(): any { return f() } return f()", Limits{})
	require.Equal(t, byte(reportError), rep.kind)
	assert.Equal(t, "stack overflow", rep.err.Message)

	rep = runSession(t, newTemplateSession(tmpl, &echoLink{}), "while (true) {}", Limits{Timeout: 20 * time.Millisecond})
	assert.Equal(t, byte(reportInterrupted), rep.kind)
	rep = runSession(t, newTemplateSession(tmpl, &echoLink{}), "return (await tools.x({ a: 1 })).a", Limits{})
	assert.Equal(t, report{kind: reportValue, value: "1"}, rep)
}

func TestTemplateServesOneRealmAtATime(t *testing.T) {
	tmpl := newTestTemplate(t)
	r, _, err := tmpl.instantiate(make([]hostFunc, len(hostNames)))
	require.NoError(t, err)
	_, _, err = tmpl.instantiate(make([]hostFunc, len(hostNames)))
	assert.Error(t, err)
	r.close()
	r, _, err = tmpl.instantiate(make([]hostFunc, len(hostNames)))
	require.NoError(t, err)
	r.close()
}
