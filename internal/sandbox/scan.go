package sandbox

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// The TypeScript transform parses, checks and prints the program with
// recursive functions, so its stack and memory grow with how deeply the
// program's syntax tree nests: a few tens of kilobytes of brackets (or of
// `!`, or of `.a`) made it use gigabytes, and deeper still the Go runtime
// aborts the process on stack overflow. checkNesting bounds that depth
// before the transform sees the program.
//
// The depth is estimated from tokens in one pass, without parsing. Each
// open bracket (including template literals and their substitutions) counts
// one level. Within a bracket, every operator, operator-like keyword (typeof,
// new, await, if, else, return ...), member access and call counts one more
// level, because the parser nests each of them in the next (an arrow counts
// four: the transform's work on nested arrow functions grows much faster
// than their depth); a statement end
// (`;`, a line break where one would be inserted, the end of a block), a
// comma that separates items of a list and the start of a case clause start
// the count again. A decorator (`@d`) is part of the class or member it
// decorates and nests nothing; a decorator starting a line starts a new
// count, as a statement does. The estimate is high for long flat chains (a + b + ... is
// counted although the parser handles it in a loop), which the default limit
// leaves plenty of room for. A program crafted to fool the estimate can
// still make the transform expensive; the transform runs in the worker
// process, whose time and memory are bounded too.

// checkNesting returns the estimated nesting depth of src, or a SyntaxError
// when it is over limit.
func checkNesting(src string, limit int) (int, *Error) {
	depth, at := nestingDepth(src, limit)
	if depth <= limit {
		return depth, nil
	}
	line, col := lineCol(src, at)
	return depth, &Error{
		Code: CodeUserError,
		Name: "SyntaxError",
		Message: fmt.Sprintf("The program nests more than %d levels deep (line %d, column %d): "+
			"split deeply nested expressions, long chains and large nested literals into smaller parts", limit, line, col),
		Details: map[string]any{"line": line, "column": col, "maxNestingDepth": limit},
	}
}

// lineCol returns the 1-based line and column (in characters) of byte
// offset at in src.
func lineCol(src string, at int) (line, col int) {
	line, start := 1, 0
	for i := 0; i < at && i < len(src); i++ {
		if src[i] == '\n' {
			line++
			start = i + 1
		}
	}
	return line, utf8.RuneCountInString(src[start:min(at, len(src))]) + 1
}

// arrowWeight is how many levels an arrow (=>) counts.
const arrowWeight = 4

// scanFrame is an open bracket.
type scanFrame struct {
	open  byte // '{', '(', '[', '`' (template literal) or '$' (substitution)
	base  int  // depth of the bracket itself
	chain int  // levels added by the chain of tokens since the last reset
	sep   bool // commas separate items of a list here
	block bool // a statement block: closing it ends a statement
	head  bool // the parenthesis after if, while, for, with, switch or catch
	fn    bool // the parameters of a function
}

// scanner holds the state of nestingDepth.
type scanner struct {
	src   string
	i     int
	stack []scanFrame
	limit int

	maxDepth int
	maxAt    int

	// About the previous token.
	prevExpr      bool   // it ends an expression: a / after it divides
	prevKeyword   string // it was this reserved word
	stmtStart     bool   // the next token starts a statement
	newline       bool   // a line break came after it
	blockClosed   bool   // it closed a statement block
	headClosed    bool   // it closed the head of if, while, for, with
	fnClosed      bool   // it closed the parameters of a function
	arrow         bool   // it was =>
	pendingFn     bool   // the next ( holds function parameters
	pendingClass  bool   // the next { opens a class body
	declStatement bool   // the function or class being read started a statement
	decorated     bool   // decorators that started a statement were read since
}

// nestingDepth returns the estimated nesting depth of src and the offset
// where it is reached. It stops early once the depth passes limit.
func nestingDepth(src string, limit int) (depth, at int) {
	s := &scanner{src: src, limit: limit, stack: []scanFrame{{open: '{', block: true}}, stmtStart: true}
	s.run()
	return s.maxDepth, s.maxAt
}

