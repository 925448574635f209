package jsonvalid

import (
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/stretchr/testify/require"
)

// oracle pairs a compiled checker with the general validator of the same
// schema.
type oracle struct {
	name     string
	schema   *jsonschema.Schema
	checker  *Checker
	resolved *jsonschema.Resolved
}

func oracles(t testing.TB) []oracle {
	t.Helper()
	var out []oracle
	for _, tc := range accepted(t) {
		rs, err := tc.schema.Resolve(nil)
		require.NoError(t, err, tc.name)
		c := Compile(tc.schema)
		require.NotNil(t, c, tc.name)
		out = append(out, oracle{tc.name, tc.schema, c, rs})
	}
	return out
}

// general validates data the way callers without a checker do.
func (o *oracle) general(data []byte) error {
	var v any
	if err := json.Unmarshal(data, &v); err != nil {
		return err
	}
	return o.resolved.Validate(v)
}

// outcome of one comparison.
type outcome int

const (
	agreeValid outcome = iota
	agreeInvalid
	fellBack
)

// compare checks data, which must be valid JSON, with both validators and
// returns an error describing any disagreement.
func (o *oracle) compare(data []byte) (outcome, error) {
	got := o.checker.Check(data)
	if ErrFallback(got) {
		return fellBack, nil
	}
	want := o.general(data)
	switch {
	case got == nil && want == nil:
		return agreeValid, nil
	case got != nil && want != nil:
		return agreeInvalid, nil
	}
	schema, _ := json.Marshal(o.schema)
	return 0, fmt.Errorf("schema %s %s\ninput  %q\nchecker: %v\ngeneral: %v", o.name, schema, data, got, want)
}

// gen writes random JSON texts, mostly shaped by a schema so that both
// verdicts are common, with the awkward spellings JSON allows: numbers
// with exponents and trailing zeros, escapes, surrogate pairs, duplicate
// and escaped keys, invalid UTF-8, whitespace between every token.
type gen struct {
	r   *rand.Rand
	buf []byte
	// noise is the probability of each deliberate deviation from the
	// schema (wrong type, missing required property, odd key...); it is
	// drawn per document so that some documents are entirely valid.
	noise float64
	// oddKeys allows escaped keys and keys with invalid UTF-8.
	oddKeys bool
}

func (g *gen) chance(p float64) bool { return g.r.Float64() < p }

func (g *gen) space() {
	if !g.chance(0.15) {
		return
	}
	for range g.r.IntN(3) + 1 {
		g.buf = append(g.buf, " \t\n\r"[g.r.IntN(4)])
	}
}

var allTypes = []string{"null", "boolean", "integer", "number", "string", "array", "object"}

// pickType chooses the type of the next value: usually one the schema
// allows.
func (g *gen) pickType(s *jsonschema.Schema) string {
	if s != nil && !g.chance(g.noise) {
		switch {
		case s.Type != "":
			return s.Type
		case len(s.Types) > 0:
			return s.Types[g.r.IntN(len(s.Types))]
		case s.Items != nil || s.MinItems != nil || s.MaxItems != nil:
			if g.chance(0.7) {
				return "array"
			}
		case s.Properties != nil || s.Required != nil || s.AdditionalProperties != nil:
			if g.chance(0.7) {
				return "object"
			}
		case s.MinLength != nil || s.MaxLength != nil:
			if g.chance(0.7) {
				return "string"
			}
		case s.Minimum != nil || s.Maximum != nil || s.ExclusiveMinimum != nil || s.ExclusiveMaximum != nil:
			if g.chance(0.7) {
				return "number"
			}
		}
	}
	return allTypes[g.r.IntN(len(allTypes))]
}

func (g *gen) value(s *jsonschema.Schema, depth int) {
	g.space()
	ty := g.pickType(s)
	if depth > 5 && (ty == "array" || ty == "object") {
		ty = "null"
	}
	switch ty {
	case "null":
		g.buf = append(g.buf, "null"...)
	case "boolean":
		g.buf = strconv.AppendBool(g.buf, g.chance(0.5))
	case "integer", "number":
		g.number(s, ty == "integer")
	case "string":
		g.string(s)
	case "array":
		g.array(s, depth)
	case "object":
		g.object(s, depth)
	}
	g.space()
}

// bounds returns the numeric bounds of s worth probing.
func bounds(s *jsonschema.Schema) []float64 {
	var out []float64
	if s == nil {
		return out
	}
	for _, p := range []*float64{s.Minimum, s.Maximum, s.ExclusiveMinimum, s.ExclusiveMaximum} {
		if p != nil {
			out = append(out, *p)
		}
	}
	return out
}

