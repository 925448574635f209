package sandbox

import (
	"context"
	"encoding/json"
	"strconv"
	"testing"
	"time"
)

func BenchmarkRunTrivial(b *testing.B) {
	b.ReportAllocs()
	ctx := context.Background()
	opts := Options{Source: "const x = 1; return x + 1;"}
	for b.Loop() {
		if _, err := Run(ctx, opts); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkRun100Calls(b *testing.B) {
	b.ReportAllocs()
	ctx := context.Background()
	tool := func(_ context.Context, c ToolCall) (json.RawMessage, error) {
		var in struct {
			ProductID string `json:"productId"`
		}
		if err := json.Unmarshal(c.Input, &in); err != nil {
			return nil, err
		}
		return json.RawMessage(`{"productId":` + strconv.Quote(in.ProductID) + `,"availableUnits":42}`), nil
	}
	opts := Options{
		Source: `
let total = 0;
for (let k = 0; k < 100; k++) {
  const r = await tools.getInventory({ productId: "p" + k });
  total += r.availableUnits;
}
return total;`,
		CallTool: tool,
	}
	for b.Loop() {
		res, err := Run(ctx, opts)
		if err != nil {
			b.Fatal(err)
		}
		if string(res.Value) != "4200" {
			b.Fatalf("got %s", res.Value)
		}
	}
}

func FuzzRun(f *testing.F) {
	for _, seed := range []string{
		"return 1 + 1",
		"while (true) {}",
		"return ; }",
		"const a: number[] = []; for (;;) a.push(1)",
		"throw null",
		"await tools.x({})",
		"tools.x({}).then(() => {}); return 1",
		"console.log('%s %d %j', {}, [], 1n)",
		"function f(): any { return f() } return f()",
		"return new Proxy({}, { get() { throw 1 } })",
		"}); (function(){",
		"\x00\xff`${",
		"async function* g() { yield* g() } for await (const x of g()) {}",
	} {
		f.Add(seed)
	}
	tool := func(ctx context.Context, c ToolCall) (json.RawMessage, error) {
		if c.Name == "x" {
			return c.Input, nil
		}
		return nil, &Error{Code: CodeToolError, Message: "Unknown tool: " + c.Name}
	}
	f.Fuzz(func(t *testing.T, src string) {
		done := make(chan struct{})
		go func() {
			defer close(done)
			_, err := Run(context.Background(), Options{
				Source:   src,
				CallTool: tool,
				Limits:   Limits{Timeout: 100 * time.Millisecond, MemoryBytes: 8 << 20, StackBytes: 256 << 10, MaxConsoleBytes: 1024},
			})
			if err != nil {
				if _, ok := err.(*Error); !ok {
					t.Errorf("error %T is not an *Error: %v", err, err)
				}
			}
		}()
		select {
		case <-done:
		case <-time.After(20 * time.Second):
			t.Fatalf("Run did not return for %q", src)
		}
	})
}
