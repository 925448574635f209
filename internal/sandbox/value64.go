//go:build !(386 || arm)

package sandbox

import (
	"math"
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

// fastJSON reports whether tool outputs are built as values directly (see
// buildJSON); that needs the value layout of this file.
const fastJSON = true

var jsNull = lib.TJSValue{Ftag: lib.EJS_TAG_NULL}

func jsBool(b bool) lib.TJSValue {
	v := lib.TJSValue{Ftag: lib.EJS_TAG_BOOL}
	if b {
		v.Fu.Fuint641 = 1
	}
	return v
}

func jsInt(i int32) lib.TJSValue {
	v := lib.TJSValue{Ftag: lib.EJS_TAG_INT}
	v.Fu.Fuint641 = uint64(uint32(i))
	return v
}

// jsNumber makes the value the engine makes of d: an integer when d is one
// that fits in 32 bits and is not -0, else a double.
func jsNumber(d float64) lib.TJSValue {
	if d >= math.MinInt32 && d <= math.MaxInt32 {
		if i := int32(d); math.Float64bits(float64(i)) == math.Float64bits(d) {
			return jsInt(i)
		}
	}
	v := lib.TJSValue{Ftag: lib.EJS_TAG_FLOAT64}
	v.Fu.Fuint641 = math.Float64bits(d)
	return v
}