func (g *gen) number(s *jsonschema.Schema, integer bool) {
	switch b := bounds(s); {
	case g.chance(g.noise / 4):
		// Out of float64 range, or below its precision.
		g.buf = append(g.buf, []string{"1e400", "-1e400", "1E+309", "1e-400", "-1e-400", "0e999999999",
			"179769313486231590000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000",
		}[g.r.IntN(7)]...)
		return
	case len(b) > 0 && g.chance(0.6):
		f := b[g.r.IntN(len(b))]
		switch {
		case g.chance(g.noise):
			// Just past the bound, or just inside.
			if g.chance(0.5) {
				f = math.Nextafter(f, math.Inf(1))
			} else {
				f = math.Nextafter(f, math.Inf(-1))
			}
		case g.chance(0.5):
			f += float64(g.r.IntN(5) - 2)
		}
		if integer && !g.chance(g.noise) {
			f = math.Round(f)
		}
		g.float(f)
		return
	}
	var f float64
	switch g.r.IntN(6) {
	case 0:
		f = float64(g.r.IntN(21) - 10)
	case 1:
		f = float64(g.r.Int64N(1<<62) - 1<<61)
	case 2:
		f = []float64{0, 127, -128, 128, -129, 255, 256, math.MaxInt32, math.MinInt32, math.MaxUint32, 1 << 53, 1<<53 + 1, 1e308}[g.r.IntN(13)]
	default:
		f = (g.r.Float64() - 0.5) * math.Pow(10, float64(g.r.IntN(12)-4))
		if integer && !g.chance(g.noise) {
			f = math.Round(f)
		}
	}
	if g.chance(0.1) {
		f = -f
	}
	g.float(f)
}

// float writes f in one of its JSON spellings.
func (g *gen) float(f float64) {
	switch {
	case f == 0 && g.chance(0.3):
		g.buf = append(g.buf, []string{"-0", "0.0", "-0.0", "0e5", "-0E-3", "0.000"}[g.r.IntN(6)]...)
	case f == math.Trunc(f) && math.Abs(f) < 1e15 && g.chance(0.4):
		i := strconv.FormatInt(int64(f), 10)
		n := 5
		if f == 0 {
			n = 3 // no leading zeros
		}
		switch g.r.IntN(n) {
		case 0:
			i += ".0"
		case 1:
			i += ".000"
		case 2:
			i += "e0"
		case 3:
			i += "0E-1"
		default:
			i += "00e-2"
		}
		g.buf = append(g.buf, i...)
	default:
		format := []byte{'g', 'e', 'E', 'f'}[g.r.IntN(4)]
		if format == 'f' && math.Abs(f) > 1e30 {
			format = 'g'
		}
		g.buf = strconv.AppendFloat(g.buf, f, format, -1, 64)
	}
}

// pieces of strings, raw and escaped.
var stringPieces = []string{
	"a", "b", "Z", "0", " ", "é", "日", "😀", "\u2028", "\x7f",
	`\"`, `\\`, `\/`, `\n`, `\t`, `\u0041`, `\u00e9`, `\u65e5`, `\ud83d\ude00`, `\uD83D\uDE00`,
	`\ud800`, `\udc00x`, `\ud83dA`, `\u0000`, `\ufffd`,
	"\xff", "\xe6\x97", "\xed\xa0\x80", "\xef\xbf\xbd",
}

func (g *gen) string(s *jsonschema.Schema) {
	n := g.r.IntN(6)
	if s != nil && g.chance(0.6) {
		var ls []int
		for _, p := range []*int{s.MinLength, s.MaxLength} {
			if p != nil {
				ls = append(ls, *p)
			}
		}
		if len(ls) > 0 {
			n = max(0, ls[g.r.IntN(len(ls))]+g.r.IntN(3)-1)
		}
	}
	g.buf = append(g.buf, '"')
	for range n {
		if g.chance(0.6) {
			g.buf = append(g.buf, stringPieces[g.r.IntN(3)]...)
		} else {
			g.buf = append(g.buf, stringPieces[g.r.IntN(len(stringPieces))]...)
		}
	}
	g.buf = append(g.buf, '"')
}

