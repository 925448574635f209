package mcptools

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strconv"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/aisdkgo/ai"
)

// Fingerprints maps tool names to the fingerprints of their definitions,
// as [FingerprintTools] and [FingerprintMCPTools] compute them. Store the
// fingerprints of a server's tools when a person approves them, and
// compare the tools of every later listing with [DetectToolDrift] before
// trusting them.
type Fingerprints map[string]string

// ToolDrift is the difference between two [Fingerprints]: the tools only
// the current set has, the tools only the approved set has, and the tools
// whose definitions differ. Each list is sorted by name.
type ToolDrift struct {
	Added   []string `json:"added"`
	Removed []string `json:"removed"`
	Changed []string `json:"changed"`
}

// None reports whether nothing drifted.
func (d ToolDrift) None() bool {
	return len(d.Added) == 0 && len(d.Removed) == 0 && len(d.Changed) == 0
}

// DetectToolDrift compares the fingerprints of the tools a server offers
// now with an approved baseline. A server that changes a tool's
// description or input schema after a person approved it (a "rug pull")
// shows as Changed; what to do then (ask again, drop the tool, refuse the
// server) is the application's decision.
func DetectToolDrift(current, baseline Fingerprints) ToolDrift {
	var d ToolDrift
	for name, fp := range current {
		old, ok := baseline[name]
		switch {
		case !ok:
			d.Added = append(d.Added, name)
		case old != fp:
			d.Changed = append(d.Changed, name)
		}
	}
	for name := range baseline {
		if _, ok := current[name]; !ok {
			d.Removed = append(d.Removed, name)
		}
	}
	slices.Sort(d.Added)
	slices.Sort(d.Removed)
	slices.Sort(d.Changed)
	return d
}

// Fingerprint returns the fingerprint of an MCP tool definition: the
// base64url SHA-256 digest of the canonical JSON form of its
// server-controlled, security-relevant fields, which are the description,
// the title (the tool's, else its annotations') and the input schema as
// the TypeScript AI SDK presents it to models (with "properties" defaulted
// to {} and "additionalProperties" set to false). Key order and the order
// of the tools do not matter; annotations other than the title, _meta and
// the output schema are not covered.
//
// The digest is the one the TypeScript AI SDK's fingerprintTools computes
// for the same tool listed through its MCP client, so baselines can be
// shared between the two. An empty description counts as no description,
// since MCP's Go types cannot tell the two apart.
func Fingerprint(t *mcp.Tool) (string, error) {
	if t == nil {
		return "", fmt.Errorf("mcptools: fingerprint of a nil tool")
	}
	raw, err := inputSchema(t)
	if err != nil {
		return "", fmt.Errorf("mcptools: tool %q: %w", t.Name, err)
	}
	schema, err := decodeJSON(raw)
	if err != nil {
		return "", fmt.Errorf("mcptools: tool %q: input schema: %w", t.Name, err)
	}
	obj, ok := schema.(map[string]any)
	if !ok {
		return "", fmt.Errorf("mcptools: tool %q: the input schema is not an object", t.Name)
	}
	if obj["properties"] == nil {
		obj["properties"] = map[string]any{}
	}
	obj["additionalProperties"] = false
	title := t.Title
	if title == "" && t.Annotations != nil {
		title = t.Annotations.Title
	}
	return fingerprint(t.Description, title, obj), nil
}

// FingerprintMCPTools fingerprints MCP tool definitions by their names on
// the server (see [Fingerprint]). It fails on a nil tool, on two tools
// with the same name and on an input schema that is not a JSON object.
func FingerprintMCPTools(tools []*mcp.Tool) (Fingerprints, error) {
	fps := make(Fingerprints, len(tools))
	for _, t := range tools {
		fp, err := Fingerprint(t)
		if err != nil {
			return nil, err
		}
		if _, dup := fps[t.Name]; dup {
			return nil, fmt.Errorf("mcptools: two tools are named %q", t.Name)
		}
		fps[t.Name] = fp
	}
	return fps, nil
}

