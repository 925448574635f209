package sandbox

import (
	"errors"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unicode/utf8"
	"unsafe"

	"modernc.org/libc"
	lib "modernc.org/libquickjs"
)

// defaultEngine is the engine sessions use.
var defaultEngine engine = qjsEngine{}

// qjsEngine runs programs on QuickJS translated to Go (modernc.org/libquickjs),
// driven through its C API. Each realm is a runtime of its own, so memory
// limits are per run. The binding installs its own allocator functions, which
// record when an allocation is refused for going over the memory limit, and
// its own interrupt handler, which makes an interrupt stick and polls the
// clock often enough to stop a loop of slow built-in calls.
type qjsEngine struct{}

// Stack size. The Go translation of QuickJS does not measure its stack in
// bytes: its limit counts frames of the emulated C stack, about one per
// plain JavaScript call and three to nine per call through a built-in such
// as forEach or a getter. Every frame also grows the goroutine stack, by
// about 1.6 KiB on linux/amd64 and more on other targets, and Go aborts the
// process when a goroutine stack passes 1 GB. Limits.StackBytes is therefore
// converted at stackBytesPerSlot per frame and clamped: the default 2 MiB
// gives about 5200 frames, the depth native QuickJS reaches on a 1 MiB stack.
const (
	stackBytesPerSlot = 400
	minStackSlots     = 128
	maxStackSlots     = 20000
)

func stackSlots(stackBytes int) uintptr {
	n := stackBytes / stackBytesPerSlot
	return uintptr(min(max(n, minStackSlots), maxStackSlots))
}

// The engine collects cyclic garbage whenever its heap grows past a
// threshold, 256 KiB at first and then half as much again as the heap the
// last collection left. A fresh realm with the prelude passes 256 KiB, so
// every run paid for a collection that found nothing to free. Runs start
// with gcThreshold instead, or half the memory limit when that is lower, so
// that a collection still comes before the limit is reached.
const (
	gcThreshold        = 2 << 20
	defaultGCThreshold = 256 << 10
)

func gcThresholdFor(memoryBytes int) uintptr {
	return uintptr(max(min(gcThreshold, memoryBytes/2), defaultGCThreshold))
}

// Interrupt polling. The engine calls its interrupt handler after a number
// of checkpoints (backward jumps, calls) that starts at counterInit. A
// checkpoint can be a call of a built-in that takes milliseconds, and then
// ten thousand of them take minutes, so the handler measures the time since
// its last call and lowers the count until polls come about every
// pollInterval again. Once interrupted, the realm polls at every checkpoint,
// so that code which swallows the engine's uncatchable interrupt error (a
// promise executor, an async function) is stopped again at the next one.
const (
	counterInit  = lib.MJS_INTERRUPT_COUNTER_INIT
	pollInterval = int64(time.Millisecond)
)

// File names the realm's scripts carry in stack traces.
const (
	preludeFile = "<sandbox>"
	programFile = "code-mode.js"
)

var monotonicBase = time.Now()

// monotonic returns the nanoseconds since monotonicBase on the monotonic
// clock.
func monotonic() int64 { return int64(time.Since(monotonicBase)) }

// cptr returns the C memory at p as a *T. The conversion goes through the
// address of p so that no uintptr is converted to a pointer directly.
func cptr[T any](p uintptr) *T {
	return (*T)(*(*unsafe.Pointer)(unsafe.Pointer(&p)))
}

// cfunc returns the C function pointer of the Go function f, as the
// translated engine calls it.
func cfunc[F any](f F) uintptr {
	return *(*uintptr)(unsafe.Pointer(&f))
}

// The C callbacks. They are package-level functions, so their function
// values live as long as the program.
var (
	cMalloc        = cfunc(qjsMalloc)
	cFree          = cfunc(qjsFree)
	cRealloc       = cfunc(qjsRealloc)
	cUsableSize    = cfunc(qjsUsableSize)
	cInterrupt     = cfunc(qjsInterrupt)
	cHostFunction  = cfunc(qjsHostFunction)
	cPreludeFile   = mustCString(preludeFile)
	cProgramFile   = mustCString(programFile)
	cEmpty         = mustCString("")
	errInterrupted = errors.New("sandbox: the realm was interrupted")
)

