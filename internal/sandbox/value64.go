//go:build !(386 || arm)

package sandbox

import (
	"unsafe"

	lib "modernc.org/libquickjs"
)

// A JSValue is a struct of a payload and a tag on 64-bit targets.

const valueSize = unsafe.Sizeof(lib.TJSValue{})

var (
	jsUndefined = lib.TJSValue{Ftag: lib.EJS_TAG_UNDEFINED}
	jsException = lib.TJSValue{Ftag: lib.EJS_TAG_EXCEPTION}
)

func jsTag(v lib.TJSValue) int32 { return int32(v.Ftag) }

func isException(v lib.TJSValue) bool { return v.Ftag == lib.EJS_TAG_EXCEPTION }
