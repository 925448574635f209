package sandbox

import (
	"errors"
	"sync"
	"time"

	"modernc.org/quickjs"
)

// defaultEngine is the engine Run uses.
var defaultEngine engine = quickjsEngine{}

// quickjsEngine runs programs on modernc.org/quickjs, QuickJS translated to
// Go. Each realm is a runtime of its own, so memory limits are per run.
type quickjsEngine struct{}

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

// maxJobsPerDrain mirrors the number of jobs after which
// quickjs.VM.ExecutePendingJobs gives up draining in one call.
const maxJobsPerDrain = 1 << 20

func stackSlots(stackBytes int) uintptr {
	n := stackBytes / stackBytesPerSlot
	return uintptr(min(max(n, minStackSlots), maxStackSlots))
}

func (quickjsEngine) newRealm(cfg realmConfig) (_ realm, err error) {
	defer recoverInto(&err)
	vm, err := quickjs.NewVM()
	if err != nil {
		return nil, err
	}
	vm.SetMemoryLimit(uintptr(cfg.memoryBytes))
	vm.SetMaxStackSize(stackSlots(cfg.stackBytes))
	vm.SetCanBlock(false)
	vm.SetGCThreshold(gcThresholdFor(cfg.memoryBytes))
	return &quickjsRealm{vm: vm}, nil
}

type quickjsRealm struct {
	vm       *quickjs.VM
	retained []*quickjsFunction
}

type quickjsFunction struct {
	v        quickjs.Value
	released bool
}

func (f *quickjsFunction) release() {
	if !f.released {
		f.released = true
		f.v.Free()
	}
}

// recoverInto turns a panic that quickjs passes on from a Go function called
// by JavaScript (or one of its own) into an error.
func recoverInto(err *error) {
	if p := recover(); p != nil {
		*err = &panicError{value: p}
	}
}

func (r *quickjsRealm) define(name string, fn hostFunc) (err error) {
	defer recoverInto(&err)
	if err := r.vm.RegisterFunc(name, func(args ...string) string { return fn(args) }, false); err != nil {
		return convertError(err)
	}
	return nil
}

// compiled caches the bytecode of reused scripts, by source.
var compiled sync.Map // string -> []byte

// bytecode returns the bytecode of script, compiling it on first use in a
// throwaway VM. Bytecode is independent of the runtime that made it.
func bytecode(script string) ([]byte, error) {
	if bc, ok := compiled.Load(script); ok {
		return bc.([]byte), nil
	}
	vm, err := quickjs.NewVM()
	if err != nil {
		return nil, err
	}
	defer vm.Close()
	bc, err := vm.Compile(script, quickjs.EvalGlobal)
	if err != nil {
		return nil, err
	}
	compiled.Store(script, bc)
	return bc, nil
}

func (r *quickjsRealm) evalFunction(script string, reused bool) (_ jsFunction, err error) {
	defer recoverInto(&err)
	var v quickjs.Value
	if reused {
		var bc []byte
		if bc, err = bytecode(script); err == nil {
			v, err = r.vm.EvalBytecodeValue(bc)
		}
	} else {
		v, err = r.vm.EvalValue(script, quickjs.EvalGlobal)
	}
	if err != nil {
		return nil, convertError(err)
	}
	f := &quickjsFunction{v: v}
	r.retained = append(r.retained, f)
	return f, nil
}

func (r *quickjsRealm) call(fn jsFunction, args ...any) (err error) {
	defer recoverInto(&err)
	for i, a := range args {
		if f, ok := a.(*quickjsFunction); ok {
			args[i] = f.v
		}
	}
	v, err := fn.(*quickjsFunction).v.CallValue(quickjs.UndefinedValue, args...)
	if err != nil {
		return convertError(err)
	}
	v.Free()
	return nil
}

func (r *quickjsRealm) runJobs() (err error) {
	defer recoverInto(&err)
	for {
		n, err := r.vm.ExecutePendingJobs()
		if err == nil {
			return nil
		}
		var qe *quickjs.Error
		if !errors.As(err, &qe) && n >= maxJobsPerDrain {
			// A program that keeps queueing jobs; go on until it is done
			// or interrupted.
			continue
		}
		return convertError(err)
	}
}

func (r *quickjsRealm) setTimeLimit(d time.Duration) {
	r.vm.SetEvalTimeout(max(d, time.Nanosecond))
}

func (r *quickjsRealm) interrupt() { r.vm.Interrupt() }

func (r *quickjsRealm) close() {
	defer func() { _ = recover() }()
	for _, f := range r.retained {
		f.release()
	}
	r.retained = nil
	r.vm.Close()
}

// convertError turns an exception reported by quickjs into a *scriptError.
// Exceptions of the program itself are classified inside the engine by the
// prelude; what reaches this point comes from the prelude's own code or the
// engine, where an InternalError "out of memory", or null (thrown when the
// engine cannot even allocate that error), means the memory limit was hit.
func convertError(err error) error {
	var qe *quickjs.Error
	if !errors.As(err, &qe) {
		return err
	}
	se := &scriptError{name: qe.Name, message: qe.Message}
	switch {
	case qe.Name == "InternalError" && qe.Message == "out of memory":
		se.outOfMemory = true
	case qe.Name == "" && qe.Message == "" && qe.Error() == "null":
		se.outOfMemory = true
	}
	if se.name == "" {
		se.name = "Error"
		if se.message == "" {
			se.message = qe.Error()
		}
	}
	return se
}