func mustCString(s string) uintptr {
	p, err := libc.CString(s)
	if err != nil {
		panic(err)
	}
	return p
}

// realms maps the id every realm passes to its callbacks as their opaque
// value to the realm.
var realms struct {
	sync.RWMutex
	m    map[uintptr]*qjsRealm
	last uintptr
}

func lookupRealm(id uintptr) *qjsRealm {
	realms.RLock()
	r := realms.m[id]
	realms.RUnlock()
	return r
}

type qjsRealm struct {
	id  uintptr
	tls *libc.TLS
	rt  uintptr
	ctx uintptr
	mf  uintptr // the allocator functions, in C memory

	funcs    []hostFunc
	retained []*qjsValue

	// arena is set for the realm a template is built in and for the realms
	// it serves: the allocator then keeps the engine's memory in the arena
	// while the template is built, and remembers every block allocated
	// outside it afterwards. tmpl is set for a realm a template serves.
	arena *arena
	tmpl  *qjsTemplate

	stop     atomic.Bool  // interrupt was called
	deadline atomic.Int64 // monotonic nanoseconds, 0 for none
	exhaust  atomic.Bool  // an allocation was refused for the limit

	// Owned by the goroutine driving the realm.
	stackBytes int    // the stack limit set last
	onPoll     func() // see setPoll
	lastPoll   int64
	budget     int32
	broken     bool // a Go panic went through the engine
}

type qjsValue struct {
	r        *qjsRealm
	v        lib.TJSValue
	released bool
}

func (f *qjsValue) release() {
	if !f.released {
		f.released = true
		// A template's memory is copied back after the run anyway.
		if !f.r.broken && f.r.tmpl == nil {
			lib.XFreeValue(f.r.tls, f.r.ctx, f.v)
		}
	}
}

func (qjsEngine) newRealm(cfg realmConfig) (_ realm, err error) {
	r := &qjsRealm{tls: libc.NewTLS(), budget: counterInit}
	defer func() {
		if err != nil {
			r.close()
		}
	}()
	if err := r.init(cfg); err != nil {
		return nil, err
	}
	return r, nil
}

// init registers r and creates its runtime and context.
func (r *qjsRealm) init(cfg realmConfig) (err error) {
	defer func() {
		if p := recover(); p != nil {
			r.broken = true
			err = &panicError{value: p}
		}
	}()
	realms.Lock()
	if realms.m == nil {
		realms.m = map[uintptr]*qjsRealm{}
	}
	realms.last++
	r.id = realms.last
	realms.m[r.id] = r
	realms.Unlock()

	tls := r.tls
	r.mf = libc.Xcalloc(tls, 1, libc.Tsize_t(unsafe.Sizeof(lib.TJSMallocFunctions{})))
	if r.mf == 0 {
		return errors.New("sandbox: out of memory creating a realm")
	}
	*cptr[lib.TJSMallocFunctions](r.mf) = lib.TJSMallocFunctions{
		Fjs_malloc:             cMalloc,
		Fjs_free:               cFree,
		Fjs_realloc:            cRealloc,
		Fjs_malloc_usable_size: cUsableSize,
	}
	r.rt = lib.XJS_NewRuntime2(tls, r.mf, r.id)
	if r.rt == 0 {
		return errors.New("sandbox: the JavaScript runtime could not be created")
	}
	r.setLimits(cfg)
	lib.XJS_SetCanBlock(tls, r.rt, 0)
	lib.XJS_SetInterruptHandler(tls, r.rt, cInterrupt, r.id)
	r.ctx = lib.XJS_NewContext(tls, r.rt)
	if r.ctx == 0 {
		return errors.New("sandbox: the JavaScript context could not be created")
	}
	lib.XJS_SetContextOpaque(tls, r.ctx, r.id)
	return nil
}

func (r *qjsRealm) setLimits(cfg realmConfig) {
	r.stackBytes = cfg.stackBytes
	lib.XJS_SetMemoryLimit(r.tls, r.rt, lib.Tsize_t(max(cfg.memoryBytes, 1)))
	lib.XJS_SetMaxStackSize(r.tls, r.rt, lib.Tsize_t(stackSlots(cfg.stackBytes)))
	lib.XJS_SetGCThreshold(r.tls, r.rt, lib.Tsize_t(gcThresholdFor(cfg.memoryBytes)))
}

