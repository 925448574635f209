package uistream

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/url"
	"strings"
	"unicode/utf8"

	"github.com/aisdkgo/ai"
)

// The triggers a client sends with a request.
const (
	// TriggerSubmit: the last message is new (a user message, or an
	// assistant message with approval answers or client-side tool
	// results).
	TriggerSubmit = "submit-message"
	// TriggerRegenerate: the client dropped the last assistant message and
	// asks for a new one.
	TriggerRegenerate = "regenerate-message"
)

// Request is the body a chat client posts for each turn.
type Request struct {
	// ID is the chat's id.
	ID string
	// Messages is the whole conversation, the newest message last.
	Messages []Message
	// Trigger is [TriggerSubmit] or [TriggerRegenerate] (or empty).
	Trigger string
	// MessageID is the id of the assistant message being continued or
	// regenerated, when there is one.
	MessageID string
	// Body holds the other fields of the body (from the client's "body"
	// option), as JSON.
	Body map[string]json.RawMessage
}

// DecodeOptions bound what [DecodeRequest] accepts. Zero fields take the
// defaults.
type DecodeOptions struct {
	// MaxBytes bounds the body (default 8 MiB).
	MaxBytes int64
	// MaxMessages bounds the number of messages (default 10000).
	MaxMessages int
	// MaxParts bounds the number of parts of one message (default 10000).
	MaxParts int

	// ToolApprovalSecrets are the secrets the chat's generations sign their
	// approval requests with (the same as their
	// [ai.GenerateTextOptions.ToolApprovalSecrets]). With them, a request
	// that approves a tool call is accepted only when the call's approval
	// carries a signature that one of the secrets verifies for that very
	// call (its approval id, tool call id, tool name and input); anything
	// else is refused with a 400. The generation checks again before the
	// call runs.
	ToolApprovalSecrets [][]byte
	// InsecureAcceptUnsignedApprovals accepts approval answers without
	// secrets, trusting the client: any client can then run any tool of the
	// server with any input by posting an approved tool part. It exists for
	// trusted clients and tests. Without it and without
	// ToolApprovalSecrets, a request that answers an approval is refused
	// with a 400 that says how to configure the secrets.
	InsecureAcceptUnsignedApprovals bool
}

// The defaults of [DecodeOptions].
const (
	DefaultMaxBytes    = 8 << 20
	DefaultMaxMessages = 10000
	DefaultMaxParts    = 10000
)

// maxIDLen bounds ids and tool names.
const maxIDLen = 1024

func defaultLimits() DecodeOptions {
	return DecodeOptions{MaxBytes: DefaultMaxBytes, MaxMessages: DefaultMaxMessages, MaxParts: DefaultMaxParts}
}

// RequestError is a request that cannot be served: Status is the HTTP
// status to answer with (400, 405, 413 or 415), Path the location of the
// offending value in the body (for example "messages[1].parts[0].state"),
// when there is one.
type RequestError struct {
	Status  int
	Path    string
	Message string
}

// Error returns the path and the message.
func (e *RequestError) Error() string {
	if e.Path == "" {
		return "uistream: " + e.Message
	}
	return "uistream: " + e.Path + ": " + e.Message
}

// WriteError answers a request with err: a [*RequestError] with its status
// and a JSON body {"error":{"message":..., "path":...}}, any other error
// with 500 and a generic message (its text may hold internal details).
func WriteError(w http.ResponseWriter, err error) {
	var re *RequestError
	if !errors.As(err, &re) {
		re = &RequestError{Status: http.StatusInternalServerError, Message: "internal error"}
	}
	body, _ := marshalNoEscape(struct {
		Error struct {
			Message string `json:"message"`
			Path    string `json:"path,omitempty"`
		} `json:"error"`
	}{Error: struct {
		Message string `json:"message"`
		Path    string `json:"path,omitempty"`
	}{re.Message, re.Path}})
	h := w.Header()
	h.Set("Content-Type", "application/json")
	h.Set("X-Content-Type-Options", "nosniff")
	if re.Status == http.StatusMethodNotAllowed {
		h.Set("Allow", http.MethodPost)
	}
	w.WriteHeader(re.Status)
	w.Write(append(body, '\n'))
}

