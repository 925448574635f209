package sandbox

import (
	"bytes"
	"crypto/sha256"
	_ "embed"
	"encoding/hex"
	"runtime"

	lib "modernc.org/libquickjs"
)

//go:generate go test -run ^TestPreludeBytecode$ -update-prelude-bytecode

// preludeBC is the prelude compiled by `go generate`: a line naming what it
// was compiled from (see preludeKey), then the engine's bytecode. Starting
// a process's first worker from it saves compiling the prelude, which takes
// milliseconds, on the way to the process's first run.
//
//go:embed prelude.bc
var preludeBC []byte

// preludeBCMagic starts the first line of prelude.bc.
const preludeBCMagic = "aisdkgo-sandbox-prelude "

// engineRelease is the release of the engine, which prelude.bc was
// compiled by.
const engineRelease = "quickjs " + lib.MCONFIG_VERSION

// preludeKey names what the prelude's bytecode depends on: the prelude's
// source and file name, the engine's release and the architecture. The
// bytecode also carries the engine's format version, which the engine
// checks when it reads it; TestPreludeBytecode checks the whole file
// against the engine the tests are built with.
func preludeKey() string {
	h := sha256.New()
	for _, s := range []string{preludeJS, preludeFile, engineRelease, runtime.GOARCH} {
		h.Write([]byte(s))
		h.Write([]byte{0})
	}
	return hex.EncodeToString(h.Sum(nil))
}

// builtinPrelude returns the bytecode of prelude.bc when it was compiled
// from this prelude by this engine on this architecture, else nil.
func builtinPrelude() []byte {
	head, bc, ok := bytes.Cut(preludeBC, []byte{'\n'})
	if !ok || string(head) != preludeBCMagic+preludeKey() || len(bc) == 0 {
		return nil
	}
	return bc
}

// preludeBytecode returns the prelude's bytecode: the built-in one when it
// fits, else compiled now.
func preludeBytecode() ([]byte, error) {
	if bc := builtinPrelude(); bc != nil {
		return bc, nil
	}
	return compiledBytes(preludeJS, preludeFile)
}
