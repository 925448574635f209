package sandbox

import (
	"fmt"
	"time"
)

// engine is the JavaScript engine behind a session. A session needs only a
// fresh realm per run, string-typed host functions, evaluation of two scripts
// whose completion values are functions, calls of those functions and a
// microtask drain, and a way to start many realms from one in which the
// prelude was evaluated, so another engine can be plugged in by implementing
// these interfaces.
type engine interface {
	newRealm(cfg realmConfig) (realm, error)
	// newTemplate builds a realm under cfg, defines host functions called
	// names (whose behaviour each instance supplies) and evaluates script
	// as evalFunction does with reused set, and keeps the result as a
	// template for realms.
	newTemplate(cfg realmConfig, names []string, script, file string) (realmTemplate, error)
}

// realmTemplate is a realm kept as it was once its host functions were
// defined and its script evaluated. Every realm it returns starts in
// exactly that state, whatever earlier realms did.
type realmTemplate interface {
	// instantiate returns a realm in the template's state whose host
	// functions are fns, in the order of the template's names, and the
	// completion value of the template's script. A template serves one
	// realm at a time: it is ready again once that realm is closed.
	instantiate(fns []hostFunc) (realm, jsValue, error)
}

// realmConfig holds the resource limits a realm starts with.
type realmConfig struct {
	memoryBytes int
	stackBytes  int
}

// hostFunc is a Go function callable from JavaScript. It receives only
// string arguments and returns a string. It runs on the goroutine that drives
// the realm and must not panic.
type hostFunc func(args []string) string

// jsValue is a JavaScript value, such as a function, retained by the Go
// side.
type jsValue interface {
	release()
}

// realm is one isolated JavaScript global environment. All methods except
// interrupt must be called from a single goroutine.
type realm interface {
	// define installs fn as a configurable global function called name.
	define(name string, fn hostFunc) error
	// evalFunction evaluates script as a global script whose stack frames
	// name file, and returns its completion value, which must be a
	// function. When reused is set the same script is evaluated by many
	// realms, and the engine may keep a compiled form of it.
	evalFunction(script, file string, reused bool) (jsValue, error)
	// call calls fn with arguments that are strings or jsValues of this
	// realm and discards the result.
	call(fn jsValue, args ...any) error
	// buildJSON returns the value JSON.parse would make of text, or false
	// when the realm leaves that to JSON.parse: it never fails otherwise,
	// and leaves no exception pending.
	buildJSON(text string) (jsValue, bool)
	// runJobs runs pending promise jobs until none is left or the realm is
	// interrupted.
	runJobs() error
	// setLimits changes the memory and stack limits. Memory already in use
	// stays allocated and counts against the new limit.
	setLimits(cfg realmConfig)
	// setDeadline makes the realm interrupt itself once the monotonic clock
	// passes t. The zero time means no deadline.
	setDeadline(t time.Time)
	// setPoll makes the realm call fn while JavaScript runs, on the
	// goroutine driving it, about every millisecond.
	setPoll(fn func())
	// interrupt stops the JavaScript running now and any that runs later:
	// an interrupted realm stays interrupted. It is safe from any
	// goroutine, also during and after close.
	interrupt()
	// interrupted reports whether the realm was interrupted, by interrupt
	// or its deadline.
	interrupted() bool
	// memoryExhausted reports whether the engine refused an allocation for
	// going over the memory limit since the realm was created.
	memoryExhausted() bool
	// close releases the realm.
	close()
}

// scriptError is an exception that reached the Go side of a realm.
type scriptError struct {
	name    string
	message string
	stack   string
	// outOfMemory is set when the engine ran out of memory and the
	// exception is the one it throws then (an InternalError "out of
	// memory", or null when it could not even allocate that).
	outOfMemory bool
}

func (e *scriptError) Error() string { return e.name + ": " + e.message }

// panicError is a Go panic recovered at the boundary of the engine.
type panicError struct {
	value any
}

func (e *panicError) Error() string { return fmt.Sprintf("panic: %v", e.value) }