// DecodeRequest reads and validates the body of a chat request: a POST
// with a JSON body of at most opts.MaxBytes holding the messages. A request
// that cannot be used returns a [*RequestError] (answer it with
// [WriteError]); nothing of it is returned then. opts may be nil.
//
// Every part is checked against the client's message format: known part
// types (and "data-" and "tool-" types), the fields each requires, tool
// states with the fields their state allows, non-empty ids. Unknown
// fields are ignored.
func DecodeRequest(r *http.Request, opts *DecodeOptions) (*Request, error) {
	d := decoder{limits: limitsOf(opts)}
	if r.Method != http.MethodPost {
		return nil, &RequestError{Status: http.StatusMethodNotAllowed, Message: "the method must be POST"}
	}
	if ct := r.Header.Get("Content-Type"); ct != "" {
		mt, _, err := mime.ParseMediaType(ct)
		if err != nil || (mt != "application/json" && !strings.HasSuffix(mt, "+json")) {
			return nil, &RequestError{Status: http.StatusUnsupportedMediaType, Message: "the body must be JSON (Content-Type: application/json)"}
		}
	}
	body, err := io.ReadAll(io.LimitReader(r.Body, d.limits.MaxBytes+1))
	if err != nil {
		return nil, &RequestError{Status: http.StatusBadRequest, Message: "the body cannot be read"}
	}
	if int64(len(body)) > d.limits.MaxBytes {
		return nil, &RequestError{Status: http.StatusRequestEntityTooLarge, Message: fmt.Sprintf("the body is larger than %d bytes", d.limits.MaxBytes)}
	}
	return d.request(body)
}

// ParseRequest validates a request body like [DecodeRequest], for bodies
// that arrive by other means than an HTTP request (a WebSocket message).
func ParseRequest(body []byte, opts *DecodeOptions) (*Request, error) {
	d := decoder{limits: limitsOf(opts)}
	if int64(len(body)) > d.limits.MaxBytes {
		return nil, &RequestError{Status: http.StatusRequestEntityTooLarge, Message: fmt.Sprintf("the body is larger than %d bytes", d.limits.MaxBytes)}
	}
	return d.request(body)
}

// UnmarshalMessages decodes and validates a JSON array of messages, for
// example a stored chat, with the checks of [DecodeRequest].
func UnmarshalMessages(data []byte) ([]Message, error) {
	d := decoder{limits: defaultLimits()}
	var raw []json.RawMessage
	if err := json.Unmarshal(data, &raw); err != nil {
		return nil, d.fail("", "must be a JSON array of messages")
	}
	return d.messages(raw, "")
}

func limitsOf(opts *DecodeOptions) DecodeOptions {
	l := defaultLimits()
	if opts != nil {
		l.ToolApprovalSecrets = opts.ToolApprovalSecrets
		l.InsecureAcceptUnsignedApprovals = opts.InsecureAcceptUnsignedApprovals
		if opts.MaxBytes > 0 {
			l.MaxBytes = opts.MaxBytes
		}
		if opts.MaxMessages > 0 {
			l.MaxMessages = opts.MaxMessages
		}
		if opts.MaxParts > 0 {
			l.MaxParts = opts.MaxParts
		}
	}
	return l
}

// decoder validates client messages.
type decoder struct {
	limits DecodeOptions
}

func (d *decoder) fail(path, format string, args ...any) *RequestError {
	return &RequestError{Status: http.StatusBadRequest, Path: path, Message: fmt.Sprintf(format, args...)}
}

func (d *decoder) request(body []byte) (*Request, error) {
	if !utf8.Valid(body) {
		return nil, d.fail("", "the body is not valid UTF-8")
	}
	o, err := d.object(body, "")
	if err != nil {
		return nil, d.fail("", "the body must be a JSON object")
	}
	req := &Request{ID: o.str("id", false), Trigger: o.str("trigger", false), MessageID: o.str("messageId", false)}
	rawMessages, ok := o.m["messages"]
	if !ok || isNull(rawMessages) {
		return nil, d.fail("messages", "is required")
	}
	if o.err != nil {
		return nil, o.err
	}
	var list []json.RawMessage
	if err := json.Unmarshal(rawMessages, &list); err != nil {
		return nil, d.fail("messages", "must be an array")
	}
	if req.Messages, err = d.messages(list, "messages"); err != nil {
		return nil, err
	}
	if err := d.approvals(req.Messages); err != nil {
		return nil, err
	}
	for k, v := range o.m {
		switch k {
		case "id", "messages", "trigger", "messageId":
			continue
		}
		if req.Body == nil {
			req.Body = map[string]json.RawMessage{}
		}
		req.Body[k] = v
	}
	return req, nil
}

