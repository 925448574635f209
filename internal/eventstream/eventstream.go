// Package eventstream reads and writes the binary framing of AWS event
// streams (application/vnd.amazon.eventstream), which Amazon Bedrock uses
// for streaming responses.
//
// A message is a 12-byte prelude (total length, headers length, both
// big-endian uint32, and the CRC-32 of those 8 bytes), the headers, the
// payload and the CRC-32 of everything before it. A header is a name (one
// length byte), a type byte and a value of that type.
package eventstream

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
)

// MaxMessage bounds the total length of one message; AWS services send at
// most 16 MiB.
const MaxMessage = 16 << 20

// maxHeaders bounds the headers of one message (AWS allows 128 KiB).
const maxHeaders = 128 << 10

const (
	preludeLen = 12
	crcLen     = 4
	minMessage = preludeLen + crcLen
)

// Message is one decoded message. String headers (the only kind AWS sends
// for routing: :message-type, :event-type, :exception-type, :content-type)
// are kept as strings; other header values are kept in their Go form.
type Message struct {
	Headers map[string]any
	Payload []byte
}

// Header returns the string header name, or "".
func (m *Message) Header(name string) string {
	s, _ := m.Headers[name].(string)
	return s
}

// ErrTooLarge reports a message longer than [MaxMessage].
var ErrTooLarge = errors.New("eventstream: message longer than 16 MiB")

// ErrTruncated reports a stream that ended cleanly in the middle of a
// message.
var ErrTruncated = errors.New("eventstream: stream ended inside a message")

// FormatError reports a message that is not well formed: a bad length or
// checksum, or malformed headers.
type FormatError struct {
	// Reason says what is wrong.
	Reason string
}

// Error implements the error interface.
func (e *FormatError) Error() string { return "eventstream: malformed message: " + e.Reason }

// Reader reads messages from a stream.
type Reader struct {
	r   io.Reader
	buf []byte
}

// NewReader returns a reader of the messages of r.
func NewReader(r io.Reader) *Reader { return &Reader{r: r} }

// Next returns the next message. At the end of the stream it returns
// io.EOF; a stream that ends inside a message gives [ErrTruncated]; a read
// error of the underlying reader is returned as it is.
func (d *Reader) Next() (*Message, error) {
	var prelude [preludeLen]byte
	if err := d.fill(prelude[:], true); err != nil {
		return nil, err
	}
	total := binary.BigEndian.Uint32(prelude[0:4])
	headersLen := binary.BigEndian.Uint32(prelude[4:8])
	if crc32.ChecksumIEEE(prelude[:8]) != binary.BigEndian.Uint32(prelude[8:12]) {
		return nil, &FormatError{Reason: "prelude checksum mismatch"}
	}
	if total > MaxMessage {
		return nil, ErrTooLarge
	}
	if total < minMessage || headersLen > maxHeaders || uint64(headersLen) > uint64(total)-minMessage {
		return nil, &FormatError{Reason: fmt.Sprintf("lengths %d (total) and %d (headers) do not fit", total, headersLen)}
	}
	if cap(d.buf) < int(total) {
		d.buf = make([]byte, total)
	}
	msg := d.buf[:total]
	copy(msg, prelude[:])
	if err := d.fill(msg[preludeLen:], false); err != nil {
		return nil, err
	}
	body := msg[:total-crcLen]
	if crc32.ChecksumIEEE(body) != binary.BigEndian.Uint32(msg[total-crcLen:]) {
		return nil, &FormatError{Reason: "message checksum mismatch"}
	}
	headers, err := decodeHeaders(msg[preludeLen : preludeLen+headersLen])
	if err != nil {
		return nil, err
	}
	payload := append([]byte(nil), msg[preludeLen+headersLen:total-crcLen]...)
	return &Message{Headers: headers, Payload: payload}, nil
}

