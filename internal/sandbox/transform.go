package sandbox

import (
	"container/list"
	"crypto/sha256"
	"fmt"
	"io"
	"regexp"
	"strings"
	"sync"

	"github.com/evanw/esbuild/pkg/api"
)

// The program becomes the body of an async function expression. The head
// ends with a newline so that the program's own lines keep their numbers,
// shifted by exactly one.
const (
	wrapHead = "(async function () {\n"
	wrapTail = "\n})"
)

// moduleSyntax matches a line that starts an import or export declaration.
// Dynamic import(...) is an expression and does not match.
var moduleSyntax = regexp.MustCompile(`^\s*(import\s*[\w{*"'$]|export\b)`)

// compileSource removes TypeScript syntax from src and wraps it, returning a
// script whose completion value is the program's async function. Syntax
// newer than ES2023, which the engine implements, is lowered where esbuild
// can (`using` declarations, decorators); its helpers become global
// variables of the run. A syntax error is returned as a CODE_MODE_USER_ERROR
// *Error named SyntaxError.
func compileSource(src string) (string, *Error) {
	key := sourceKey(src)
	if script, ok := transforms.get(key); ok {
		return script, nil
	}
	script, err := transformSource(src)
	if err == nil {
		transforms.put(key, script)
	}
	return script, err
}

// transformSource is compileSource without the cache.
func transformSource(src string) (string, *Error) {
	res := api.Transform(wrapHead+src+wrapTail, api.TransformOptions{
		Loader:   api.LoaderTS,
		Target:   api.ES2023,
		Charset:  api.CharsetUTF8,
		LogLevel: api.LogLevelSilent,
	})
	if len(res.Errors) == 0 {
		return string(res.Code), nil
	}
	return "", syntaxError(src, res.Errors[0])
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

// transforms caches the scripts of programs that compiled, by the SHA-256
// of their source. Failed transforms are not cached.
var transforms = newTransformCache(transformCacheEntries, transformCacheBytes, transformCacheMaxEntry)

func sourceKey(src string) [sha256.Size]byte {
	h := sha256.New()
	_, _ = io.WriteString(h, src)
	var k [sha256.Size]byte
	h.Sum(k[:0])
	return k
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
	key    [sha256.Size]byte
	script string
}

func newTransformCache(maxEntries, maxBytes, maxEntry int) *transformCache {
	return &transformCache{
		entries:    map[[sha256.Size]byte]*list.Element{},
		maxEntries: maxEntries,
		maxBytes:   maxBytes,
		maxEntry:   maxEntry,
	}
}

func (c *transformCache) get(key [sha256.Size]byte) (string, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.entries[key]
	if !ok {
		return "", false
	}
	c.order.MoveToFront(e)
	return e.Value.(*transformEntry).script, true
}

func (c *transformCache) put(key [sha256.Size]byte, script string) {
	if len(script) > c.maxEntry {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if e, ok := c.entries[key]; ok {
		c.order.MoveToFront(e)
		return
	}
	c.entries[key] = c.order.PushFront(&transformEntry{key: key, script: script})
	c.bytes += len(script)
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
