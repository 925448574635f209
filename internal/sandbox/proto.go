package sandbox

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"sync/atomic"
	"unsafe"
)

// The host and a worker process talk over two pipes in frames: a type byte,
// the payload length as a little-endian uint32, and the payload, a sequence
// of unsigned varints and length-prefixed strings. Every frame about a run
// starts with the run's id, so that a frame of an earlier run can never be
// taken for one of the current run.
//
// Host to worker:
//
//	'P' prelude:   the prelude's bytecode (once, first)
//	'R' run:       id, deadline in ns from now, limits, flags, [seed], [time], shift, text
//	'S' settle:    id, request id, kind, payload
//	'I' interrupt: id
//
// Worker to host (after a greeting, helloMagic):
//
//	'X' transformed: id, script, shift, nesting depth
//	'C' tool call:   id, request id, seq, name, input
//	'L' console:     id, stream, line
//	'W' waiting:     id, tool calls in flight
//	'D' done:        id, report kind, then value / error JSON / request id
//
// A worker queues its tool call and console frames and writes them when
// the program waits for a settlement, followed by a waiting frame with the
// number of calls the settlement may be for; when the program ends, before
// the done frame; when a millisecond of running JavaScript has passed since
// the first was queued; and when they grow large. Until a settlement or an
// interrupt reaches it, a worker that sent a waiting frame sends nothing
// more.
const (
	framePrelude     = 'P'
	frameRun         = 'R'
	frameSettle      = 'S'
	frameInterrupt   = 'I'
	frameTransformed = 'X'
	frameCall        = 'C'
	frameConsole     = 'L'
	frameWaiting     = 'W'
	frameDone        = 'D'
)

// helloMagic is the first thing a worker writes. The host skips anything
// before it, which a package initialised before this one may have printed.
const helloMagic = "\x00aisdkgo-sandbox-worker/1\x00"

// Run request flags.
const (
	runFlagTools  = 1 << iota // the host has a CallTool
	runFlagScript             // text is a transformed script, not the source
	runFlagSeed               // a seed for Math.random follows the flags
	runFlagTime               // the run's fixed clock (Unix ms) follows
)

var errProtocol = errors.New("sandbox: malformed message between host and worker")

// frame is one message.
type frame struct {
	typ     byte
	payload []byte
}

// encoder builds a frame.
type encoder struct{ b []byte }

func newFrame(typ byte) *encoder { return newFrameCap(typ, 64) }

// newFrameCap starts a frame with room for n bytes.
func newFrameCap(typ byte, n int) *encoder {
	e := &encoder{b: make([]byte, 5, max(n, 64))}
	e.b[0] = typ
	return e
}

func (e *encoder) uint(v uint64) *encoder {
	e.b = binary.AppendUvarint(e.b, v)
	return e
}

func (e *encoder) int(v int) *encoder { return e.uint(uint64(max(v, 0))) }

func (e *encoder) str(s string) *encoder {
	e.b = binary.AppendUvarint(e.b, uint64(len(s)))
	e.b = append(e.b, s...)
	return e
}

// bytesWith returns the frame, header included, with a length that counts
// n more bytes the caller writes after it.
func (e *encoder) bytesWith(n int) []byte {
	binary.LittleEndian.PutUint32(e.b[1:5], uint32(len(e.b)-5+n))
	return e.b
}

// bytes returns the frame, header included.
func (e *encoder) bytes() []byte {
	binary.LittleEndian.PutUint32(e.b[1:5], uint32(len(e.b)-5))
	return e.b
}

// decoder reads the fields of a payload. The first malformed field makes
// every later read fail; err reports it.
type decoder struct {
	b   []byte
	err error
}

func (d *decoder) uint() uint64 {
	if d.err != nil {
		return 0
	}
	v, n := binary.Uvarint(d.b)
	if n <= 0 {
		d.err = errProtocol
		return 0
	}
	d.b = d.b[n:]
	return v
}

func (d *decoder) int() int {
	v := d.uint()
	if v > 1<<62 {
		d.err = errProtocol
		return 0
	}
	return int(v)
}

func (d *decoder) str() string { return strings.Clone(d.view()) }

// view reads a string like str without copying it: the string shares the
// frame's memory, which readFrame allocates for each frame and nothing
// changes afterwards.
func (d *decoder) view() string {
	n := d.uint()
	if d.err != nil {
		return ""
	}
	if n > uint64(len(d.b)) {
		d.err = errProtocol
		return ""
	}
	if n == 0 {
		return ""
	}
	s := unsafe.String(&d.b[0], int(n))
	d.b = d.b[n:]
	return s
}

// readFrame reads one frame of at most max payload bytes.
func readFrame(r *bufio.Reader, max int) (frame, error) {
	var h [5]byte
	if _, err := io.ReadFull(r, h[:]); err != nil {
		return frame{}, err
	}
	n := binary.LittleEndian.Uint32(h[1:])
	if uint64(n) > uint64(max) {
		return frame{}, fmt.Errorf("%w: a frame of %d bytes", errProtocol, n)
	}
	p := make([]byte, n)
	if _, err := io.ReadFull(r, p); err != nil {
		if err == io.EOF {
			err = io.ErrUnexpectedEOF
		}
		return frame{}, err
	}
	return frame{typ: h[0], payload: p}, nil
}

// skipToHello reads up to limit bytes until after helloMagic.
func skipToHello(r *bufio.Reader, limit int) error {
	matched := 0
	for n := 0; n < limit; n++ {
		c, err := r.ReadByte()
		if err != nil {
			return err
		}
		switch {
		case c == helloMagic[matched]:
			matched++
			if matched == len(helloMagic) {
				return nil
			}
		case c == helloMagic[0]:
			matched = 1
		default:
			matched = 0
		}
	}
	return fmt.Errorf("%w: no greeting from the worker", errProtocol)
}

// countingReader reads f and counts the bytes it read, for a doorbell.
type countingReader struct {
	f *os.File
	n atomic.Uint64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.f.Read(p)
	c.n.Add(uint64(max(n, 0)))
	return n, err
}