// fill reads len(p) bytes. A clean end of the stream before the first
// byte of a message is io.EOF when first is set; a clean end anywhere else
// is ErrTruncated. Other read errors are returned as they are.
func (d *Reader) fill(p []byte, first bool) error {
	read := 0
	for read < len(p) {
		n, err := d.r.Read(p[read:])
		read += n
		switch {
		case read == len(p):
			return nil
		case err == io.EOF && read == 0 && first:
			return io.EOF
		case err == io.EOF:
			return ErrTruncated
		case err != nil:
			return err
		}
	}
	return nil
}

// Header value types.
const (
	typeTrue      = 0
	typeFalse     = 1
	typeByte      = 2
	typeShort     = 3
	typeInt       = 4
	typeLong      = 5
	typeBytes     = 6
	typeString    = 7
	typeTimestamp = 8
	typeUUID      = 9
)

func decodeHeaders(b []byte) (map[string]any, error) {
	h := map[string]any{}
	bad := func(why string) (map[string]any, error) { return nil, &FormatError{Reason: "header: " + why} }
	for len(b) > 0 {
		nameLen := int(b[0])
		if nameLen == 0 || len(b) < 1+nameLen+1 {
			return bad("truncated name")
		}
		name := string(b[1 : 1+nameLen])
		typ := b[1+nameLen]
		b = b[2+nameLen:]
		fixed := map[byte]int{typeByte: 1, typeShort: 2, typeInt: 4, typeLong: 8, typeTimestamp: 8, typeUUID: 16}
		switch typ {
		case typeTrue:
			h[name] = true
		case typeFalse:
			h[name] = false
		case typeByte, typeShort, typeInt, typeLong, typeTimestamp, typeUUID:
			n := fixed[typ]
			if len(b) < n {
				return bad("truncated value of " + name)
			}
			switch typ {
			case typeByte:
				h[name] = int8(b[0])
			case typeShort:
				h[name] = int16(binary.BigEndian.Uint16(b))
			case typeInt:
				h[name] = int32(binary.BigEndian.Uint32(b))
			case typeLong, typeTimestamp:
				h[name] = int64(binary.BigEndian.Uint64(b))
			case typeUUID:
				h[name] = append([]byte(nil), b[:16]...)
			}
			b = b[n:]
		case typeBytes, typeString:
			if len(b) < 2 {
				return bad("truncated length of " + name)
			}
			n := int(binary.BigEndian.Uint16(b))
			if len(b) < 2+n {
				return bad("truncated value of " + name)
			}
			if typ == typeString {
				h[name] = string(b[2 : 2+n])
			} else {
				h[name] = append([]byte(nil), b[2:2+n]...)
			}
			b = b[2+n:]
		default:
			return bad(fmt.Sprintf("unknown type %d of %s", typ, name))
		}
	}
	return h, nil
}

// Encode renders a message with string headers, given as name/value pairs
// in order, and a payload. It is what a server sends; tests use it to build
// streams.
func Encode(payload []byte, headers ...string) []byte {
	var hb []byte
	for i := 0; i+1 < len(headers); i += 2 {
		name, value := headers[i], headers[i+1]
		hb = append(hb, byte(len(name)))
		hb = append(hb, name...)
		hb = append(hb, typeString)
		hb = binary.BigEndian.AppendUint16(hb, uint16(len(value)))
		hb = append(hb, value...)
	}
	total := preludeLen + len(hb) + len(payload) + crcLen
	out := make([]byte, 0, total)
	out = binary.BigEndian.AppendUint32(out, uint32(total))
	out = binary.BigEndian.AppendUint32(out, uint32(len(hb)))
	out = binary.BigEndian.AppendUint32(out, crc32.ChecksumIEEE(out))
	out = append(out, hb...)
	out = append(out, payload...)
	return binary.BigEndian.AppendUint32(out, crc32.ChecksumIEEE(out))
}

// Event renders an event message (":message-type" event) of the given
// event type with a JSON payload.
func Event(eventType string, payload []byte) []byte {
	return Encode(payload, ":event-type", eventType, ":content-type", "application/json", ":message-type", "event")
}

// Exception renders an exception message (":message-type" exception) of
// the given exception type with a JSON payload.
func Exception(exceptionType string, payload []byte) []byte {
	return Encode(payload, ":exception-type", exceptionType, ":content-type", "application/json", ":message-type", "exception")
}