// FingerprintTools fingerprints a tool set by the names the model sees.
// Tools converted by a [Source] carry the fingerprint of their MCP
// definition (see [Fingerprint] and [ToolInfo.Fingerprint]), so the
// fingerprints describe exactly the snapshot that was listed. Other
// function and dynamic tools are fingerprinted from their description and
// input schema as they are (their title, which package ai does not expose,
// is not covered, and a description computed per call counts as its
// static Description); tools defined by providers, which no MCP server
// controls, are left out.
func FingerprintTools(tools ai.Tools) (Fingerprints, error) {
	fps := make(Fingerprints, len(tools))
	for _, nt := range tools {
		ft, ok := nt.Tool.(*ai.FunctionTool)
		if !ok {
			continue
		}
		fp := ""
		if info, ok := Info(ft.Metadata()); ok && info.Fingerprint != "" {
			fp = info.Fingerprint
		} else {
			schema, err := decodeJSON(ft.InputSchema())
			if err != nil {
				return nil, fmt.Errorf("mcptools: tool %q: input schema: %w", nt.Name, err)
			}
			fp = fingerprint(ft.Description(), "", schema)
		}
		if _, dup := fps[nt.Name]; dup {
			return nil, fmt.Errorf("mcptools: two tools are named %q", nt.Name)
		}
		fps[nt.Name] = fp
	}
	return fps, nil
}

// fingerprint hashes the pinned fields in the reference's shape:
// {description: {type, value}, inputSchema, title}. An absent title is
// written as the reference writes an undefined value.
func fingerprint(description, title string, schema any) string {
	var b bytes.Buffer
	b.WriteString(`{"description":`)
	if description == "" {
		b.WriteString(`{"type":"none"}`)
	} else {
		b.WriteString(`{"type":"string","value":`)
		writeJSString(&b, description)
		b.WriteByte('}')
	}
	b.WriteString(`,"inputSchema":`)
	writeCanonical(&b, schema)
	b.WriteString(`,"title":`)
	if title == "" {
		b.WriteString("undefined")
	} else {
		writeJSString(&b, title)
	}
	b.WriteByte('}')
	sum := sha256.Sum256(b.Bytes())
	return base64.RawURLEncoding.EncodeToString(sum[:])
}

// decodeJSON decodes JSON into plain values, numbers as float64 as
// JavaScript reads them. A missing schema is null.
func decodeJSON(raw []byte) (any, error) {
	if len(raw) == 0 {
		return nil, nil
	}
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		return nil, err
	}
	return v, nil
}

// writeCanonical writes v as JSON with the keys of every object sorted,
// byte for byte as JavaScript's JSON.stringify writes each value.
func writeCanonical(b *bytes.Buffer, v any) {
	switch v := v.(type) {
	case nil:
		b.WriteString("null")
	case bool:
		b.WriteString(strconv.FormatBool(v))
	case float64:
		writeJSNumber(b, v)
	case string:
		writeJSString(b, v)
	case []any:
		b.WriteByte('[')
		for i, e := range v {
			if i > 0 {
				b.WriteByte(',')
			}
			writeCanonical(b, e)
		}
		b.WriteByte(']')
	case map[string]any:
		keys := make([]string, 0, len(v))
		for k := range v {
			keys = append(keys, k)
		}
		slices.SortFunc(keys, compareUTF16)
		b.WriteByte('{')
		for i, k := range keys {
			if i > 0 {
				b.WriteByte(',')
			}
			writeJSString(b, k)
			b.WriteByte(':')
			writeCanonical(b, v[k])
		}
		b.WriteByte('}')
	default:
		// Only values decoded by decodeJSON reach here.
		b.WriteString("null")
	}
}

// writeJSNumber writes a number as JavaScript does. encoding/json already
// follows ECMAScript's number formatting; only negative zero differs.
func writeJSNumber(b *bytes.Buffer, f float64) {
	if f == 0 || math.IsNaN(f) || math.IsInf(f, 0) {
		if f == 0 {
			b.WriteByte('0')
		} else {
			b.WriteString("null")
		}
		return
	}
	out, _ := json.Marshal(f)
	b.Write(out)
}

// writeJSString writes a string as JSON.stringify does: only quotes,
// backslashes and control characters are escaped.
func writeJSString(b *bytes.Buffer, s string) {
	const hex = "0123456789abcdef"
	b.WriteByte('"')
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == '"':
			b.WriteString(`\"`)
		case r == '\\':
			b.WriteString(`\\`)
		case r == '\b':
			b.WriteString(`\b`)
		case r == '\f':
			b.WriteString(`\f`)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case r == '\t':
			b.WriteString(`\t`)
		case r < 0x20:
			b.WriteString(`\u00`)
			b.WriteByte(hex[r>>4])
			b.WriteByte(hex[r&0xf])
		case r == utf8.RuneError && size == 1:
			// Invalid UTF-8 reads as U+FFFD in JavaScript too.
			b.WriteString("\uFFFD")
		default:
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	b.WriteByte('"')
}

// compareUTF16 orders strings by their UTF-16 code units, as JavaScript's
// default sort does.
func compareUTF16(a, b string) int {
	return slices.Compare(utf16.Encode([]rune(a)), utf16.Encode([]rune(b)))
}
