// Package sse reads server-sent event streams.
package sse

import (
	"bufio"
	"bytes"
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
}

// maxLine bounds one line of the stream; longer lines end the stream with
// ErrLineTooLong instead of growing memory without limit.
const maxLine = 16 << 20

// ErrLineTooLong reports a line longer than the reader accepts.
var ErrLineTooLong = lineTooLong{}

type lineTooLong struct{}

func (lineTooLong) Error() string { return "sse: line too long" }

// Events yields the events of r in order. Comment lines, "retry:" fields and
// events without data are skipped. A final event that is not followed by a
// blank line is still dispatched. The sequence ends at EOF or with the
// first read error.
func Events(r io.Reader) iter.Seq2[Event, error] {
	return func(yield func(Event, error) bool) {
		br := bufio.NewReaderSize(r, 32<<10)
		var ev Event
		var data bytes.Buffer
		hasData := false
		first := true
		dispatch := func() bool {
			if !hasData {
				ev = Event{}
				return true
			}
			ev.Data = data.String()
			ok := yield(ev, nil)
			ev = Event{}
			data.Reset()
			hasData = false
			return ok
		}
		var long []byte
		for {
			line, err := br.ReadSlice('\n')
			if err == bufio.ErrBufferFull {
				long = append(long, line...)
				if len(long) > maxLine {
					yield(Event{}, ErrLineTooLong)
					return
				}
				continue
			}
			if long != nil {
				line = append(long, line...)
				long = nil
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
						if !dispatch() {
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
				dispatch()
				return
			}
		}
	}
}
