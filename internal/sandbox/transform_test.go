package sandbox

import (
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestTransformIsCached(t *testing.T) {
	src := "const cached: number = 41; return cached + 1; // TestTransformIsCached"
	want, serr := transformSource(src)
	require.Nil(t, serr)
	assert.Equal(t, "42", mustRun(t, src, Options{}))
	cached, ok := transforms.get(sourceKey(src))
	require.True(t, ok)
	assert.Equal(t, want, cached.transformed)
	// The cached script is what runs the second time.
	assert.Equal(t, "42", mustRun(t, src, Options{}))

	// Failed transforms are not kept, and fail every time.
	bad := "return ; } // TestTransformIsCached"
	for range 2 {
		e := runErr(t, bad, Options{})
		assert.Equal(t, "SyntaxError", e.Name)
		_, ok = transforms.get(sourceKey(bad))
		assert.False(t, ok)
	}
}

func TestTransformCacheBounds(t *testing.T) {
	key := func(i int) [32]byte { return sourceKey(fmt.Sprint(i)) }
	c := newTransformCache(3, 100, 50)
	for i := range 3 {
		c.put(key(i), entry(strings.Repeat("x", 10)))
	}
	n, size := c.len()
	assert.Equal(t, 3, n)
	assert.Equal(t, 30, size)

	// Using 0 makes 1 the least recently used, evicted by the fourth.
	_, ok := c.get(key(0))
	require.True(t, ok)
	c.put(key(3), entry(strings.Repeat("y", 10)))
	_, ok = c.get(key(1))
	assert.False(t, ok)
	for _, i := range []int{0, 2, 3} {
		_, ok = c.get(key(i))
		assert.True(t, ok, i)
	}

	// Both bounds evict the least recently used entries, as many as needed.
	c.put(key(4), entry(strings.Repeat("z", 45)))
	c.put(key(5), entry(strings.Repeat("z", 45)))
	n, size = c.len()
	assert.Equal(t, 3, n)
	assert.Equal(t, 100, size)
	c.put(key(7), entry(strings.Repeat("v", 20)))
	n, size = c.len()
	assert.Equal(t, 2, n)
	assert.Equal(t, 65, size)
	for _, i := range []int{0, 2, 3, 4} {
		_, ok = c.get(key(i))
		assert.False(t, ok, i)
	}
	got, ok := c.get(key(5))
	require.True(t, ok)
	assert.Equal(t, strings.Repeat("z", 45), got.script)

	// An entry over the per-entry bound is not kept.
	c.put(key(6), entry(strings.Repeat("w", 51)))
	_, ok = c.get(key(6))
	assert.False(t, ok)

	// Putting a present key again keeps one entry.
	c.put(key(5), entry(strings.Repeat("z", 45)))
	n, _ = c.len()
	assert.Equal(t, 2, n)
}

func TestTransformCacheConcurrent(t *testing.T) {
	c := newTransformCache(8, 1<<20, 1<<10)
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 200 {
				n := (g + i) % 11
				k := sourceKey(fmt.Sprint(n))
				if got, ok := c.get(k); ok {
					assert.Equal(t, fmt.Sprint(n), got.script)
				} else {
					c.put(k, entry(fmt.Sprint(n)))
				}
			}
		}()
	}
	wg.Wait()
	n, _ := c.len()
	assert.LessOrEqual(t, n, 8)
}

func entry(script string) cacheEntry {
	return cacheEntry{transformed: transformed{script: script}}
}

func TestTransformKeepsPositions(t *testing.T) {
	src := `interface A { x: number }
const a: A = { x: 1 };
function f(n: number): number {
  if (n > 2) {
    throw new Error("boom " + n)
  }
  return (
    n + 1
  )
}
return f(a.x) + f(3);`
	tr, serr := transformSource(src)
	require.Nil(t, serr)
	lines := strings.Split(tr.script, "\n")
	// Every line of code stays on its line, and where types were removed
	// the code after them keeps its column.
	require.GreaterOrEqual(t, len(lines), 11)
	assert.Contains(t, lines[1], "const a")
	assert.Equal(t, strings.Index(strings.Split(src, "\n")[1], "{ x: 1 }"), strings.Index(lines[1], "{"))
	assert.Contains(t, lines[4], "throw new Error")
	assert.Equal(t, 4, strings.Index(lines[4], "throw"))
	// No line break after return: it would return undefined.
	assert.Contains(t, lines[6], "return")
	assert.NotContains(t, lines[7], "n+1")
	e := runErr(t, src, Options{})
	assert.Equal(t, "boom 3", e.Message)
	assert.Equal(t, "    at f (code-mode.js:5:20)\n    at <anonymous> (code-mode.js:11:18)", e.Details["stack"])
}

// FuzzTransform runs the nesting check and the transform, in this process,
// on arbitrary sources: a source the check lets through must not make the
// transform crash or take long, and the transformed script must keep the
// program's line count.
func FuzzTransform(f *testing.F) {
	for _, src := range nestedSources() {
		f.Add(src[:min(len(src), 20000)])
	}
	for _, p := range runaways {
		f.Add(p.src)
	}
	for _, seed := range []string{
		"return (\n 1\n)", "a\n++b", "x = a\n/re/g.test(s)", "if (a) /re/.test(b)", "x = {} / 2",
		"const f = async\nfunction () {}", "let x = `a${`b${c}`}`", "/*\n*/ return 1", "label: for (;;) break label",
		"x = a ? b : c ? d : e", "class A { static x = 1; #y = 2; get z() { return this.#y } }",
		"enum E { A, B }; return E.B", "function f<T>(x: T): T { return x } return f<number>(1)",
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, src string) {
		if len(src) > 64<<10 {
			return
		}
		if _, serr := checkNesting(src, DefaultLimits().MaxNestingDepth); serr != nil {
			return
		}
		start := time.Now()
		tr, serr := transformSource(src)
		if d := time.Since(start); d > 10*time.Second {
			t.Errorf("the transform of %d bytes took %v", len(src), d)
		}
		if serr != nil {
			return
		}
		// Lines are only added, never removed, up to the program's own
		// last line.
		if n, m := strings.Count(src, "\n"), strings.Count(tr.script, "\n"); strings.IndexByte(src, '\r') < 0 && m < n && !strings.Contains(src, "`") {
			t.Errorf("the script has %d lines, the program %d", m, n)
		}
	})
}