func (s *scanner) top() *scanFrame { return &s.stack[len(s.stack)-1] }

func (s *scanner) depth() int {
	t := s.top()
	return t.base + t.chain
}

func (s *scanner) note(at int) bool {
	if d := s.depth(); d > s.maxDepth {
		s.maxDepth, s.maxAt = d, at
	}
	return s.maxDepth > s.limit
}

func (s *scanner) push(f scanFrame) {
	f.base = s.depth() + 1
	s.stack = append(s.stack, f)
}

// pop closes the innermost bracket and counts it as one link of the chain
// around it.
func (s *scanner) pop() scanFrame {
	f := *s.top()
	if len(s.stack) > 1 {
		s.stack = s.stack[:len(s.stack)-1]
	}
	if !f.block {
		s.top().chain++
	}
	return f
}

// Reserved words that end nothing: a / after them starts a regular
// expression, and the ones in chainWords nest what follows.
var (
	chainWords = map[string]bool{
		"typeof": true, "void": true, "delete": true, "await": true, "new": true, "yield": true,
		"in": true, "instanceof": true, "of": true, "if": true, "else": true, "for": true,
		"while": true, "do": true, "with": true, "return": true, "throw": true, "extends": true,
		"keyof": true, "as": true, "satisfies": true, "infer": true, "is": true, "readonly": true,
		"unique": true, "asserts": true,
	}
	otherWords = map[string]bool{
		"case": true, "default": true, "try": true, "finally": true, "catch": true, "var": true,
		"let": true, "const": true, "function": true, "class": true, "switch": true, "break": true,
		"continue": true, "debugger": true, "import": true, "export": true, "enum": true,
	}
	// continuing words never start a statement after a line break.
	continuingWords = map[string]bool{"in": true, "instanceof": true, "of": true, "as": true, "satisfies": true, "extends": true}
)

func isIdentStart(c byte) bool {
	return c == '_' || c == '$' || c == '#' || c == '\\' || c >= 0x80 || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z'
}

func (s *scanner) run() {
	src := s.src
	for s.i < len(src) {
		c := src[s.i]
		switch {
		case c == '\n':
			s.newline = true
			s.i++
			continue
		case c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v':
			s.i++
			continue
		case c == '/' && s.i+1 < len(src) && src[s.i+1] == '/':
			for s.i < len(src) && src[s.i] != '\n' {
				s.i++
			}
			continue
		case c == '/' && s.i+1 < len(src) && src[s.i+1] == '*':
			end := indexFrom(src, "*/", s.i+2)
			if end < 0 {
				end = len(src) - 2
			}
			for j := s.i; j < end+2 && j < len(src); j++ {
				if src[j] == '\n' {
					s.newline = true
				}
			}
			s.i = end + 2
			continue
		}
		start := s.i
		s.token(c)
		s.newline = false
		if s.note(start) {
			return
		}
	}
}

// beforeToken applies the resets a new token implies: a line break where a
// statement ends, and the end of a statement block not followed by else,
// catch, finally or while.
func (s *scanner) beforeToken(word string, c byte) {
	if s.blockClosed {
		s.blockClosed = false
		if word != "else" && word != "catch" && word != "finally" && word != "while" {
			s.top().chain = 0
		}
	}
	if s.newline && s.prevExpr {
		starts := word != "" && !continuingWords[word] || c == '"' || c == '\'' || c == '!' || c == '~' || c == '@' ||
			c >= '0' && c <= '9' || c == '+' && s.peek(1) == '+' || c == '-' && s.peek(1) == '-'
		if starts {
			s.top().chain = 0
			s.stmtStart = true
		}
	}
}

func (s *scanner) peek(k int) byte {
	if s.i+k < len(s.src) {
		return s.src[s.i+k]
	}
	return 0
}