func (r *qjsRealm) setDeadline(t time.Time) {
	if t.IsZero() {
		r.deadline.Store(0)
		return
	}
	r.deadline.Store(max(int64(t.Sub(monotonicBase)), 1))
}

func (r *qjsRealm) setPoll(fn func()) { r.onPoll = fn }

func (r *qjsRealm) interrupt() { r.stop.Store(true) }

func (r *qjsRealm) interrupted() bool {
	if r.stop.Load() {
		return true
	}
	d := r.deadline.Load()
	return d != 0 && monotonic() >= d
}

func (r *qjsRealm) memoryExhausted() bool { return r.exhaust.Load() }

// poll is the interrupt handler: it reports whether the JavaScript running
// now must stop, and sets when the engine calls it next.
func (r *qjsRealm) poll() int32 {
	c := cptr[lib.TJSContext](r.ctx)
	if r.interrupted() {
		r.stop.Store(true)
		c.Finterrupt_counter = 1
		return 1
	}
	now := monotonic()
	elapsed := now - r.lastPoll
	r.lastPoll = now
	switch {
	case elapsed > pollInterval:
		r.budget = int32(max(int64(r.budget)*pollInterval/elapsed, 1))
	case r.budget < counterInit:
		r.budget = min(r.budget*2, counterInit)
	}
	c.Finterrupt_counter = r.budget
	if r.onPoll != nil {
		r.onPoll()
	}
	return 0
}

// enter prepares a call into the engine.
func (r *qjsRealm) enter() {
	if r.broken {
		panic("sandbox: the realm is broken")
	}
	r.lastPoll = monotonic()
	// Poll at once and let the count grow from there: a loop of slow
	// checkpoints must not run counterInit of them before the first poll.
	r.budget = 1
	if r.ctx != 0 {
		cptr[lib.TJSContext](r.ctx).Finterrupt_counter = 1
	}
}

// guard turns a panic in the engine into an error and marks the realm
// broken: its memory can no longer be trusted.
func (r *qjsRealm) guard(err *error) {
	if p := recover(); p != nil {
		r.broken = true
		*err = &panicError{value: p}
	}
}

func (r *qjsRealm) define(name string, fn hostFunc) (err error) {
	defer r.guard(&err)
	r.enter()
	tls, ctx := r.tls, r.ctx
	cname, err := libc.CString(name)
	if err != nil {
		return err
	}
	defer libc.Xfree(tls, cname)
	magic := int32(len(r.funcs))
	r.funcs = append(r.funcs, fn)
	f := lib.XJS_NewCFunction2(tls, ctx, cHostFunction, cname, 0, lib.EJS_CFUNC_generic_magic, magic)
	if isException(f) {
		return r.exception()
	}
	g := lib.XJS_GetGlobalObject(tls, ctx)
	defer lib.XFreeValue(tls, ctx, g)
	// JS_DefinePropertyValueStr takes over f, also when it fails.
	if lib.XJS_DefinePropertyValueStr(tls, ctx, g, cname, f, lib.MJS_PROP_WRITABLE|lib.MJS_PROP_CONFIGURABLE) < 0 {
		return r.exception()
	}
	return nil
}

// compiled caches the bytecode of reused scripts, by source, in C memory
// that lives as long as the program.
var compiled sync.Map // string -> compiledScript

type compiledScript struct {
	p uintptr
	n int
}

// bytecode returns the bytecode of script, compiling it on first use in a
// throwaway realm. Bytecode is independent of the runtime that made it.
func bytecode(script, file string) (compiledScript, error) {
	if c, ok := compiled.Load(script); ok {
		return c.(compiledScript), nil
	}
	rl, err := qjsEngine{}.newRealm(realmConfig{memoryBytes: 256 << 20, stackBytes: DefaultLimits().StackBytes})
	if err != nil {
		return compiledScript{}, err
	}
	r := rl.(*qjsRealm)
	defer r.close()
	c, err := r.compile(script, file)
	if err != nil {
		return compiledScript{}, err
	}
	actual, _ := compiled.LoadOrStore(script, c)
	return actual.(compiledScript), nil
}

