// Package sse reads server-sent event streams.
package sse

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"iter"
)

// Event is one dispatched server-sent event.
type Event struct {
	// Event is the value of the last "event:" field, or empty.
	Event string
	// Data is the event's data: its "data:" lines joined with "\n".
	Data string
	// ID is the value of the last "id:" field, or empty.
	ID string
	// Partial is set on a final event that the stream ended in the middle
	// of: no blank line followed it, so its data may be cut short.
	Partial bool
	// Elided lists the object keys whose string values were left out of an
	// over-long line (see [Reader.Elide]); nil for events read whole.
	Elided []string
}

// DefaultMaxLine is the longest line a [Reader] accepts unless told
// otherwise.
const DefaultMaxLine = 16 << 20

// ErrLineTooLong reports a line longer than the reader accepts.
var ErrLineTooLong = errors.New("sse: line too long")

// Reader reads event streams. The zero value reads lines of up to
// DefaultMaxLine bytes and fails on longer ones.
type Reader struct {
	// MaxLine bounds one line; 0 means DefaultMaxLine.
	MaxLine int
	// Elide, when set, is asked about a line that grows past MaxLine, with
	// the line's first MaxLine bytes. When it returns true, the rest of the
	// line is read with every JSON string value longer than MaxString left
	// out (replaced by ""), so that the event stays small; the event's
	// Elided field names the keys of the strings left out. The line may
	// then be at most MaxElidedLine bytes long and must still fit MaxLine
	// once its long strings are left out. Otherwise, and when Elide is nil
	// or returns false, the stream ends with ErrLineTooLong at once.
	Elide func(head []byte) bool
	// MaxString is the longest string value kept in an elided line; 0
	// means 1 MiB.
	MaxString int
	// MaxElidedLine bounds a line read with elision; 0 means 1 GiB.
	MaxElidedLine int64
}

// Events yields the events of r in order with a zero [Reader].
func Events(r io.Reader) iter.Seq2[Event, error] { return Reader{}.Events(r) }

func (rd Reader) limits() (maxLine, maxString int, maxElided int64) {
	maxLine, maxString, maxElided = rd.MaxLine, rd.MaxString, rd.MaxElidedLine
	if maxLine <= 0 {
		maxLine = DefaultMaxLine
	}
	if maxString <= 0 {
		maxString = 1 << 20
	}
	if maxElided <= 0 {
		maxElided = 1 << 30
	}
	return maxLine, maxString, maxElided
}

// Events yields the events of r in order. Comment lines, "retry:" fields
// and events without data are skipped. A final event that is not followed
// by a blank line is still dispatched, marked Partial. The sequence ends at
// EOF or with the first read error.
func (rd Reader) Events(r io.Reader) iter.Seq2[Event, error] {
	return func(yield func(Event, error) bool) {
		d := rd.NewDecoder(r)
		for {
			ev, err := d.Next()
			if err == io.EOF {
				return
			}
			if !yield(ev, err) || err != nil {
				return
			}
		}
	}
}

// Decoder reads the events of a stream one at a time, on the caller's
// goroutine, with the rules of [Reader.Events].
type Decoder struct {
	maxLine, maxString int
	maxElided          int64
	elide              func([]byte) bool

	br      *bufio.Reader
	ev      Event
	data    bytes.Buffer
	hasData bool
	first   bool
	long    []byte
	// ready holds the events dispatched but not yet returned.
	ready []Event
	// err ends the stream once ready is empty.
	err error
}

// NewDecoder returns a decoder of the events of r.
func (rd Reader) NewDecoder(r io.Reader) *Decoder {
	maxLine, maxString, maxElided := rd.limits()
	return &Decoder{
		maxLine: maxLine, maxString: maxString, maxElided: maxElided, elide: rd.Elide,
		br:    bufio.NewReaderSize(r, min(32<<10, maxLine)),
		first: true,
	}
}