func (s *scanner) token(c byte) {
	src := s.src
	switch {
	case isIdentStart(c):
		j := s.i + 1
		for j < len(src) && (isIdentByte(src[j]) || src[j] == '\\') {
			j++
		}
		w := src[s.i:j]
		s.beforeToken(w, c)
		s.i = j
		s.word(w)
		return
	case c >= '0' && c <= '9' || c == '.' && s.peek(1) >= '0' && s.peek(1) <= '9':
		s.beforeToken("", '0')
		j := s.i + 1
		for j < len(src) && (isIdentByte(src[j]) || src[j] == '.' ||
			(src[j] == '+' || src[j] == '-') && (src[j-1] == 'e' || src[j-1] == 'E')) {
			j++
		}
		s.i = j
		s.endExpr()
		return
	case c == '"' || c == '\'':
		s.beforeToken("", c)
		j := s.i + 1
		for j < len(src) && src[j] != c && src[j] != '\n' {
			if src[j] == '\\' {
				j++
			}
			j++
		}
		s.i = min(j+1, len(src))
		s.endExpr()
		return
	case c == '`':
		s.beforeToken("", c)
		s.i++
		s.push(scanFrame{open: '`'})
		s.template()
		return
	}
	s.beforeToken("", c)
	s.punct(c)
}

// endExpr records a token that ends an expression.
func (s *scanner) endExpr() {
	s.prevExpr, s.prevKeyword, s.stmtStart = true, "", false
	s.headClosed, s.fnClosed, s.arrow = false, false, false
}

func (s *scanner) word(w string) {
	stmt := s.stmtStart
	s.headClosed, s.fnClosed, s.arrow = false, false, false
	switch {
	case chainWords[w]:
		s.top().chain++
	case w == "case" || w == "default":
		s.top().chain = 0
	}
	switch w {
	case "function":
		s.pendingFn = true
		s.declStatement = stmt || s.prevKeyword == "async" || s.prevKeyword == "export" || s.prevKeyword == "default"
	case "class":
		s.pendingClass = true
		s.declStatement = stmt || s.decorated || s.prevKeyword == "export" || s.prevKeyword == "default"
		if s.decorated {
			// The decorators are part of the declaration, not a chain
			// that nests it.
			s.top().chain = 0
		}
	}
	if w != "export" && w != "default" {
		s.decorated = false
	}
	if chainWords[w] || otherWords[w] || w == "async" {
		s.prevExpr, s.prevKeyword = false, w
		s.stmtStart = w == "else" || w == "do" || w == "try" || w == "finally" || (w == "async" && stmt) ||
			w == "export" || w == "default" && stmt
		return
	}
	s.prevExpr, s.prevKeyword, s.stmtStart = true, "", false
}

// template scans the text of a template literal up to its end or its next
// substitution.
func (s *scanner) template() {
	src := s.src
	for s.i < len(src) {
		switch src[s.i] {
		case '\\':
			s.i += 2
			continue
		case '`':
			s.i++
			s.pop()
			s.endExpr()
			return
		case '$':
			if s.peek(1) == '{' {
				s.i += 2
				s.push(scanFrame{open: '$'})
				s.prevExpr, s.stmtStart, s.prevKeyword = false, false, ""
				return
			}
		}
		s.i++
	}
}

// regexAllowed reports whether a / here starts a regular expression.
func (s *scanner) regexAllowed() bool {
	return !s.prevExpr || s.headClosed || s.blockClosed
}

// regex skips a regular expression literal starting at the /, and reports
// whether there was one.
func (s *scanner) regex() bool {
	src := s.src
	inClass := false
	for j := s.i + 1; j < len(src); j++ {
		switch src[j] {
		case '\\':
			j++
		case '\n':
			return false
		case '[':
			inClass = true
		case ']':
			inClass = false
		case '/':
			if !inClass {
				j++
				for j < len(src) && isIdentByte(src[j]) {
					j++
				}
				s.i = j
				return true
			}
		}
	}
	return false
}

var punctuators = []string{
	">>>=", "...", "===", "!==", "**=", "<<=", ">>=", ">>>", "&&=", "||=", "??=",
	"=>", "==", "!=", "<=", ">=", "&&", "||", "??", "?.", "++", "--", "+=", "-=", "*=", "/=",
	"%=", "&=", "|=", "^=", "**", "<<", ">>",
}

