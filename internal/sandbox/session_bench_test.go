package sandbox

import (
	"testing"
	"time"
)

// BenchmarkSession100Calls runs a program like BenchmarkRun100Calls's in a
// session of this process whose calls are answered at once with their
// input (echoLink): the part of a tool call's cost that is not the
// crossing between host and worker.
func BenchmarkSession100Calls(b *testing.B) {
	tmpl, err := newPreludeTemplate(defaultEngine)
	if err != nil {
		b.Fatal(err)
	}
	t, serr := transformSource(`
let total = 0;
for (let k = 0; k < 100; k++) {
  const r = await tools.getInventory({ productId: "p" + k, availableUnits: 42 });
  total += r.availableUnits;
}
return total;`)
	if serr != nil {
		b.Fatal(serr)
	}
	limits := DefaultLimits()
	b.ReportAllocs()
	for b.Loop() {
		s := newTemplateSession(tmpl, &echoLink{})
		rep := s.run(runRequest{script: t.script, shift: t.shift, limits: limits, deadline: time.Now().Add(time.Minute), hasTools: true})
		s.close()
		if rep.kind != reportValue || rep.value != "4200" {
			b.Fatalf("got %+v", rep)
		}
	}
}