// compiledBytes returns the bytecode of script as Go bytes.
func compiledBytes(script, file string) ([]byte, error) {
	c, err := bytecode(script, file)
	if err != nil {
		return nil, err
	}
	return append([]byte(nil), unsafe.Slice(cptr[byte](c.p), c.n)...), nil
}

// storeBytecode records bc, compiled elsewhere, as the bytecode of script.
func storeBytecode(script string, bc []byte) {
	if len(bc) == 0 {
		return
	}
	p := libc.Xmalloc(nil, libc.Tsize_t(len(bc)))
	if p == 0 {
		return
	}
	copy(unsafe.Slice(cptr[byte](p), len(bc)), bc)
	compiled.LoadOrStore(script, compiledScript{p: p, n: len(bc)})
}

func (r *qjsRealm) compile(script, file string) (_ compiledScript, err error) {
	defer r.guard(&err)
	r.enter()
	tls, ctx := r.tls, r.ctx
	obj, err := r.eval(script, file, lib.MJS_EVAL_TYPE_GLOBAL|lib.MJS_EVAL_FLAG_COMPILE_ONLY)
	if err != nil {
		return compiledScript{}, err
	}
	defer lib.XFreeValue(tls, ctx, obj)
	psize := tls.Alloc(int(unsafe.Sizeof(lib.Tsize_t(0))))
	defer tls.Free(int(unsafe.Sizeof(lib.Tsize_t(0))))
	p := lib.XJS_WriteObject(tls, ctx, psize, obj, lib.MJS_WRITE_OBJ_BYTECODE)
	if p == 0 {
		return compiledScript{}, r.exception()
	}
	defer lib.Xjs_free(tls, ctx, p)
	n := int(*cptr[lib.Tsize_t](psize))
	c := compiledScript{p: libc.Xmalloc(tls, libc.Tsize_t(n)), n: n}
	if c.p == 0 {
		return compiledScript{}, errors.New("sandbox: out of memory compiling a script")
	}
	copy(unsafe.Slice(cptr[byte](c.p), n), unsafe.Slice(cptr[byte](p), n))
	return c, nil
}

// eval evaluates script and returns its completion value, or the pending
// exception as an error.
func (r *qjsRealm) eval(script, file string, flags int32) (lib.TJSValue, error) {
	tls, ctx := r.tls, r.ctx
	src, err := libc.CString(script)
	if err != nil {
		return jsUndefined, err
	}
	defer libc.Xfree(tls, src)
	cfile := cProgramFile
	switch file {
	case preludeFile:
		cfile = cPreludeFile
	case programFile:
	default:
		f, err := libc.CString(file)
		if err != nil {
			return jsUndefined, err
		}
		defer libc.Xfree(tls, f)
		cfile = f
	}
	v := lib.XJS_Eval(tls, ctx, src, lib.Tsize_t(len(script)), cfile, flags)
	if isException(v) {
		return jsUndefined, r.exception()
	}
	return v, nil
}

func (r *qjsRealm) evalFunction(script, file string, reused bool) (_ jsValue, err error) {
	defer r.guard(&err)
	var v lib.TJSValue
	if reused {
		c, err := bytecode(script, file)
		if err != nil {
			return nil, err
		}
		r.enter()
		obj := lib.XJS_ReadObject(r.tls, r.ctx, c.p, lib.Tsize_t(c.n), lib.MJS_READ_OBJ_BYTECODE)
		if isException(obj) {
			return nil, r.exception()
		}
		// JS_EvalFunction takes over obj.
		v = lib.XJS_EvalFunction(r.tls, r.ctx, obj)
		if isException(v) {
			return nil, r.exception()
		}
	} else {
		r.enter()
		if v, err = r.eval(script, file, lib.MJS_EVAL_TYPE_GLOBAL); err != nil {
			return nil, err
		}
	}
	if lib.XJS_IsFunction(r.tls, r.ctx, v) == 0 {
		lib.XFreeValue(r.tls, r.ctx, v)
		return nil, errors.New("sandbox: the script did not evaluate to a function")
	}
	f := &qjsValue{r: r, v: v}
	r.retained = append(r.retained, f)
	return f, nil
}