// approvals checks the approval answers of a request: without secrets
// they are refused unless the server chose to trust its clients; with
// secrets every approved call must carry its own request's signature.
func (d *decoder) approvals(msgs []Message) error {
	if d.limits.InsecureAcceptUnsignedApprovals {
		return nil
	}
	for i, m := range msgs {
		for j, p := range m.Parts {
			tp, ok := p.(ToolPart)
			if !ok || tp.State != ApprovalResponded || tp.Approval == nil {
				continue
			}
			path := fmt.Sprintf("messages[%d].parts[%d].approval", i, j)
			if len(d.limits.ToolApprovalSecrets) == 0 {
				return d.fail(path, "answers a tool approval, but this server does not sign its approval requests: "+
					"set the same secrets in uistream.DecodeOptions.ToolApprovalSecrets and ai.GenerateTextOptions.ToolApprovalSecrets "+
					"(or DecodeOptions.InsecureAcceptUnsignedApprovals to trust every client)")
			}
			if tp.Approval.Approved == nil || !*tp.Approval.Approved {
				continue // a denial runs nothing
			}
			if tp.Approval.Signature == "" {
				return d.fail(path+".signature", "is missing: the approved call was not requested by this server")
			}
			if !ai.VerifyToolApprovalSignature(d.limits.ToolApprovalSecrets, tp.Approval.Signature, tp.Approval.ID, tp.ToolCallID, tp.ToolName, tp.Input) {
				return d.fail(path+".signature", "does not match the call: the approved call or its input is not the one this server requested")
			}
		}
	}
	return nil
}

func (d *decoder) messages(list []json.RawMessage, path string) ([]Message, error) {
	if len(list) == 0 {
		return nil, d.fail(path, "must hold at least one message")
	}
	if len(list) > d.limits.MaxMessages {
		return nil, d.fail(path, "holds more than %d messages", d.limits.MaxMessages)
	}
	out := make([]Message, 0, len(list))
	for i, raw := range list {
		m, err := d.message(raw, fmt.Sprintf("%s[%d]", path, i))
		if err != nil {
			return nil, err
		}
		out = append(out, m)
	}
	return out, nil
}

func (d *decoder) message(raw json.RawMessage, path string) (Message, error) {
	o, err := d.object(raw, path)
	if err != nil {
		return Message{}, err
	}
	m := Message{ID: o.id("id"), Role: Role(o.str("role", true))}
	if o.err != nil {
		return Message{}, o.err
	}
	switch m.Role {
	case RoleSystem, RoleUser, RoleAssistant:
	default:
		return Message{}, d.fail(path+".role", `must be "system", "user" or "assistant"`)
	}
	if md, ok := o.m["metadata"]; ok && !isNull(md) {
		m.Metadata = compact(md)
	}
	var parts []json.RawMessage
	rawParts, ok := o.m["parts"]
	if !ok || json.Unmarshal(rawParts, &parts) != nil || isNull(rawParts) {
		return Message{}, d.fail(path+".parts", "must be an array")
	}
	if len(parts) == 0 && m.Role != RoleAssistant {
		return Message{}, d.fail(path+".parts", "must hold at least one part")
	}
	if len(parts) > d.limits.MaxParts {
		return Message{}, d.fail(path+".parts", "holds more than %d parts", d.limits.MaxParts)
	}
	m.Parts = make([]Part, 0, len(parts))
	for i, raw := range parts {
		p, err := d.part(raw, fmt.Sprintf("%s.parts[%d]", path, i), false)
		if err != nil {
			return Message{}, err
		}
		m.Parts = append(m.Parts, p)
	}
	return m, nil
}

