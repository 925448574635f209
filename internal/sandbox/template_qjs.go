package sandbox

import (
	"errors"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"unsafe"

	"modernc.org/libc"
	lib "modernc.org/libquickjs"
)

// A template realm is made once per worker process, with its host functions
// defined and its prelude evaluated, and every run starts from a byte for
// byte copy of it instead of building a realm and evaluating the prelude
// again, which is most of the cost of a short run.
//
// Everything the engine allocates while the template is built comes from an
// arena, a single block of memory the template owns. Once built, the arena's
// contents are copied aside. From then on the engine allocates outside the
// arena, and the template remembers every such block; the arena's own
// blocks are never reused. Resetting the template frees every block
// allocated since and copies the saved contents back over the arena, so the
// engine's memory is again exactly what it was after the prelude: nothing a
// run did, to globals, prototypes, atoms or the heap, survives it. The
// engine keeps no state of a runtime outside the memory it allocates, apart
// from fields the reset sets again: the ids its callbacks find the realm
// by, and the seed of Math.random.

// arenaBytes is the size of a template's arena. A realm with the prelude
// takes about a third of it; a template whose construction does not fit
// fails, and sessions then build their realms one by one.
const arenaBytes = 4 << 20

// arenaHeader precedes every block in an arena and holds its usable size.
// It keeps blocks aligned to 16 bytes.
const arenaHeader = 16

// arena is the memory a template realm is built in.
type arena struct {
	base, end uintptr // the block [base, end)
	top       uintptr // the next free byte; blocks are never reused
	// frozen is set once the template is built: allocations go outside
	// the arena from then on.
	frozen bool
	// outside holds the blocks allocated outside the arena since the
	// template was built.
	outside map[uintptr]struct{}
	saved   []byte // the arena's contents [base, top) once built
}

// arenas lists the arenas of the process, so that the allocator callbacks
// can tell an arena's blocks from others. It is replaced, never changed.
var arenas atomic.Pointer[[]*arena]

var arenasMu sync.Mutex

func registerArena(a *arena, add bool) {
	arenasMu.Lock()
	defer arenasMu.Unlock()
	var next []*arena
	if old := arenas.Load(); old != nil {
		for _, b := range *old {
			if b != a {
				next = append(next, b)
			}
		}
	}
	if add {
		next = append(next, a)
	}
	arenas.Store(&next)
}

// arenaOf returns the arena holding p, or nil.
func arenaOf(p uintptr) *arena {
	as := arenas.Load()
	if as == nil {
		return nil
	}
	for _, a := range *as {
		if p >= a.base && p < a.end {
			return a
		}
	}
	return nil
}

// alloc returns a block of at least size bytes from the arena, or 0 when it
// is frozen or full.
func (a *arena) alloc(size uintptr) uintptr {
	if a.frozen {
		return 0
	}
	n := (size + 15) &^ 15
	if n < size || a.end-a.top < arenaHeader || a.end-a.top-arenaHeader < n {
		return 0
	}
	p := a.top + arenaHeader
	*cptr[uintptr](a.top) = n
	a.top = p + n
	return p
}

// usable returns the usable size of the arena block p.
func (a *arena) usable(p uintptr) uintptr { return *cptr[uintptr](p - arenaHeader) }

// release takes back the arena block p when it is the last one, while the
// template is being built. Other blocks stay where they are.
func (a *arena) release(p uintptr) {
	if !a.frozen && p+a.usable(p) == a.top {
		a.top = p - arenaHeader
	}
}

// bytes returns the used part of the arena.
func (a *arena) bytes() []byte {
	return unsafe.Slice(cptr[byte](a.base), a.top-a.base)
}

// qjsTemplate is a realm kept as it was after its prelude, from which runs
// start one at a time.
type qjsTemplate struct {
	a      *arena
	tls    *libc.TLS
	mf     uintptr
	rt     uintptr
	ctx    uintptr
	driver lib.TJSValue
	nfuncs int
	// inUse is set from instantiate until the realm it returned closes;
	// dirty once a run may have changed the engine's memory.
	inUse, dirty bool
	broken       bool
}

func (qjsEngine) newTemplate(cfg realmConfig, names []string, script, file string) (realmTemplate, error) {
	t, err := newQJSTemplate(cfg, names, script, file)
	if err != nil {
		return nil, err
	}
	return t, nil
}

