package canonjson

import (
	"errors"
	"math"
	"strings"
	"testing"
)

func TestAppend(t *testing.T) {
	cases := []struct{ in, want string }{
		{`{"b":1,"a":[true,null,"x"]}`, `{"a":[true,null,"x"],"b":1}`},
		{`{"a":1,"a":2}`, `{"a":2}`},
		{`[1.0, 1e21, 1e20, 1e-7, 1e-6, 0.1, -0, 100, 1.5e3, -2.5e-10]`, `[1,1e+21,100000000000000000000,1e-7,0.000001,0.1,0,100,1500,-2.5e-10]`},
		{`123456789012345678901`, `123456789012345680000`},
		{`1e400`, `null`},
		{`"<&>\u2028\u0007é"`, "\"<&>\u2028\\u0007é\""},
		{`{"\uffff":1,"😀":2,"a":3}`, `{"a":3,"😀":2,"` + "\uffff" + `":1}`},
		{` { } `, `{}`},
	}
	for _, c := range cases {
		got, err := Append(nil, []byte(c.in))
		if err != nil {
			t.Fatalf("%s: %v", c.in, err)
		}
		if string(got) != c.want {
			t.Errorf("%s: got %s, want %s", c.in, got, c.want)
		}
	}
}

func TestAppendRefuses(t *testing.T) {
	for _, in := range []string{``, `{`, `{} {}`, `[1,]`, strings.Repeat("[", MaxDepth+2) + strings.Repeat("]", MaxDepth+2)} {
		if _, err := Append(nil, []byte(in)); !errors.Is(err, ErrInvalid) {
			t.Errorf("%.20q: err %v, want ErrInvalid", in, err)
		}
	}
}

func TestAppendFloat(t *testing.T) {
	for f, want := range map[float64]string{
		math.NaN(): "null", math.Inf(-1): "null", 5e-324: "5e-324", math.MaxFloat64: "1.7976931348623157e+308",
		123e-20: "1.23e-18", 0.000001234: "0.000001234", 1e21: "1e+21", 999999999999999900000: "999999999999999900000",
	} {
		if got := string(AppendFloat(nil, f)); got != want {
			t.Errorf("%v: got %s, want %s", f, got, want)
		}
	}
}

func TestEqual(t *testing.T) {
	for _, c := range []struct {
		a, b string
		want bool
	}{
		{`{"a":1,"b":[true]}`, `{"b":[true], "a":1.0}`, true},
		{`{"a":1}`, `{"a":2}`, false},
		{`"x"`, `"x"`, true},
		{`nope`, `nope`, false},
	} {
		if got := Equal([]byte(c.a), []byte(c.b)); got != c.want {
			t.Errorf("Equal(%s, %s) = %v", c.a, c.b, got)
		}
	}
}