func (r *qjsRealm) call(fn jsValue, args ...any) (err error) {
	defer r.guard(&err)
	r.enter()
	tls, ctx := r.tls, r.ctx
	n := len(args)
	size := int(valueSize) * max(n, 1)
	argv := tls.Alloc(size)
	defer tls.Free(size)
	var made []lib.TJSValue
	defer func() {
		for _, v := range made {
			lib.XFreeValue(tls, ctx, v)
		}
	}()
	for i, a := range args {
		var v lib.TJSValue
		switch a := a.(type) {
		case *qjsValue:
			v = a.v
		case string:
			s, ok := r.newString(tls, a)
			if !ok {
				return r.exception()
			}
			made = append(made, s)
			v = s
		default:
			return errors.New("sandbox: unsupported argument type")
		}
		*cptr[lib.TJSValue](argv + uintptr(i)*valueSize) = v
	}
	res := lib.XJS_Call(tls, ctx, fn.(*qjsValue).v, jsUndefined, int32(n), argv)
	if isException(res) {
		return r.exception()
	}
	lib.XFreeValue(tls, ctx, res)
	return nil
}

func (r *qjsRealm) runJobs() (err error) {
	defer r.guard(&err)
	r.enter()
	tls := r.tls
	const ptrSize = int(unsafe.Sizeof(uintptr(0)))
	pctx := tls.Alloc(ptrSize)
	defer tls.Free(ptrSize)
	var first error
	for {
		switch lib.XJS_ExecutePendingJob(tls, r.rt, pctx) {
		case 0:
			return first
		case -1:
			e := r.exception()
			if r.interrupted() {
				return e
			}
			if first == nil {
				first = e
			}
		}
		if r.interrupted() {
			return errInterrupted
		}
	}
}

// exception takes the pending exception and describes it.
func (r *qjsRealm) exception() error {
	tls, ctx := r.tls, r.ctx
	v := lib.XJS_GetException(tls, ctx)
	defer lib.XFreeValue(tls, ctx, v)
	se := &scriptError{}
	switch jsTag(v) {
	case lib.EJS_TAG_OBJECT:
		se.name = r.stringProp(v, "name")
		se.message = r.stringProp(v, "message")
		se.stack = r.stringProp(v, "stack")
		se.outOfMemory = r.memoryExhausted() && se.name == "InternalError" && se.message == "out of memory" &&
			lib.XJS_IsError(tls, ctx, v) != 0
	case lib.EJS_TAG_NULL:
		se.message = "null"
		se.outOfMemory = r.memoryExhausted()
	default:
		se.message, _ = r.goString(tls, v)
	}
	if r.interrupted() && se.name == "InternalError" && se.message == "interrupted" {
		return errInterrupted
	}
	if se.name == "" {
		se.name = "Error"
	}
	return se
}

// stringProp returns the string property name of the object v, or "" when
// it is missing, not a string or throws.
func (r *qjsRealm) stringProp(v lib.TJSValue, name string) string {
	tls, ctx := r.tls, r.ctx
	cname, err := libc.CString(name)
	if err != nil {
		return ""
	}
	defer libc.Xfree(tls, cname)
	p := lib.XJS_GetPropertyStr(tls, ctx, v, cname)
	if isException(p) {
		lib.XFreeValue(tls, ctx, lib.XJS_GetException(tls, ctx))
		return ""
	}
	defer lib.XFreeValue(tls, ctx, p)
	if t := jsTag(p); t != lib.EJS_TAG_STRING && t != lib.EJS_TAG_STRING_ROPE {
		return ""
	}
	s, ok := r.goString(tls, p)
	if !ok {
		lib.XFreeValue(tls, ctx, lib.XJS_GetException(tls, ctx))
	}
	return s
}

// goString converts v to a Go string, running its toString when it is not
// a string. On failure the exception is left pending.
func (r *qjsRealm) goString(tls *libc.TLS, v lib.TJSValue) (string, bool) {
	ctx := r.ctx
	size := int(unsafe.Sizeof(lib.Tsize_t(0)))
	plen := tls.Alloc(size)
	defer tls.Free(size)
	p := lib.XJS_ToCStringLen2(tls, ctx, plen, v, 0)
	if p == 0 {
		return "", false
	}
	defer lib.XJS_FreeCString(tls, ctx, p)
	n := int(*cptr[lib.Tsize_t](plen))
	return wellFormed(unsafe.Slice(cptr[byte](p), n)), true
}

