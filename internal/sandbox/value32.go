//go:build 386 || arm

package sandbox

import (
	"unsafe"

	lib "modernc.org/libquickjs"
)

// A JSValue is a NaN-boxed 64-bit integer on 32-bit targets, with the tag in
// its high half.

const valueSize = unsafe.Sizeof(lib.TJSValue(0))

var (
	jsUndefined = lib.TJSValue(uint64(uint32(lib.EJS_TAG_UNDEFINED)) << 32)
	jsException = lib.TJSValue(uint64(uint32(lib.EJS_TAG_EXCEPTION)) << 32)
)

func jsTag(v lib.TJSValue) int32 { return int32(uint64(v) >> 32) }

func isException(v lib.TJSValue) bool { return jsTag(v) == lib.EJS_TAG_EXCEPTION }

// fastJSON reports whether tool outputs are built as values directly (see
// buildJSON); on this layout JSON.parse makes them.
const fastJSON = false

var jsNull = jsUndefined

func jsBool(bool) lib.TJSValue { return jsUndefined }

func jsInt(int32) lib.TJSValue { return jsUndefined }

func jsNumber(float64) lib.TJSValue { return jsUndefined }
