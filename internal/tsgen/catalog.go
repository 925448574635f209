package tsgen

import (
	"encoding/json"
	"strings"
)

// Tool is one host tool as the catalog sees it. Schemas are JSON Schema
// documents as raw JSON; nil means absent. Rendering follows the member order
// of the JSON text, so the same bytes always give the same catalog.
type Tool struct {
	Name        string
	Description string // the doc line; Title is used when it is empty
	Title       string
	// InputSchema describes the argument; absent or malformed renders as
	// unknown.
	InputSchema json.RawMessage
	// OutputSchema describes the result; absent renders as Promise<unknown>.
	OutputSchema json.RawMessage
	// InputExamples holds example arguments. The first one, when it is valid
	// JSON other than null, is used for the call example.
	InputExamples []json.RawMessage
}

// NoToolsText is what [Declarations] and [Catalog] return for an empty tool
// list.
const NoToolsText = "No host tools are available; do not call `tools.*`."

// ExamplesHeading is the line that opens the [Examples] block.
const ExamplesHeading = "Tool call examples:"

// Declarations renders a fenced ts block declaring the global tools object,
// one member per tool in the given order, or [NoToolsText] when there are
// no tools.
func Declarations(tools []Tool) string {
	if len(tools) == 0 {
		return NoToolsText
	}
	var b strings.Builder
	writeDeclarations(&b, prepare(tools))
	return b.String()
}

// Examples renders the call examples block: the [ExamplesHeading] line and a
// fenced ts program that calls every tool once and returns a projection of
// each result. It returns "" when there are no tools.
func Examples(tools []Tool) string {
	if len(tools) == 0 {
		return ""
	}
	var b strings.Builder
	writeExamples(&b, prepare(tools))
	return b.String()
}

// Catalog renders [Declarations] and [Examples] separated by a blank line,
// or only [NoToolsText] when there are no tools. The same tools always give
// the same bytes.
func Catalog(tools []Tool) string {
	if len(tools) == 0 {
		return NoToolsText
	}
	p := prepare(tools)
	var b strings.Builder
	writeDeclarations(&b, p)
	b.WriteString("\n\n")
	writeExamples(&b, p)
	return b.String()
}

// preparedTool holds the parsed pieces of one tool.
type preparedTool struct {
	name    string
	doc     string
	input   *node // nil when absent or not a schema object
	output  *node
	example *node // first usable input example, or nil
}

func prepare(tools []Tool) []preparedTool {
	out := make([]preparedTool, len(tools))
	for i, t := range tools {
		p := preparedTool{name: t.Name}
		p.doc = commentText(t.Description)
		if p.doc == "" {
			p.doc = commentText(t.Title)
		}
		if in := parse(t.InputSchema); in.isObject() {
			p.input = in
		}
		if o := parse(t.OutputSchema); o.isObject() {
			p.output = o
		}
		if len(t.InputExamples) > 0 {
			if ex := parse(t.InputExamples[0]); ex != nil && ex.kind != kindNull {
				p.example = ex
			}
		}
		out[i] = p
	}
	return out
}

func writeDeclarations(b *strings.Builder, tools []preparedTool) {
	b.WriteString("```ts\ndeclare const tools: {\n")
	for _, t := range tools {
		if t.doc != "" {
			b.WriteString("  /** ")
			b.WriteString(t.doc)
			b.WriteString(" */\n")
		}
		in, out := "unknown", "unknown"
		if t.input != nil {
			in = typeOfRoot(t.input)
		}
		if t.output != nil {
			out = typeOfRoot(t.output)
		}
		b.WriteString("  ")
		b.WriteString(propertyKey(t.name))
		b.WriteString(": (input: ")
		b.WriteString(indent(in))
		b.WriteString(") => Promise<")
		b.WriteString(indent(out))
		b.WriteString(">;\n")
	}
	b.WriteString("};\n```")
}

func writeExamples(b *strings.Builder, tools []preparedTool) {
	b.WriteString(ExamplesHeading)
	b.WriteString("\n```ts\n")
	if len(tools) == 1 {
		t := tools[0]
		b.WriteString("const result = await ")
		writeCall(b, t)
		b.WriteString(";\nreturn ")
		writeProjection(b, "result", t.output)
		b.WriteString(";\n```")
		return
	}

	names := make([]string, len(tools))
	for i, t := range tools {
		names[i] = t.name
	}
	vars := variableNames(names)

	b.WriteString("const [")
	b.WriteString(strings.Join(vars, ", "))
	b.WriteString("] = await Promise.all([\n")
	for _, t := range tools {
		b.WriteString("  ")
		writeCall(b, t)
		b.WriteString(",\n")
	}
	b.WriteString("]);\nreturn {\n")
	for i, t := range tools {
		b.WriteString("  ")
		b.WriteString(propertyKey(t.name))
		b.WriteString(": ")
		writeProjection(b, vars[i], t.output)
		b.WriteString(",\n")
	}
	b.WriteString("};\n```")
}

// writeCall writes tools.name(<input>) with the tool's example input, or a
// sample of its input schema, as compact JSON.
func writeCall(b *strings.Builder, t preparedTool) {
	b.WriteString("tools")
	b.WriteString(propertyAccess(t.name))
	b.WriteByte('(')
	input := t.example
	if input == nil {
		input = sampleOrEmpty(t.input)
	}
	appendJSON(b, input)
	b.WriteByte(')')
}

// writeProjection writes what the example returns for one result: an object
// picking the first property the output schema declares with an object
// schema, or the whole variable when there is none.
func writeProjection(b *strings.Builder, variable string, output *node) {
	field, ok := projectedField(output)
	if !ok {
		b.WriteString(variable)
		return
	}
	b.WriteString("{ ")
	b.WriteString(propertyKey(field))
	b.WriteString(": ")
	b.WriteString(variable)
	b.WriteString(propertyAccess(field))
	b.WriteString(" }")
}

func projectedField(output *node) (string, bool) {
	props := output.get("properties")
	if !props.isObject() {
		return "", false
	}
	for _, m := range props.members {
		if m.value.isObject() {
			return m.key, true
		}
	}
	return "", false
}
