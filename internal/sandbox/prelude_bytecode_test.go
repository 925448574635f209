package sandbox

import (
	"bytes"
	"flag"
	"os"
	"testing"
)

var updatePreludeBytecode = flag.Bool("update-prelude-bytecode", false, "write prelude.bc (go generate)")

// TestPreludeBytecode checks that prelude.bc holds the bytecode this engine
// compiles from prelude.js, which workers then start from; with
// -update-prelude-bytecode (go generate) it writes the file.
func TestPreludeBytecode(t *testing.T) {
	key := preludeKey()
	compiled.Delete(preludeJS)
	want, err := compiledBytes(preludeJS, preludeFile)
	if err != nil {
		t.Fatal(err)
	}
	file := append([]byte(preludeBCMagic+key+"\n"), want...)
	if *updatePreludeBytecode {
		if err := os.WriteFile("prelude.bc", file, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	if !bytes.Equal(preludeBC, file) {
		t.Fatal("prelude.bc does not hold the bytecode of prelude.js for this engine; run go generate ./internal/sandbox")
	}
	if !bytes.Equal(builtinPrelude(), want) {
		t.Fatal("builtinPrelude does not return the bytecode of prelude.bc")
	}
}

// TestPreludeBytecodeStale checks that bytecode compiled from another
// prelude or engine is not used.
func TestPreludeBytecodeStale(t *testing.T) {
	saved := preludeBC
	defer func() { preludeBC = saved }()
	_, bc, _ := bytes.Cut(saved, []byte{'\n'})
	preludeBC = append([]byte(preludeBCMagic+"0123\n"), bc...)
	if builtinPrelude() != nil {
		t.Error("bytecode under another key was used")
	}
	preludeBC = nil
	if builtinPrelude() != nil {
		t.Error("an empty prelude.bc was used")
	}
}
