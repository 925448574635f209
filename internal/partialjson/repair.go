// Package partialjson reads JSON that is still arriving: it completes a
// truncated text to the JSON value it has shown so far, the way the
// TypeScript AI SDK does (an open string is closed, an unfinished number
// is cut back to its last digit, a started literal is completed, a key
// without a value is dropped, open arrays and objects are closed), and it
// does so incrementally, so that a text streamed in many pieces costs
// time in proportion to its length, not to the square of it.
//
// [Parse] handles one complete text; a [Parser] takes the text piece by
// piece; an [ArrayScanner] picks the elements out of a streamed
// {"elements":[...]} object as each one ends.
package partialjson

import "encoding/json"

// State says how a text became a value.
type State int

const (
	// Failed means the text does not hold a value yet (or holds text that
	// no repair makes JSON).
	Failed State = iota
	// Repaired means the text was completed to become JSON.
	Repaired
	// Successful means the text was JSON as it stands.
	Successful
)

// String returns the state's name.
func (s State) String() string {
	switch s {
	case Repaired:
		return "repaired-parse"
	case Successful:
		return "successful-parse"
	}
	return "failed-parse"
}

// Parse returns the JSON text of the value a (possibly truncated) text
// holds: the text itself when it is JSON, its repair when that is JSON,
// and nil otherwise.
func Parse(text []byte) ([]byte, State) {
	if json.Valid(text) {
		return text, Successful
	}
	fixed := Repair(text)
	if json.Valid(fixed) {
		return fixed, Repaired
	}
	return nil, Failed
}

// Repair completes a truncated JSON text. The result is JSON whenever the
// text is a prefix of JSON that shows a value; for other texts it is the
// reference's best effort and may not be JSON.
func Repair(text []byte) []byte {
	var r repairer
	r.init()
	for i, c := range text {
		r.step(text, i, c)
	}
	out := make([]byte, 0, r.lastValid+1+len(r.stack))
	out = append(out, text[:r.lastValid+1]...)
	return r.appendClosers(out, text)
}

// The states of the repair machine.
type rstate uint8

const (
	rRoot rstate = iota
	rFinish
	rObjectStart
	rObjectAfterComma
	rObjectKey
	rObjectAfterKey
	rObjectBeforeValue
	rObjectAfterValue
	rString
	rStringEscape
	rStringUnicode
	rArrayStart
	rArrayAfterValue
	rArrayAfterComma
	rNumber
	rLiteral
)

// repairer is the reference's repair machine: a stack of states fed one
// byte at a time, remembering the last byte that belongs to the value
// shown so far. Bytes it does not expect are skipped, as the reference
// skips them.
type repairer struct {
	stack        []rstate
	lastValid    int
	literalStart int
	hexDigits    int
}

func (r *repairer) init() {
	r.stack = append(r.stack[:0], rRoot)
	r.lastValid = -1
}

func (r *repairer) top() rstate { return r.stack[len(r.stack)-1] }

func (r *repairer) pop() { r.stack = r.stack[:len(r.stack)-1] }

func (r *repairer) replace(s rstate) { r.stack[len(r.stack)-1] = s }

func (r *repairer) push(s rstate) { r.stack = append(r.stack, s) }

// valueStart handles a byte where a value may begin; after is the state
// that follows the value.
func (r *repairer) valueStart(c byte, i int, after rstate) {
	switch {
	case c == '"':
		r.lastValid = i
		r.replace(after)
		r.push(rString)
	case c == 'f' || c == 't' || c == 'n':
		r.lastValid = i
		r.literalStart = i
		r.replace(after)
		r.push(rLiteral)
	case c == '-':
		r.replace(after)
		r.push(rNumber)
	case c >= '0' && c <= '9':
		r.lastValid = i
		r.replace(after)
		r.push(rNumber)
	case c == '{':
		r.lastValid = i
		r.replace(after)
		r.push(rObjectStart)
	case c == '[':
		r.lastValid = i
		r.replace(after)
		r.push(rArrayStart)
	}
}

func (r *repairer) afterObjectValue(c byte, i int) {
	switch c {
	case ',':
		r.replace(rObjectAfterComma)
	case '}':
		r.lastValid = i
		r.pop()
	}
}