// newQJSTemplate builds a realm in a fresh arena, defines host functions
// called names, evaluates script (reused bytecode, as with evalFunction)
// and keeps the result.
func newQJSTemplate(cfg realmConfig, names []string, script, file string) (_ *qjsTemplate, err error) {
	tls := libc.NewTLS()
	a := &arena{}
	a.base = libc.Xmalloc(tls, arenaBytes)
	if a.base == 0 {
		tls.Close()
		return nil, errors.New("sandbox: out of memory creating a template")
	}
	a.end = a.base + arenaBytes
	// Blocks aligned to 16 bytes, as the engine's other allocator gives.
	a.top = (a.base + 15) &^ 15
	registerArena(a, true)
	t := &qjsTemplate{a: a, tls: tls}
	r := &qjsRealm{tls: tls, budget: counterInit, arena: a}
	defer func() {
		if err != nil {
			t.discard(r)
		}
	}()
	if err := r.init(cfg); err != nil {
		return nil, err
	}
	noop := func([]string) string { return "" }
	for _, name := range names {
		if err := r.define(name, noop); err != nil {
			return nil, err
		}
	}
	fn, err := r.evalFunction(script, file, true)
	if err != nil {
		return nil, err
	}
	if lib.XJS_IsJobPending(tls, r.rt) != 0 {
		return nil, errors.New("sandbox: the template left promise jobs pending")
	}
	if r.exhaust.Load() || r.broken {
		return nil, errors.New("sandbox: the template could not be built")
	}
	t.mf, t.rt, t.ctx = r.mf, r.rt, r.ctx
	t.driver = fn.(*qjsValue).v
	t.nfuncs = len(names)
	a.frozen = true
	a.outside = map[uintptr]struct{}{}
	a.saved = append([]byte(nil), a.bytes()...)
	// The realm's id stays written in the engine's memory until the first
	// run replaces it; the template itself serves no calls.
	realms.Lock()
	delete(realms.m, r.id)
	realms.Unlock()
	return t, nil
}

// discard frees what a template that could not be built allocated.
func (t *qjsTemplate) discard(r *qjsRealm) {
	r.arena = nil
	r.retained = nil
	realms.Lock()
	delete(realms.m, r.id)
	realms.Unlock()
	registerArena(t.a, false)
	// The engine's memory lives in the arena (and blocks it reaches
	// outside are lost with it): freeing the arena frees the realm.
	if r.mf != 0 {
		libc.Xfree(t.tls, r.mf)
	}
	libc.Xfree(t.tls, t.a.base)
	t.tls.Close()
	t.broken = true
}

// instantiate returns a realm in the template's state whose host functions
// are fns, in the order of the names the template was built with, and the
// template's driver function. The template serves one realm at a time;
// closing the realm resets the template for the next.
func (t *qjsTemplate) instantiate(fns []hostFunc) (realm, jsValue, error) {
	if t.broken {
		return nil, nil, errors.New("sandbox: the template is broken")
	}
	if t.inUse {
		return nil, nil, errors.New("sandbox: the template is in use")
	}
	if len(fns) != t.nfuncs {
		return nil, nil, errors.New("sandbox: wrong number of host functions")
	}
	if t.dirty {
		t.reset()
	}
	t.inUse, t.dirty = true, true
	r := &qjsRealm{tls: t.tls, rt: t.rt, ctx: t.ctx, mf: t.mf, budget: counterInit, funcs: fns, arena: t.a, tmpl: t}
	realms.Lock()
	realms.last++
	r.id = realms.last
	realms.m[r.id] = r
	realms.Unlock()
	// The ids the engine hands to the callbacks, and a new seed: a copy
	// of the template's memory would otherwise repeat Math.random.
	rt := cptr[lib.TJSRuntime](t.rt)
	rt.Fmalloc_ctx.Fmalloc_state.Fopaque = r.id
	lib.XJS_SetInterruptHandler(t.tls, t.rt, cInterrupt, r.id)
	lib.XJS_SetContextOpaque(t.tls, t.ctx, r.id)
	cptr[lib.TJSContext](t.ctx).Frandom_state = rand.Uint64() | 1
	return r, &qjsValue{r: r, v: t.driver, released: true}, nil
}

// reset frees every block allocated outside the arena since the template
// was built and copies the template's memory back.
func (t *qjsTemplate) reset() {
	for p := range t.a.outside {
		libc.Xfree(t.tls, p)
	}
	if len(t.a.outside) > 4096 {
		// A map keeps the room it grew to; an idle worker need not.
		t.a.outside = map[uintptr]struct{}{}
	} else {
		clear(t.a.outside)
	}
	t.a.top = t.a.base + uintptr(len(t.a.saved))
	copy(t.a.bytes(), t.a.saved)
	t.dirty = false
}

// closeRealm ends the use of the template by r.
func (t *qjsTemplate) closeRealm(r *qjsRealm) {
	t.inUse = false
	if r.broken {
		// The engine's memory may point at stack frames that are gone:
		// the template cannot be trusted any more.
		t.broken = true
		return
	}
	t.reset()
}
