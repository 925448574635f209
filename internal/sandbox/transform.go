package sandbox

import (
	"container/list"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"io"
	"regexp"
	"strings"
	"sync"

	"github.com/evanw/esbuild/pkg/api"
)

// The program becomes the body of an async function expression. esbuild sees
// the head on a line of its own; in the script the engine runs, relayout
// moves the program's first line up to share it, so that the program's own
// lines keep their numbers.
const (
	wrapHead = "(async function () {\n"
	wrapTail = "\n})"
)

// moduleSyntax matches a line that starts an import or export declaration.
// Dynamic import(...) is an expression and does not match.
var moduleSyntax = regexp.MustCompile(`^\s*(import\s*[\w{*"'$]|export\b)`)

// transformed is a program made ready for the engine.
type transformed struct {
	// script is a global script whose completion value is the program's
	// async function.
	script string
	// shift is the number of columns the wrapper adds to the program's
	// first line; every other line keeps the program's columns where the
	// transform allows.
	shift int
}

// transformSource removes TypeScript syntax from src and wraps it. Syntax
// newer than ES2023, which the engine implements, is lowered where esbuild
// can (`using` declarations, decorators); its helpers become global
// variables of the run. A syntax error is returned as a CODE_MODE_USER_ERROR
// *Error named SyntaxError.
//
// esbuild prints its output without whitespace, which keeps the work linear
// in the size of the program (indenting nested blocks is quadratic in their
// depth), and with a source map. relayout then puts every piece of the
// output back on the line, and where it can at the column, it came from, so
// that stack traces and positions the engine reports name the program's own
// lines.
func transformSource(src string) (transformed, *Error) {
	if strings.IndexByte(src, '\r') >= 0 {
		// A line terminator the engine and esbuild count differently;
		// inside template literals both mean a line feed anyway.
		src = strings.ReplaceAll(strings.ReplaceAll(src, "\r\n", "\n"), "\r", "\n")
	}
	input := wrapHead + src + wrapTail
	res := api.Transform(input, api.TransformOptions{
		Loader:           api.LoaderTS,
		Target:           api.ES2023,
		Charset:          api.CharsetUTF8,
		LogLevel:         api.LogLevelSilent,
		MinifyWhitespace: true,
		LegalComments:    api.LegalCommentsNone,
		Sourcemap:        api.SourceMapExternal,
	})
	if len(res.Errors) > 0 {
		return transformed{}, syntaxError(src, res.Errors[0])
	}
	var sm struct {
		Mappings string `json:"mappings"`
	}
	if err := json.Unmarshal(res.Map, &sm); err != nil {
		return transformed{script: string(res.Code)}, nil
	}
	script, shift := relayout(input, string(res.Code), sm.Mappings)
	return transformed{script: script, shift: shift}, nil
}

// syntaxError describes an esbuild error in terms of the user's program.
func syntaxError(src string, m api.Message) *Error {
	msg := m.Text
	details := map[string]any{}
	userLines := strings.Count(src, "\n") + 1
	if loc := m.Location; loc != nil {
		line := loc.Line - 1 // the wrapper head takes one line
		if line >= 1 && line <= userLines {
			col := loc.Column + 1
			details["line"] = line
			details["column"] = col
			if moduleSyntax.MatchString(loc.LineText) {
				msg = "import and export declarations are not supported: the program is the body of an async function, and host tools are reached through the global `tools` object"
			} else {
				msg = fmt.Sprintf("%s (line %d, column %d)", msg, line, col)
			}
		} else {
			msg += " (at the end of the program: check for unbalanced brackets)"
		}
	}
	e := &Error{Code: CodeUserError, Name: "SyntaxError", Message: msg}
	if len(details) > 0 {
		e.Details = details
	}
	return e
}

// Bounds of the transform cache. Programs are often run again unchanged
// (retries, the same snippet with other tool results), and the transform is
// a sizeable part of a short run.
const (
	transformCacheEntries  = 256
	transformCacheBytes    = 8 << 20
	transformCacheMaxEntry = 256 << 10
)

// transforms caches, in the host process, the transformed scripts of
// programs that compiled, by the SHA-256 of their source. Failed transforms
// are not cached.
var transforms = newTransformCache(transformCacheEntries, transformCacheBytes, transformCacheMaxEntry)

func sourceKey(src string) [sha256.Size]byte {
	h := sha256.New()
	_, _ = io.WriteString(h, src)
	var k [sha256.Size]byte
	h.Sum(k[:0])
	return k
}

// cacheEntry is a cached transform and the nesting depth of its source.
type cacheEntry struct {
	transformed
	depth int
}

// transformCache is a least-recently-used map from source hashes to
// scripts, bounded in entries and in script bytes. It is safe for
// concurrent use.
type transformCache struct {
	mu         sync.Mutex
	entries    map[[sha256.Size]byte]*list.Element
	order      list.List // of *transformEntry, most recently used first
	bytes      int
	maxEntries int
	maxBytes   int
	maxEntry   int
}

type transformEntry struct {
	key [sha256.Size]byte
	cacheEntry
}

func newTransformCache(maxEntries, maxBytes, maxEntry int) *transformCache {
	return &transformCache{
		entries:    map[[sha256.Size]byte]*list.Element{},
		maxEntries: maxEntries,
		maxBytes:   maxBytes,
		maxEntry:   maxEntry,
	}
}

func (c *transformCache) get(key [sha256.Size]byte) (cacheEntry, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.entries[key]
	if !ok {
		return cacheEntry{}, false
	}
	c.order.MoveToFront(e)
	return e.Value.(*transformEntry).cacheEntry, true
}

func (c *transformCache) put(key [sha256.Size]byte, ce cacheEntry) {
	if len(ce.script) > c.maxEntry {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if e, ok := c.entries[key]; ok {
		c.order.MoveToFront(e)
		return
	}
	c.entries[key] = c.order.PushFront(&transformEntry{key: key, cacheEntry: ce})
	c.bytes += len(ce.script)
	for len(c.entries) > c.maxEntries || c.bytes > c.maxBytes {
		last := c.order.Back()
		te := c.order.Remove(last).(*transformEntry)
		delete(c.entries, te.key)
		c.bytes -= len(te.script)
	}
}

// len returns the number of cached scripts and their total size.
func (c *transformCache) len() (entries, bytes int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.entries), c.bytes
}