// newString makes a JavaScript string of s. On failure the exception is
// pending.
func (r *qjsRealm) newString(tls *libc.TLS, s string) (lib.TJSValue, bool) {
	if !utf8.ValidString(s) {
		s = strings.ToValidUTF8(s, "\uFFFD")
	}
	buf := cEmpty
	if len(s) > 0 {
		buf = libc.Xmalloc(tls, libc.Tsize_t(len(s)))
		if buf == 0 {
			lib.XJS_ThrowOutOfMemory(tls, r.ctx)
			return jsUndefined, false
		}
		defer libc.Xfree(tls, buf)
		copy(unsafe.Slice(cptr[byte](buf), len(s)), s)
	}
	v := lib.XJS_NewStringLen(tls, r.ctx, buf, lib.Tsize_t(len(s)))
	return v, !isException(v)
}

// wellFormed returns b, UTF-8 the engine wrote from a JavaScript string, as a
// Go string with U+FFFD for each lone surrogate, which the engine writes as
// the three bytes of its code point (0xED 0xA0-0xBF 0x80-0xBF).
func wellFormed(b []byte) string {
	if utf8.Valid(b) {
		return string(b)
	}
	var sb strings.Builder
	sb.Grow(len(b))
	for len(b) > 0 {
		c, n := utf8.DecodeRune(b)
		if c == utf8.RuneError && n <= 1 {
			if len(b) >= 3 && b[0] == 0xed && b[1]&0xe0 == 0xa0 && b[2]&0xc0 == 0x80 {
				n = 3
			} else {
				n = 1
			}
			sb.WriteRune(utf8.RuneError)
			b = b[n:]
			continue
		}
		sb.Write(b[:n])
		b = b[n:]
	}
	return sb.String()
}

func (r *qjsRealm) close() {
	defer func() { _ = recover() }()
	if r.tls == nil {
		return
	}
	realms.Lock()
	delete(realms.m, r.id)
	realms.Unlock()
	if r.tmpl != nil {
		// The template resets its memory; the thread-local state is its
		// own too.
		r.retained = nil
		r.tmpl.closeRealm(r)
		r.tls = nil
		return
	}
	if r.broken {
		// The engine's memory may point at stack frames that are gone:
		// freeing it can crash. It is left to the process.
		r.tls = nil
		return
	}
	for _, f := range r.retained {
		f.release()
	}
	r.retained = nil
	if r.ctx != 0 {
		lib.XJS_FreeContext(r.tls, r.ctx)
	}
	if r.rt != 0 {
		lib.XJS_FreeRuntime(r.tls, r.rt)
	}
	if r.mf != 0 {
		libc.Xfree(r.tls, r.mf)
	}
	r.tls.Close()
	r.tls = nil
}

// The C callbacks follow. They must not panic: a panic going up through the
// engine leaves its state inconsistent.

func qjsInterrupt(tls *libc.TLS, rt, opaque uintptr) int32 {
	if r := lookupRealm(opaque); r != nil {
		return r.poll()
	}
	return 0
}

// The allocator: the engine's default one, which also records a refused
// allocation. s points to the runtime's lib.TJSMallocState, whose opaque
// value is the realm id.

const mallocOverhead = lib.MMALLOC_OVERHEAD

func noteExhausted(s *lib.TJSMallocState) {
	if r := lookupRealm(s.Fopaque); r != nil {
		r.exhaust.Store(true)
	}
}

// arenaRealm returns the realm of the allocator state s when it keeps an
// arena, or nil. Only processes with a template have arenas at all.
func arenaRealm(s *lib.TJSMallocState) *qjsRealm {
	if as := arenas.Load(); as == nil || len(*as) == 0 {
		return nil
	}
	if r := lookupRealm(s.Fopaque); r != nil && r.arena != nil {
		return r
	}
	return nil
}

// allocate returns a block of size bytes and its usable size: from the
// realm's arena while its template is built, else from the C heap.
func allocate(tls *libc.TLS, s *lib.TJSMallocState, size lib.Tsize_t) (uintptr, lib.Tsize_t) {
	r := arenaRealm(s)
	if r != nil && !r.arena.frozen {
		p := r.arena.alloc(uintptr(size))
		if p == 0 {
			return 0, 0
		}
		return p, lib.Tsize_t(r.arena.usable(p))
	}
	p := libc.Xmalloc(tls, libc.Tsize_t(size))
	if p == 0 {
		return 0, 0
	}
	if r != nil {
		r.arena.outside[p] = struct{}{}
	}
	return p, lib.Tsize_t(libc.Xmalloc_usable_size(tls, p))
}

