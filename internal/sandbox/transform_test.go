package sandbox

import (
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestCompileSourceIsCached(t *testing.T) {
	src := "const cached: number = 41; return cached + 1; // TestCompileSourceIsCached"
	want, err := transformSource(src)
	require.Nil(t, err)
	got, serr := compileSource(src)
	require.Nil(t, serr)
	assert.Equal(t, want, got)
	cached, ok := transforms.get(sourceKey(src))
	require.True(t, ok)
	assert.Equal(t, want, cached)
	assert.Equal(t, "42", mustRun(t, src, Options{}))

	// Failed transforms are not kept, and fail every time.
	bad := "return ; } // TestCompileSourceIsCached"
	for range 2 {
		_, serr = compileSource(bad)
		require.NotNil(t, serr)
		assert.Equal(t, "SyntaxError", serr.Name)
		_, ok = transforms.get(sourceKey(bad))
		assert.False(t, ok)
	}
}

func TestTransformCacheBounds(t *testing.T) {
	key := func(i int) [32]byte { return sourceKey(fmt.Sprint(i)) }
	c := newTransformCache(3, 100, 50)
	for i := range 3 {
		c.put(key(i), strings.Repeat("x", 10))
	}
	n, size := c.len()
	assert.Equal(t, 3, n)
	assert.Equal(t, 30, size)

	// Using 0 makes 1 the least recently used, evicted by the fourth.
	_, ok := c.get(key(0))
	require.True(t, ok)
	c.put(key(3), strings.Repeat("y", 10))
	_, ok = c.get(key(1))
	assert.False(t, ok)
	for _, i := range []int{0, 2, 3} {
		_, ok = c.get(key(i))
		assert.True(t, ok, i)
	}

	// Both bounds evict the least recently used entries, as many as needed.
	c.put(key(4), strings.Repeat("z", 45))
	c.put(key(5), strings.Repeat("z", 45))
	n, size = c.len()
	assert.Equal(t, 3, n)
	assert.Equal(t, 100, size)
	c.put(key(7), strings.Repeat("v", 20))
	n, size = c.len()
	assert.Equal(t, 2, n)
	assert.Equal(t, 65, size)
	for _, i := range []int{0, 2, 3, 4} {
		_, ok = c.get(key(i))
		assert.False(t, ok, i)
	}
	got, ok := c.get(key(5))
	require.True(t, ok)
	assert.Equal(t, strings.Repeat("z", 45), got)

	// An entry over the per-entry bound is not kept.
	c.put(key(6), strings.Repeat("w", 51))
	_, ok = c.get(key(6))
	assert.False(t, ok)

	// Putting a present key again keeps one entry.
	c.put(key(5), strings.Repeat("z", 45))
	n, _ = c.len()
	assert.Equal(t, 2, n)
}

func TestTransformCacheConcurrent(t *testing.T) {
	var wg sync.WaitGroup
	errs := make(chan error, 4)
	for g := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 40 {
				n := (g + i) % 7
				src := fmt.Sprintf("const v: number = %d; return v * 2; // TestTransformCacheConcurrent", n)
				script, serr := compileSource(src)
				if serr != nil {
					errs <- serr
					return
				}
				if !strings.Contains(script, fmt.Sprintf("const v = %d;", n)) {
					errs <- fmt.Errorf("script for %d is %q", n, script)
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		assert.NoError(t, err)
	}
}