// Next returns the next event. At the end of the stream it returns io.EOF;
// a read error or an over-long line ends the stream with that error, which
// every later call returns too.
func (d *Decoder) Next() (Event, error) {
	for len(d.ready) == 0 && d.err == nil {
		d.readLine()
	}
	if len(d.ready) > 0 {
		ev := d.ready[0]
		d.ready[0] = Event{}
		d.ready = d.ready[1:]
		return ev, nil
	}
	return Event{}, d.err
}

// dispatch queues the event being built, if it has data.
func (d *Decoder) dispatch(partial bool) {
	if !d.hasData {
		d.ev = Event{}
		return
	}
	d.ev.Data = d.data.String()
	d.ev.Partial = partial
	d.ready = append(d.ready, d.ev)
	d.ev = Event{}
	d.data.Reset()
	d.hasData = false
}

// readLine reads one line and processes its fields, setting d.err when
// the stream ends.
func (d *Decoder) readLine() {
	line, err := d.br.ReadSlice('\n')
	if err == bufio.ErrBufferFull || d.long != nil {
		d.long = append(d.long, line...)
		complete := err != bufio.ErrBufferFull
		if n := len(bytes.TrimRight(d.long, "\r\n")); n > d.maxLine || (!complete && len(d.long) > d.maxLine) {
			if d.elide == nil || !d.elide(d.long[:d.maxLine]) {
				d.err = ErrLineTooLong
				return
			}
			var keys []string
			line, keys, err = readElided(d.br, d.long, complete, err, d.maxLine, d.maxString, d.maxElided)
			d.long = nil
			if err != nil && err != io.EOF {
				d.err = err
				return
			}
			d.ev.Elided = append(d.ev.Elided, keys...)
		} else if !complete {
			return
		} else {
			line, d.long = d.long, nil
		}
	}
	if d.first {
		line = bytes.TrimPrefix(line, []byte("\xef\xbb\xbf"))
		d.first = false
	}
	atEOF := err == io.EOF
	if err != nil && !atEOF {
		d.err = err
		return
	}
	line = bytes.TrimSuffix(line, []byte("\n"))
	line = bytes.TrimSuffix(line, []byte("\r"))
	// A lone CR also ends a line; split on it.
	for _, l := range bytes.Split(line, []byte("\r")) {
		if len(l) == 0 {
			if !atEOF || len(line) > 0 {
				d.dispatch(false)
			}
			continue
		}
		if l[0] == ':' {
			continue
		}
		field, value, found := bytes.Cut(l, []byte(":"))
		if found && len(value) > 0 && value[0] == ' ' {
			value = value[1:]
		}
		switch string(field) {
		case "data":
			if d.hasData {
				d.data.WriteByte('\n')
			}
			d.data.Write(value)
			d.hasData = true
		case "event":
			d.ev.Event = string(value)
		case "id":
			d.ev.ID = string(value)
		}
	}
	if atEOF {
		d.dispatch(true)
		d.err = io.EOF
	}
}

// readElided reads the rest of a line that began with head, leaving out
// long string values; complete says head is the whole line, and then
// headErr is what reading it ended with. It returns the shortened line
// (ending in "\n" unless the stream ended first) and the keys of the strings
// left out.
func readElided(br *bufio.Reader, head []byte, complete bool, headErr error, maxLine, maxString int, maxElided int64) ([]byte, []string, error) {
	e := &elider{maxString: maxString}
	total := int64(len(head))
	e.write(head)
	err := headErr
	for !complete {
		if e.out.Len() > maxLine {
			return nil, nil, ErrLineTooLong
		}
		var seg []byte
		seg, err = br.ReadSlice('\n')
		total += int64(len(seg))
		if total > maxElided {
			return nil, nil, ErrLineTooLong
		}
		e.write(seg)
		complete = err != bufio.ErrBufferFull
	}
	if err != nil && err != io.EOF {
		return nil, nil, err
	}
	e.flush()
	if len(bytes.TrimRight(e.out.Bytes(), "\r\n")) > maxLine {
		return nil, nil, ErrLineTooLong
	}
	return e.out.Bytes(), e.keys, err
}