func (g *gen) array(s *jsonschema.Schema, depth int) {
	n := g.r.IntN(4)
	var items *jsonschema.Schema
	if s != nil {
		items = s.Items
		var ls []int
		for _, p := range []*int{s.MinItems, s.MaxItems} {
			if p != nil {
				ls = append(ls, *p)
			}
		}
		if len(ls) > 0 && g.chance(0.7) {
			n = max(0, ls[g.r.IntN(len(ls))]+g.r.IntN(3)-1)
		}
	}
	g.buf = append(g.buf, '[')
	g.space()
	for i := range n {
		if i > 0 {
			g.buf = append(g.buf, ',')
		}
		g.value(items, depth+1)
	}
	g.buf = append(g.buf, ']')
}

// key writes an object key, sometimes escaped or not valid UTF-8.
func (g *gen) key(k string) {
	switch {
	case g.oddKeys && g.chance(0.2):
		// Escape one character of the key.
		b, _ := json.Marshal(k)
		g.buf = append(g.buf, '"')
		inner := b[1 : len(b)-1]
		if len(inner) > 0 && g.chance(0.8) {
			g.buf = fmt.Appendf(g.buf, `\u%04x`, inner[0])
			inner = inner[1:]
		} else {
			g.buf = append(g.buf, `\/`...)
		}
		g.buf = append(g.buf, inner...)
		g.buf = append(g.buf, '"')
	case g.oddKeys && g.chance(0.1):
		g.buf = append(g.buf, '"')
		g.buf = append(g.buf, k...)
		g.buf = append(g.buf, []string{"\xff", "\xfe", "\xc3", "\xef\xbf\xbd"}[g.r.IntN(4)]...)
		g.buf = append(g.buf, '"')
	default:
		b, _ := json.Marshal(k)
		g.buf = append(g.buf, b...)
	}
}

func (g *gen) object(s *jsonschema.Schema, depth int) {
	var names []string
	if s != nil {
		for _, r := range s.Required {
			if !g.chance(g.noise) {
				names = append(names, r)
			}
		}
		for p := range s.Properties {
			if !slices.Contains(s.Required, p) && g.chance(0.4) {
				names = append(names, p)
			}
		}
	}
	for range g.r.IntN(3) {
		if g.chance(g.noise * 2) {
			names = append(names, []string{"x", "extra", "", "é", "\ufffd", "a", "k1", "name"}[g.r.IntN(8)])
		}
	}
	slices.Sort(names)
	names = slices.Compact(names)
	if len(names) > 0 && g.chance(g.noise/3) {
		names = append(names, names[g.r.IntN(len(names))])
	}
	g.r.Shuffle(len(names), func(i, j int) { names[i], names[j] = names[j], names[i] })
	g.buf = append(g.buf, '{')
	g.space()
	for i, k := range names {
		if i > 0 {
			g.buf = append(g.buf, ',')
			g.space()
		}
		g.key(k)
		g.space()
		g.buf = append(g.buf, ':')
		var vs *jsonschema.Schema
		if s != nil {
			if p, ok := s.Properties[k]; ok {
				vs = p
			} else if a := s.AdditionalProperties; a != nil && a.Not == nil {
				vs = a
			}
		}
		g.value(vs, depth+1)
	}
	g.buf = append(g.buf, '}')
}

// document returns one random JSON text for s.
func (g *gen) document(s *jsonschema.Schema) []byte {
	g.buf = g.buf[:0]
	g.noise = []float64{0, 0, 0.02, 0.1, 0.3}[g.r.IntN(5)]
	g.oddKeys = g.chance(0.05)
	g.value(s, 0)
	return g.buf
}

// TestCheckerMatchesValidator compares both validators on random values
// generated from a fixed seed for every accepted schema.
func TestCheckerMatchesValidator(t *testing.T) {
	n := 3000
	if raceEnabled || testing.Short() {
		n = 300
	}
	for i, o := range oracles(t) {
		t.Run(o.name, func(t *testing.T) {
			g := &gen{r: rand.New(rand.NewPCG(uint64(i), 0x5eed))}
			var counts [3]int
			for range n {
				data := g.document(o.schema)
				if !json.Valid(data) {
					continue
				}
				out, err := o.compare(data)
				if err != nil {
					t.Fatal(err)
				}
				counts[out]++
			}
			t.Logf("agreed valid %d, agreed invalid %d, fell back %d", counts[agreeValid], counts[agreeInvalid], counts[fellBack])
			// The comparison means little if the checker mostly defers.
			require.Less(t, counts[fellBack], n/5, "too many fallbacks")
		})
	}
}