func (r *repairer) afterArrayValue(c byte, i int) {
	switch c {
	case ',':
		r.replace(rArrayAfterComma)
	case ']':
		r.lastValid = i
		r.pop()
	}
}

func isHex(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}

// literalPrefix reports whether p is a prefix of true, false or null.
func literalPrefix(p []byte) bool {
	for _, lit := range [...]string{"true", "false", "null"} {
		if len(p) <= len(lit) && string(p) == lit[:len(p)] {
			return true
		}
	}
	return false
}

// step feeds the byte c at index i of text.
func (r *repairer) step(text []byte, i int, c byte) {
	switch r.top() {
	case rRoot:
		r.valueStart(c, i, rFinish)
	case rObjectStart:
		switch c {
		case '"':
			r.replace(rObjectKey)
		case '}':
			r.lastValid = i
			r.pop()
		}
	case rObjectAfterComma:
		if c == '"' {
			r.replace(rObjectKey)
		}
	case rObjectKey:
		if c == '"' {
			r.replace(rObjectAfterKey)
		}
	case rObjectAfterKey:
		if c == ':' {
			r.replace(rObjectBeforeValue)
		}
	case rObjectBeforeValue:
		r.valueStart(c, i, rObjectAfterValue)
	case rObjectAfterValue:
		r.afterObjectValue(c, i)
	case rString:
		switch c {
		case '"':
			r.pop()
			r.lastValid = i
		case '\\':
			r.push(rStringEscape)
		default:
			r.lastValid = i
		}
	case rArrayStart:
		if c == ']' {
			r.lastValid = i
			r.pop()
		} else {
			r.valueStart(c, i, rArrayAfterValue)
		}
	case rArrayAfterValue:
		switch c {
		case ',':
			r.replace(rArrayAfterComma)
		case ']':
			r.lastValid = i
			r.pop()
		default:
			r.lastValid = i
		}
	case rArrayAfterComma:
		r.valueStart(c, i, rArrayAfterValue)
	case rStringEscape:
		r.pop()
		if c == 'u' {
			r.hexDigits = 0
			r.push(rStringUnicode)
		} else {
			r.lastValid = i
		}
	case rStringUnicode:
		if isHex(c) {
			r.hexDigits++
			if r.hexDigits == 4 {
				r.pop()
				r.lastValid = i
			}
		}
	case rNumber:
		switch c {
		case '0', '1', '2', '3', '4', '5', '6', '7', '8', '9':
			r.lastValid = i
		case 'e', 'E', '-', '.':
		case ',':
			r.pop()
			switch r.top() {
			case rArrayAfterValue:
				r.afterArrayValue(c, i)
			case rObjectAfterValue:
				r.afterObjectValue(c, i)
			}
		case '}':
			r.pop()
			if r.top() == rObjectAfterValue {
				r.afterObjectValue(c, i)
			}
		case ']':
			r.pop()
			if r.top() == rArrayAfterValue {
				r.afterArrayValue(c, i)
			}
		default:
			r.pop()
		}
	case rLiteral:
		if !literalPrefix(text[r.literalStart : i+1]) {
			r.pop()
			switch r.top() {
			case rObjectAfterValue:
				r.afterObjectValue(c, i)
			case rArrayAfterValue:
				r.afterArrayValue(c, i)
			}
		} else {
			r.lastValid = i
		}
	}
}

// appendClosers appends what completes the value: the closing quote, the
// rest of a started literal, and the closing brackets, innermost first.
func (r *repairer) appendClosers(out, text []byte) []byte {
	for i := len(r.stack) - 1; i >= 0; i-- {
		switch r.stack[i] {
		case rString:
			out = append(out, '"')
		case rObjectKey, rObjectAfterKey, rObjectAfterComma, rObjectStart, rObjectBeforeValue, rObjectAfterValue:
			out = append(out, '}')
		case rArrayStart, rArrayAfterComma, rArrayAfterValue:
			out = append(out, ']')
		case rLiteral:
			p := text[r.literalStart:]
			for _, lit := range [...]string{"true", "false", "null"} {
				if len(p) <= len(lit) && string(p) == lit[:len(p)] {
					out = append(out, lit[len(p):]...)
					break
				}
			}
		}
	}
	return out
}