func (s *scanner) punct(c byte) {
	src := s.src
	headClosed, fnClosed, arrow := s.headClosed, s.fnClosed, s.arrow
	s.headClosed, s.fnClosed, s.arrow = false, false, false
	switch c {
	case '{':
		s.i++
		class := s.pendingClass
		fnBody := fnClosed || class
		isBlock := s.stmtStart || headClosed || fnBody || arrow ||
			s.prevKeyword == "else" || s.prevKeyword == "do" || s.prevKeyword == "try" || s.prevKeyword == "finally"
		stmtBlock := isBlock && !arrow && (!fnBody || s.declStatement)
		s.pendingClass = false
		s.push(scanFrame{open: '{', sep: !isBlock || class, block: stmtBlock})
		s.prevExpr, s.prevKeyword, s.stmtStart = false, "", isBlock && !class
		return
	case '}':
		s.i++
		t := s.top()
		switch t.open {
		case '$':
			s.pop()
			s.template()
			return
		case '{':
			f := s.pop()
			if f.block {
				s.blockClosed = true
				s.prevExpr, s.prevKeyword, s.stmtStart = false, "", true
				return
			}
		}
		s.endExpr()
		return
	case '(':
		s.i++
		head := s.prevKeyword == "if" || s.prevKeyword == "while" || s.prevKeyword == "for" ||
			s.prevKeyword == "with" || s.prevKeyword == "switch" || s.prevKeyword == "catch"
		fn := s.pendingFn
		s.pendingFn = false
		s.push(scanFrame{open: '(', head: head, fn: fn, sep: fn || (s.prevExpr && !head)})
		s.prevExpr, s.prevKeyword, s.stmtStart = false, "", false
		return
	case ')':
		s.i++
		if s.top().open == '(' {
			f := s.pop()
			if f.head {
				s.headClosed = true
				s.prevExpr, s.prevKeyword, s.stmtStart = false, "", true
				return
			}
			s.endExpr()
			s.fnClosed = f.fn
			return
		}
		s.endExpr()
		return
	case '[':
		s.i++
		s.push(scanFrame{open: '[', sep: !s.prevExpr})
		s.prevExpr, s.prevKeyword, s.stmtStart = false, "", false
		return
	case ']':
		s.i++
		if s.top().open == '[' {
			s.pop()
		}
		s.endExpr()
		return
	case ';':
		s.i++
		s.top().chain = 0
		s.prevExpr, s.prevKeyword, s.stmtStart = false, "", true
		return
	case ',':
		s.i++
		if t := s.top(); t.sep {
			t.chain = 0
		} else {
			t.chain++
		}
		s.prevExpr, s.prevKeyword, s.stmtStart = false, "", false
		return
	case '@':
		// A decorator: its expression is part of what it decorates (a
		// class or a class member), which it does not nest.
		s.i++
		s.decorated = s.decorated || s.stmtStart
		s.prevExpr, s.prevKeyword = false, ""
		return
	case '/':
		if s.regexAllowed() && s.regex() {
			s.endExpr()
			return
		}
	}
	n := 1
	for _, p := range punctuators {
		if len(p) <= len(src)-s.i && src[s.i:s.i+len(p)] == p {
			n = len(p)
			break
		}
	}
	op := src[s.i : s.i+n]
	s.i += n
	s.top().chain++
	if op == "=>" {
		// The transform's work on nested arrow functions grows with the
		// cube of their depth.
		s.top().chain += arrowWeight - 1
	}
	postfix := (op == "++" || op == "--") && s.prevExpr
	s.arrow = op == "=>"
	s.prevExpr = postfix
	s.prevKeyword, s.stmtStart = "", false
}

func indexFrom(s, sub string, from int) int {
	if from >= len(s) {
		return -1
	}
	if i := strings.Index(s[from:], sub); i >= 0 {
		return from + i
	}
	return -1
}
