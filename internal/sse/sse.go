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
	maxLine, maxString, maxElided := rd.limits()
	return func(yield func(Event, error) bool) {
		br := bufio.NewReaderSize(r, min(32<<10, maxLine))
		var ev Event
		var data bytes.Buffer
		hasData := false
		first := true
		dispatch := func(partial bool) bool {
			if !hasData {
				ev = Event{}
				return true
			}
			ev.Data = data.String()
			ev.Partial = partial
			ok := yield(ev, nil)
			ev = Event{}
			data.Reset()
			hasData = false
			return ok
		}
		var long []byte
		for {
			line, err := br.ReadSlice('\n')
			if err == bufio.ErrBufferFull || long != nil {
				long = append(long, line...)
				complete := err != bufio.ErrBufferFull
				if n := len(bytes.TrimRight(long, "\r\n")); n > maxLine || (!complete && len(long) > maxLine) {
					if rd.Elide == nil || !rd.Elide(long[:maxLine]) {
						yield(Event{}, ErrLineTooLong)
						return
					}
					var keys []string
					line, keys, err = readElided(br, long, complete, err, maxLine, maxString, maxElided)
					long = nil
					if err != nil && err != io.EOF {
						yield(Event{}, err)
						return
					}
					ev.Elided = append(ev.Elided, keys...)
				} else if !complete {
					continue
				} else {
					line, long = long, nil
				}
			}
			if first {
				line = bytes.TrimPrefix(line, []byte("\xef\xbb\xbf"))
				first = false
			}
			atEOF := err == io.EOF
			if err != nil && !atEOF {
				yield(Event{}, err)
				return
			}
			line = bytes.TrimSuffix(line, []byte("\n"))
			line = bytes.TrimSuffix(line, []byte("\r"))
			// A lone CR also ends a line; split on it.
			for _, l := range bytes.Split(line, []byte("\r")) {
				if len(l) == 0 {
					if !atEOF || len(line) > 0 {
						if !dispatch(false) {
							return
						}
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
					if hasData {
						data.WriteByte('\n')
					}
					data.Write(value)
					hasData = true
				case "event":
					ev.Event = string(value)
				case "id":
					ev.ID = string(value)
				}
			}
			if atEOF {
				dispatch(true)
				return
			}
		}
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