// part decodes one part; steering restricts it to text and file parts.
func (d *decoder) part(raw json.RawMessage, path string, steering bool) (Part, error) {
	o, err := d.object(raw, path)
	if err != nil {
		return nil, err
	}
	typ := o.str("type", true)
	if o.err != nil {
		return nil, o.err
	}
	if steering && typ != "text" && typ != "file" {
		return nil, d.fail(path+".type", `must be "text" or "file"`)
	}
	var p Part
	switch {
	case typ == "text":
		p = TextPart{Text: o.str("text", true), State: o.enum("state", "streaming", "done"),
			Citations: o.array("citations"), ProviderMetadata: o.meta("providerMetadata")}
	case typ == "reasoning":
		p = ReasoningPart{ID: o.str("id", false), Text: o.str("text", true), State: o.enum("state", "streaming", "done"),
			ProviderMetadata: o.meta("providerMetadata")}
	case typ == "file":
		fp := FilePart{MediaType: o.str("mediaType", true), Filename: o.str("filename", false), URL: o.str("url", true),
			ProviderReference: o.strMap("providerReference"), ProviderMetadata: o.meta("providerMetadata")}
		if fp.ProviderReference == nil || fp.URL != "" {
			o.fileURL("url", fp.URL)
		}
		p = fp
	case typ == "reasoning-file":
		rp := ReasoningFilePart{MediaType: o.str("mediaType", true), URL: o.str("url", true), ProviderMetadata: o.meta("providerMetadata")}
		o.fileURL("url", rp.URL)
		p = rp
	case typ == "source-url":
		p = SourceURLPart{SourceID: o.str("sourceId", true), URL: o.str("url", true), Title: o.str("title", false),
			ProviderMetadata: o.meta("providerMetadata")}
	case typ == "source-document":
		p = SourceDocumentPart{SourceID: o.str("sourceId", true), MediaType: o.str("mediaType", true), Title: o.str("title", true),
			Filename: o.str("filename", false), ProviderMetadata: o.meta("providerMetadata")}
	case typ == "step-start":
		p = StepStartPart{}
	case typ == "custom":
		p = CustomPart{Kind: o.str("kind", true), ProviderMetadata: o.meta("providerMetadata")}
	case typ == "steering-message":
		sp := SteeringMessagePart{ID: o.id("id")}
		var list []json.RawMessage
		if raw, ok := o.m["parts"]; !ok || isNull(raw) || json.Unmarshal(raw, &list) != nil {
			o.setErr("parts", "must be an array")
		}
		if o.err != nil {
			return nil, o.err
		}
		if len(list) > d.limits.MaxParts {
			return nil, d.fail(path+".parts", "holds more than %d parts", d.limits.MaxParts)
		}
		for i, raw := range list {
			q, err := d.part(raw, fmt.Sprintf("%s.parts[%d]", path, i), true)
			if err != nil {
				return nil, err
			}
			sp.Parts = append(sp.Parts, q)
		}
		p = sp
	case strings.HasPrefix(typ, "data-"):
		name := typ[len("data-"):]
		if name == "" {
			return nil, d.fail(path+".type", "a data part needs a name after \"data-\"")
		}
		p = DataPart{Name: name, ID: o.str("id", false), Data: o.value("data")}
	case strings.HasPrefix(typ, "tool-"), typ == "dynamic-tool":
		tp, err := d.tool(o, typ)
		if err != nil {
			return nil, err
		}
		p = tp
	default:
		return nil, d.fail(path+".type", "unknown part type %q", clip(typ))
	}
	if o.err != nil {
		return nil, o.err
	}
	return p, nil
}

