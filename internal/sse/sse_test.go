package sse

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"testing/iotest"
)

func collect(t *testing.T, rd Reader, body string) ([]Event, error) {
	t.Helper()
	var evs []Event
	for ev, err := range rd.Events(iotest.HalfReader(strings.NewReader(body))) {
		if err != nil {
			return evs, err
		}
		evs = append(evs, ev)
	}
	return evs, nil
}

func TestEvents(t *testing.T) {
	body := "\xef\xbb\xbf: comment\nevent: a\ndata: one\ndata: two\nid: 7\n\nretry: 10\n\ndata: three\r\rdata: {\"cut"
	evs, err := collect(t, Reader{}, body)
	if err != nil {
		t.Fatal(err)
	}
	want := []Event{{Event: "a", Data: "one\ntwo", ID: "7"}, {Data: "three"}, {Data: `{"cut`, Partial: true}}
	if len(evs) != len(want) {
		t.Fatalf("got %+v, want %+v", evs, want)
	}
	for i := range want {
		if evs[i].Event != want[i].Event || evs[i].Data != want[i].Data || evs[i].ID != want[i].ID || evs[i].Partial != want[i].Partial {
			t.Errorf("event %d: got %+v, want %+v", i, evs[i], want[i])
		}
	}
}

func TestEventsAfterBlankLineAreNotPartial(t *testing.T) {
	evs, err := collect(t, Reader{}, "data: x\n\n")
	if err != nil || len(evs) != 1 || evs[0].Partial {
		t.Fatalf("got %+v, %v", evs, err)
	}
}

func TestLineTooLong(t *testing.T) {
	long := "data: " + strings.Repeat("x", 100) + "\n\n"
	_, err := collect(t, Reader{MaxLine: 64}, "data: ok\n\n"+long)
	if !errors.Is(err, ErrLineTooLong) {
		t.Fatalf("got %v, want ErrLineTooLong", err)
	}
	asked := ""
	_, err = collect(t, Reader{MaxLine: 64, Elide: func(head []byte) bool { asked = string(head); return false }}, long)
	if !errors.Is(err, ErrLineTooLong) {
		t.Fatalf("got %v, want ErrLineTooLong", err)
	}
	if len(asked) != 64 || !strings.HasPrefix(asked, "data: xxx") {
		t.Errorf("Elide was asked about %q", asked)
	}
}

func TestElide(t *testing.T) {
	big := strings.Repeat("y", 300)
	line := `{"type":"done","item":{"id":"m1","text":"` + big + `","tags":["a","` + big + `"],"n":[1,{"k":"v"}],"esc":"a\"b` + big + `"}}`
	body := "data: " + line + "\n\ndata: {\"type\":\"next\"}\n\n"
	rd := Reader{MaxLine: 128, MaxString: 16, Elide: func(head []byte) bool { return strings.Contains(string(head), `"done"`) }}
	evs, err := collect(t, rd, body)
	if err != nil {
		t.Fatal(err)
	}
	if len(evs) != 2 {
		t.Fatalf("got %d events", len(evs))
	}
	var v map[string]any
	if err := json.Unmarshal([]byte(evs[0].Data), &v); err != nil {
		t.Fatalf("elided data is not JSON: %v\n%s", err, evs[0].Data)
	}
	want := `{"type":"done","item":{"id":"m1","text":"","tags":["a",""],"n":[1,{"k":"v"}],"esc":""}}`
	if evs[0].Data != want {
		t.Errorf("got  %s\nwant %s", evs[0].Data, want)
	}
	if got := strings.Join(evs[0].Elided, ","); got != "text,tags,esc" {
		t.Errorf("elided keys %q", got)
	}
	if evs[1].Data != `{"type":"next"}` || evs[1].Elided != nil {
		t.Errorf("second event %+v", evs[1])
	}

	// A line whose short strings still do not fit fails.
	many := "data: [" + strings.Repeat(`"abc",`, 100) + `"x"]` + "\n\n"
	if _, err := collect(t, Reader{MaxLine: 128, MaxString: 16, Elide: func([]byte) bool { return true }}, many); !errors.Is(err, ErrLineTooLong) {
		t.Errorf("got %v, want ErrLineTooLong", err)
	}
	// So does a line longer than MaxElidedLine.
	if _, err := collect(t, Reader{MaxLine: 128, MaxString: 16, MaxElidedLine: 200, Elide: func([]byte) bool { return true }}, body); !errors.Is(err, ErrLineTooLong) {
		t.Errorf("got %v, want ErrLineTooLong", err)
	}
}

// FuzzElide checks that eliding valid JSON gives valid JSON, and that JSON
// without long strings comes out unchanged.
func FuzzElide(f *testing.F) {
	f.Add(`{"a":"b","c":["d",{"e":"ffffffffffffffffffffffff"}]}`, 4)
	f.Add(`["\"\\\u1234x", 1, true, null, {"k": "  spaced  "}]`, 2)
	f.Fuzz(func(t *testing.T, doc string, max int) {
		if !json.Valid([]byte(doc)) || max < 1 || max > 64 {
			return
		}
		e := &elider{maxString: max}
		for i := 0; i < len(doc); i += 3 {
			e.write([]byte(doc[i:min(i+3, len(doc))]))
		}
		e.flush()
		if !json.Valid(e.out.Bytes()) {
			t.Fatalf("elided %s to invalid JSON %s", doc, e.out.Bytes())
		}
		if len(e.keys) == 0 && e.out.String() != doc {
			t.Fatalf("nothing elided, but %s became %s", doc, e.out.Bytes())
		}
	})
}
