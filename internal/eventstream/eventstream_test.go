package eventstream

import (
	"bytes"
	"encoding/binary"
	"errors"
	"hash/crc32"
	"io"
	"testing"
)

// oneByte reads one byte at a time, as a slow network would deliver.
type oneByte struct{ r io.Reader }

func (o oneByte) Read(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	return o.r.Read(p[:1])
}

func TestRoundTrip(t *testing.T) {
	var stream []byte
	stream = append(stream, Event("contentBlockDelta", []byte(`{"delta":{"text":"hi"}}`))...)
	stream = append(stream, Exception("throttlingException", []byte(`{"message":"slow down"}`))...)
	for _, r := range []io.Reader{bytes.NewReader(stream), oneByte{bytes.NewReader(stream)}} {
		rd := NewReader(r)
		m, err := rd.Next()
		if err != nil {
			t.Fatal(err)
		}
		if m.Header(":event-type") != "contentBlockDelta" || m.Header(":message-type") != "event" || string(m.Payload) != `{"delta":{"text":"hi"}}` {
			t.Fatalf("first message: %+v", m)
		}
		m, err = rd.Next()
		if err != nil || m.Header(":exception-type") != "throttlingException" {
			t.Fatalf("second message: %+v %v", m, err)
		}
		if _, err := rd.Next(); err != io.EOF {
			t.Fatalf("end: %v", err)
		}
	}
}

func TestMalformed(t *testing.T) {
	good := Event("messageStop", []byte(`{"stopReason":"end_turn"}`))
	flip := func(i int) []byte {
		b := bytes.Clone(good)
		b[i] ^= 0x01
		return b
	}
	var fe *FormatError
	for name, data := range map[string][]byte{
		"prelude crc": flip(9),
		"payload":     flip(len(good) - 6),
		"message crc": flip(len(good) - 1),
		"header type": func() []byte {
			// A header type byte of 42, with checksums recomputed.
			b := bytes.Clone(good)
			b[12+1+len(":event-type")] = 42
			return reseal(b)
		}(),
	} {
		if _, err := NewReader(bytes.NewReader(data)).Next(); !errors.As(err, &fe) {
			t.Errorf("%s: err = %v, want a FormatError", name, err)
		}
	}

	huge := make([]byte, 12)
	binary.BigEndian.PutUint32(huge, MaxMessage+1)
	binary.BigEndian.PutUint32(huge[8:], crc32Of(huge[:8]))
	if _, err := NewReader(bytes.NewReader(huge)).Next(); !errors.Is(err, ErrTooLarge) {
		t.Errorf("huge: %v", err)
	}
	if _, err := NewReader(bytes.NewReader(good[:len(good)-3])).Next(); !errors.Is(err, ErrTruncated) {
		t.Errorf("truncated: %v", err)
	}
	if _, err := NewReader(bytes.NewReader(good[:5])).Next(); !errors.Is(err, ErrTruncated) {
		t.Errorf("truncated prelude: %v", err)
	}
	cut := io.MultiReader(bytes.NewReader(good[:20]), errReader{io.ErrUnexpectedEOF})
	if _, err := NewReader(cut).Next(); !errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, ErrTruncated) {
		t.Errorf("dropped connection: %v", err)
	}
}

type errReader struct{ err error }

func (e errReader) Read([]byte) (int, error) { return 0, e.err }

func FuzzReader(f *testing.F) {
	f.Add(Event("x", []byte(`{}`)))
	f.Add(append(Event("a", nil), Exception("b", []byte("zz"))...))
	f.Fuzz(func(t *testing.T, data []byte) {
		rd := NewReader(bytes.NewReader(data))
		for range 100 {
			if _, err := rd.Next(); err != nil {
				return
			}
		}
	})
}

func crc32Of(b []byte) uint32 { return crc32.ChecksumIEEE(b) }

// reseal recomputes both checksums of a message.
func reseal(b []byte) []byte {
	binary.BigEndian.PutUint32(b[8:], crc32.ChecksumIEEE(b[:8]))
	binary.BigEndian.PutUint32(b[len(b)-4:], crc32.ChecksumIEEE(b[:len(b)-4]))
	return b
}