func (d *decoder) tool(o *object, typ string) (ToolPart, error) {
	p := ToolPart{ToolCallID: o.id("toolCallId"), State: ToolState(o.str("state", true))}
	if typ == "dynamic-tool" {
		p.Dynamic = true
		p.ToolName = o.str("toolName", true)
		if v, ok := o.boolean("dynamic"); ok {
			if v {
				o.setErr("dynamic", "must be false when present")
			}
			p.Unavailable = true
		}
	} else {
		p.ToolName = typ[len("tool-"):]
	}
	if o.err != nil {
		return p, o.err
	}
	if p.ToolName == "" || len(p.ToolName) > maxIDLen {
		return p, d.fail(o.path+".type", "needs a tool name of 1 to %d bytes", maxIDLen)
	}
	p.Title = o.str("title", false)
	p.ToolMetadata = o.jsonObject("toolMetadata")
	p.ProviderExecuted, _ = o.boolean("providerExecuted")
	p.CallProviderMetadata = o.meta("callProviderMetadata")
	p.Input = o.value("input")

	// Which fields each state allows or needs.
	var approval, approved string // "", "required", "forbidden"; "", "absent", "any", "true", "false"
	output, errorText := false, false
	switch p.State {
	case InputStreaming:
		approval = "forbidden"
		if raw, ok := o.m["rawInput"]; ok && !isNull(raw) {
			var s string
			if json.Unmarshal(raw, &s) != nil {
				o.setErr("rawInput", "must be a string")
			}
			p.RawInput = compact(raw)
		}
		p.InputEncoding = o.enum("inputEncoding", "json", "text")
	case InputAvailable:
		approval = "forbidden"
	case ApprovalRequested:
		approval, approved = "required", "absent"
	case ApprovalResponded:
		approval, approved = "required", "any"
	case OutputAvailable:
		approved = "true"
		output = true
		p.Preliminary, _ = o.boolean("preliminary")
		p.ResultProviderMetadata = o.meta("resultProviderMetadata")
	case OutputError:
		approved = "true"
		errorText = true
		p.ErrorText = o.str("errorText", true)
		p.RawInput = o.value("rawInput")
		p.ResultProviderMetadata = o.meta("resultProviderMetadata")
	case OutputDenied:
		approval, approved = "required", "false"
	default:
		return p, d.fail(o.path+".state", "unknown tool state %q", clip(string(p.State)))
	}
	if output {
		p.Output = o.value("output")
		if p.Output == nil {
			p.Output = json.RawMessage("null")
		}
	} else if o.present("output") {
		o.setErr("output", "is not allowed in state %q", p.State)
	}
	if !errorText && o.present("errorText") {
		o.setErr("errorText", "is not allowed in state %q", p.State)
	}
	if o.err != nil {
		return p, o.err
	}
	if !o.present("approval") {
		if approval == "required" {
			return p, d.fail(o.path+".approval", "is required in state %q", p.State)
		}
		return p, nil
	}
	if approval == "forbidden" {
		return p, d.fail(o.path+".approval", "is not allowed in state %q", p.State)
	}
	a, err := d.approval(o.m["approval"], o.path+".approval", approved)
	if err != nil {
		return p, err
	}
	p.Approval = a
	return p, nil
}

func (d *decoder) approval(raw json.RawMessage, path, approved string) (*Approval, error) {
	o, err := d.object(raw, path)
	if err != nil {
		return nil, err
	}
	a := &Approval{ID: o.id("id"), RequestReason: o.str("requestReason", false), Signature: o.str("signature", false)}
	a.IsAutomatic, _ = o.boolean("isAutomatic")
	if raw, ok := o.m["inputSchemaInput"]; ok {
		a.InputSchemaInput = compact(raw)
	}
	v, has := o.boolean("approved")
	if o.err != nil {
		return nil, o.err
	}
	switch {
	case approved == "absent" && has:
		return nil, d.fail(path+".approved", "is not allowed before the user answered")
	case approved == "any" && !has:
		return nil, d.fail(path+".approved", "is required")
	case approved == "true" && (!has || !v):
		return nil, d.fail(path+".approved", "must be true in this state")
	case approved == "false" && (!has || v):
		return nil, d.fail(path+".approved", "must be false in this state")
	}
	if has {
		a.Approved = new(v)
		a.Reason = o.str("reason", false)
	} else if o.present("reason") {
		return nil, d.fail(path+".reason", "is not allowed before the user answered")
	}
	if o.err != nil {
		return nil, o.err
	}
	return a, nil
}

// object is a JSON object being validated; the first error sticks.
type object struct {
	path string
	m    map[string]json.RawMessage
	err  *RequestError
}

func (d *decoder) object(raw json.RawMessage, path string) (*object, error) {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(raw, &m); err != nil || m == nil {
		return nil, d.fail(path, "must be a JSON object")
	}
	return &object{path: path, m: m}, nil
}