func qjsMalloc(tls *libc.TLS, sp uintptr, size lib.Tsize_t) uintptr {
	s := cptr[lib.TJSMallocState](sp)
	if s.Fmalloc_size+size > s.Fmalloc_limit {
		noteExhausted(s)
		return 0
	}
	p, n := allocate(tls, s, size)
	if p == 0 {
		noteExhausted(s)
		return 0
	}
	s.Fmalloc_count++
	s.Fmalloc_size += n + mallocOverhead
	return p
}

func qjsFree(tls *libc.TLS, sp uintptr, p uintptr) {
	if p == 0 {
		return
	}
	s := cptr[lib.TJSMallocState](sp)
	s.Fmalloc_count--
	if a := arenaOf(p); a != nil {
		s.Fmalloc_size -= lib.Tsize_t(a.usable(p)) + mallocOverhead
		a.release(p)
		return
	}
	s.Fmalloc_size -= lib.Tsize_t(libc.Xmalloc_usable_size(tls, p)) + mallocOverhead
	if r := arenaRealm(s); r != nil {
		delete(r.arena.outside, p)
	}
	libc.Xfree(tls, p)
}

func qjsRealloc(tls *libc.TLS, sp uintptr, p uintptr, size lib.Tsize_t) uintptr {
	if p == 0 {
		if size == 0 {
			return 0
		}
		return qjsMalloc(tls, sp, size)
	}
	if size == 0 {
		qjsFree(tls, sp, p)
		return 0
	}
	s := cptr[lib.TJSMallocState](sp)
	if a := arenaOf(p); a != nil {
		// Arena blocks do not move: a larger one is a new block.
		old := lib.Tsize_t(a.usable(p))
		if size <= old {
			return p
		}
		if s.Fmalloc_size+size-old > s.Fmalloc_limit {
			noteExhausted(s)
			return 0
		}
		q, n := allocate(tls, s, size)
		if q == 0 {
			noteExhausted(s)
			return 0
		}
		copy(unsafe.Slice(cptr[byte](q), old), unsafe.Slice(cptr[byte](p), old))
		s.Fmalloc_size += n - old
		a.release(p)
		return q
	}
	old := lib.Tsize_t(libc.Xmalloc_usable_size(tls, p))
	if s.Fmalloc_size+size-old > s.Fmalloc_limit {
		noteExhausted(s)
		return 0
	}
	q := libc.Xrealloc(tls, p, libc.Tsize_t(size))
	if q == 0 {
		noteExhausted(s)
		return 0
	}
	if q != p {
		if r := arenaRealm(s); r != nil {
			delete(r.arena.outside, p)
			r.arena.outside[q] = struct{}{}
		}
	}
	s.Fmalloc_size += lib.Tsize_t(libc.Xmalloc_usable_size(tls, q)) - old
	return q
}

func qjsUsableSize(tls *libc.TLS, p uintptr) lib.Tsize_t {
	if a := arenaOf(p); a != nil {
		return lib.Tsize_t(a.usable(p))
	}
	return lib.Tsize_t(libc.Xmalloc_usable_size(tls, p))
}

// qjsHostFunction is the C function behind every function define installs;
// magic is its index in the realm's funcs.
func qjsHostFunction(tls *libc.TLS, ctx uintptr, this lib.TJSValue, argc int32, argv uintptr, magic int32) (ret lib.TJSValue) {
	r := lookupRealm(lib.XJS_GetContextOpaque(tls, ctx))
	if r == nil || magic < 0 || int(magic) >= len(r.funcs) {
		return jsUndefined
	}
	args := make([]string, argc)
	for i := range args {
		s, ok := r.goString(tls, *cptr[lib.TJSValue](argv + uintptr(i)*valueSize))
		if !ok {
			return jsException
		}
		args[i] = s
	}
	out := r.funcs[magic](args)
	v, ok := r.newString(tls, out)
	if !ok {
		return jsException
	}
	return v
}
