package sandbox

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/evanw/esbuild/pkg/api"
)

// The program becomes the body of an async function expression. The head
// ends with a newline so that the program's own lines keep their numbers,
// shifted by exactly one.
const (
	wrapHead = "(async function () {\n"
	wrapTail = "\n})"
)

// moduleSyntax matches a line that starts an import or export declaration.
// Dynamic import(...) is an expression and does not match.
var moduleSyntax = regexp.MustCompile(`^\s*(import\s*[\w{*"'$]|export\b)`)

// compileSource removes TypeScript syntax from src and wraps it, returning a
// script whose completion value is the program's async function. Syntax
// newer than ES2023, which the engine implements, is lowered where esbuild
// can (`using` declarations, decorators); its helpers become global
// variables of the run. A syntax error is returned as a CODE_MODE_USER_ERROR
// *Error named SyntaxError.
func compileSource(src string) (string, *Error) {
	res := api.Transform(wrapHead+src+wrapTail, api.TransformOptions{
		Loader:   api.LoaderTS,
		Target:   api.ES2023,
		Charset:  api.CharsetUTF8,
		LogLevel: api.LogLevelSilent,
	})
	if len(res.Errors) == 0 {
		return string(res.Code), nil
	}
	return "", syntaxError(src, res.Errors[0])
}

// syntaxError describes an esbuild error in terms of the user's program.
func syntaxError(src string, m api.Message) *Error {
	msg := m.Text
	details := map[string]any{}
	userLines := strings.Count(src, "\n") + 1
	if loc := m.Location; loc != nil {
		line := loc.Line - 1 // the wrapper head takes one line
		if line >= 1 && line <= userLines {
			col := loc.Column + 1
			details["line"] = line
			details["column"] = col
			if moduleSyntax.MatchString(loc.LineText) {
				msg = "import and export declarations are not supported: the program is the body of an async function, and host tools are reached through the global `tools` object"
			} else {
				msg = fmt.Sprintf("%s (line %d, column %d)", msg, line, col)
			}
		} else {
			msg += " (at the end of the program: check for unbalanced brackets)"
		}
	}
	e := &Error{Code: CodeUserError, Name: "SyntaxError", Message: msg}
	if len(details) > 0 {
		e.Details = details
	}
	return e
}