func (o *object) setErr(key, format string, args ...any) {
	if o.err == nil {
		p := key
		if o.path != "" {
			p = o.path + "." + key
		}
		o.err = &RequestError{Status: http.StatusBadRequest, Path: p, Message: fmt.Sprintf(format, args...)}
	}
}

// present reports a key with a non-null value.
func (o *object) present(key string) bool {
	v, ok := o.m[key]
	return ok && !isNull(v)
}

func isNull(v json.RawMessage) bool {
	return string(bytes.TrimSpace(v)) == "null"
}

func (o *object) str(key string, required bool) string {
	v, ok := o.m[key]
	if !ok || isNull(v) {
		if required {
			o.setErr(key, "is required")
		}
		return ""
	}
	var s string
	if err := json.Unmarshal(v, &s); err != nil {
		o.setErr(key, "must be a string")
	}
	return s
}

// fileURL checks the URL of a file: http, https or data. Other schemes
// (file:, internal services' own) have no business in a chat message.
func (o *object) fileURL(key, s string) {
	if o.err != nil {
		return
	}
	u, err := url.Parse(s)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https" && u.Scheme != "data") || (u.Scheme != "data" && u.Host == "") {
		o.setErr(key, "must be an http, https or data URL")
	}
}

// id reads a required, non-empty id of bounded length.
func (o *object) id(key string) string {
	s := o.str(key, true)
	if o.err == nil && (s == "" || len(s) > maxIDLen) {
		o.setErr(key, "must be a string of 1 to %d bytes", maxIDLen)
	}
	return s
}

func (o *object) enum(key string, allowed ...string) string {
	s := o.str(key, false)
	if s == "" || o.err != nil {
		return s
	}
	for _, a := range allowed {
		if s == a {
			return s
		}
	}
	o.setErr(key, "must be one of %q", allowed)
	return ""
}

func (o *object) boolean(key string) (value, present bool) {
	v, ok := o.m[key]
	if !ok || isNull(v) {
		return false, false
	}
	if err := json.Unmarshal(v, &value); err != nil {
		o.setErr(key, "must be a boolean")
		return false, false
	}
	return value, true
}

// value returns any JSON value, compacted; nil when absent.
func (o *object) value(key string) json.RawMessage {
	v, ok := o.m[key]
	if !ok {
		return nil
	}
	return compact(v)
}

// compact returns v without insignificant white space.
func compact(v json.RawMessage) json.RawMessage {
	var buf bytes.Buffer
	if json.Compact(&buf, v) != nil {
		return v // unreachable: v was decoded as JSON
	}
	return buf.Bytes()
}

func (o *object) array(key string) json.RawMessage {
	v, ok := o.m[key]
	if !ok || isNull(v) {
		return nil
	}
	var list []json.RawMessage
	if err := json.Unmarshal(v, &list); err != nil {
		o.setErr(key, "must be an array")
		return nil
	}
	return compact(v)
}

func (o *object) jsonObject(key string) map[string]any {
	v, ok := o.m[key]
	if !ok || isNull(v) {
		return nil
	}
	var m map[string]any
	if err := json.Unmarshal(v, &m); err != nil {
		o.setErr(key, "must be an object")
		return nil
	}
	return m
}

func (o *object) strMap(key string) map[string]string {
	v, ok := o.m[key]
	if !ok || isNull(v) {
		return nil
	}
	var m map[string]string
	if err := json.Unmarshal(v, &m); err != nil {
		o.setErr(key, "must be an object of strings")
		return nil
	}
	return m
}

// meta reads provider metadata: an object of objects.
func (o *object) meta(key string) ai.ProviderMetadata {
	v, ok := o.m[key]
	if !ok || isNull(v) {
		return nil
	}
	var m ai.ProviderMetadata
	if err := json.Unmarshal(v, &m); err != nil {
		o.setErr(key, "must be an object of objects")
		return nil
	}
	for k, inner := range m {
		if inner == nil {
			o.setErr(key+"."+clip(k), "must be an object")
			return nil
		}
	}
	return m
}

// clip shortens a value that is echoed in an error message.
func clip(s string) string {
	const n = 64
	if len(s) <= n {
		return s
	}
	for i := n; i > 0; i-- {
		if utf8.RuneStart(s[i]) {
			return s[:i] + "…"
		}
	}
	return s[:n]
}
