package google

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"

	"github.com/aisdkgo/ai/provider"
)

// skipSignature is the value Google documents for replaying a function
// call whose thought signature is lost; Gemini 3 rejects calls without one.
const skipSignature = "skip_thought_signature_validator"

// content is one turn of the conversation on the wire.
type content struct {
	Role  string `json:"role,omitempty"`
	Parts []part `json:"parts"`
}

// part is one part of a turn; exactly one of its payload fields is set.
type part struct {
	Text                *string            `json:"text,omitempty"`
	Thought             bool               `json:"thought,omitempty"`
	InlineData          *blob              `json:"inlineData,omitempty"`
	FileData            *fileData          `json:"fileData,omitempty"`
	VideoMetadata       json.RawMessage    `json:"videoMetadata,omitempty"`
	FunctionCall        *functionCall      `json:"functionCall,omitempty"`
	FunctionResponse    *functionResponse  `json:"functionResponse,omitempty"`
	ExecutableCode      *executableCode    `json:"executableCode,omitempty"`
	CodeExecutionResult *codeResult        `json:"codeExecutionResult,omitempty"`
	ToolCall            *serverToolCall    `json:"toolCall,omitempty"`
	ToolResponse        *serverToolMessage `json:"toolResponse,omitempty"`
	ThoughtSignature    string             `json:"thoughtSignature,omitempty"`
}

type blob struct {
	MimeType string `json:"mimeType"`
	Data     string `json:"data"`
}

type fileData struct {
	MimeType string `json:"mimeType"`
	FileURI  string `json:"fileUri"`
}

type functionCall struct {
	ID   string          `json:"id,omitempty"`
	Name string          `json:"name"`
	Args json.RawMessage `json:"args,omitempty"`
}

type functionResponse struct {
	ID       string         `json:"id,omitempty"`
	Name     string         `json:"name"`
	Response map[string]any `json:"response"`
	Parts    []part         `json:"parts,omitempty"`
}

type executableCode struct {
	Language string `json:"language"`
	Code     string `json:"code"`
}

type codeResult struct {
	Outcome string `json:"outcome"`
	Output  string `json:"output"`
}

type serverToolCall struct {
	ToolType string          `json:"toolType"`
	Args     json.RawMessage `json:"args,omitempty"`
	ID       string          `json:"id"`
}

type serverToolMessage struct {
	ToolType string          `json:"toolType"`
	Response json.RawMessage `json:"response"`
	ID       string          `json:"id"`
}

func text(s string) *string { return &s }

// promptConverter turns a prompt into the system instruction and contents.
type promptConverter struct {
	p    *Provider
	caps capabilities
	// warn records a warning.
	warn func(provider.Warning)
	// codeExecution is the application's name of the code execution tool.
	codeExecution string
}

type convertedPrompt struct {
	system   *content
	contents []content
}

func (c *promptConverter) convert(prompt []provider.Message) (*convertedPrompt, error) {
	var system []part
	out := &convertedPrompt{}
	systemAllowed := true
	var unsigned []string
	for _, m := range prompt {
		switch m := m.(type) {
		case provider.SystemMessage:
			if !systemAllowed {
				return nil, &provider.UnsupportedFunctionalityError{Functionality: "system messages are only supported at the beginning of the conversation"}
			}
			system = append(system, part{Text: text(m.Content)})
		case provider.UserMessage:
			systemAllowed = false
			parts := []part{}
			for _, up := range m.Content {
				switch up := up.(type) {
				case provider.TextPart:
					parts = append(parts, part{Text: text(up.Text)})
				case provider.FilePart:
					fp, err := c.userFile(up)
					if err != nil {
						return nil, err
					}
					parts = append(parts, fp)
				}
			}
			out.contents = append(out.contents, content{Role: "user", Parts: parts})
		case provider.AssistantMessage:
			systemAllowed = false
			parts, missing, err := c.assistant(m)
			if err != nil {
				return nil, err
			}
			unsigned = append(unsigned, missing...)
			out.contents = append(out.contents, content{Role: "model", Parts: parts})
		case provider.ToolMessage:
			systemAllowed = false
			parts, err := c.toolResults(m, out.contents)
			if err != nil {
				return nil, err
			}
			out.contents = append(out.contents, content{Role: "user", Parts: parts})
		}
	}
	if c.caps.gemma && len(system) > 0 && len(out.contents) > 0 && out.contents[0].Role == "user" {
		texts := make([]string, len(system))
		for i, s := range system {
			texts[i] = *s.Text
		}
		first := &out.contents[0]
		first.Parts = append([]part{{Text: text(strings.Join(texts, "\n\n") + "\n\n")}}, first.Parts...)
	}
	if len(system) > 0 && !c.caps.gemma {
		out.system = &content{Parts: system}
	}
	if len(unsigned) > 0 && c.warn != nil {
		names := unique(unsigned)
		quoted := make([]string, len(names))
		for i, n := range names {
			quoted[i] = "`" + n + "`"
		}
		c.warn(provider.Warning{Type: "other", Message: fmt.Sprintf("Replayed %d `functionCall` part(s) for a Gemini 3 model without a `thoughtSignature` (tools: %s). "+
			"Injected the documented `%s` sentinel to keep the request from failing with HTTP 400. "+
			"The likely cause is application code that drops `providerOptions.google.thoughtSignature` when persisting or serializing assistant tool-call messages. "+
			"See https://ai.google.dev/gemini-api/docs/thought-signatures.", len(unsigned), strings.Join(quoted, ", "), skipSignature)})
	}
	return out, nil
}

// partOptions returns the provider options of a part under this provider's
// keys, first match wins, falling back to the other dialect's keys.
func (c *promptConverter) partOptions(po provider.ProviderOptions) map[string]any {
	for _, k := range c.p.optionKeys() {
		if v := po[k]; v != nil {
			return v
		}
	}
	if !c.p.cfg.vertex {
		if v := po["googleVertex"]; v != nil {
			return v
		}
		return po["vertex"]
	}
	return nil
}

func stringOption(o map[string]any, key string) string {
	if o == nil || o[key] == nil {
		return ""
	}
	if s, ok := o[key].(string); ok {
		return s
	}
	return fmt.Sprint(o[key])
}

// userFile converts a file of a user message.
func (c *promptConverter) userFile(fp provider.FilePart) (part, error) {
	var video json.RawMessage
	if v := c.partOptions(fp.ProviderOptions)["videoMetadata"]; v != nil {
		b, err := json.Marshal(v)
		if err != nil {
			return part{}, fmt.Errorf("google: videoMetadata: %w", err)
		}
		video = b
	}
	switch d := fp.Data.(type) {
	case provider.FileURL:
		mt, err := fullMediaType(fp.MediaType, nil, false)
		if err != nil {
			return part{}, err
		}
		return part{FileData: &fileData{MimeType: mt, FileURI: d.URL}, VideoMetadata: video}, nil
	case provider.FileReference:
		uri, err := c.reference(d)
		if err != nil {
			return part{}, err
		}
		mt, err := fullMediaType(fp.MediaType, nil, false)
		if err != nil {
			return part{}, err
		}
		return part{FileData: &fileData{MimeType: mt, FileURI: uri}, VideoMetadata: video}, nil
	case provider.FileText:
		mt := fp.MediaType
		if !strings.Contains(mt, "/") {
			mt = "text/plain"
		}
		return part{InlineData: &blob{MimeType: mt, Data: base64.StdEncoding.EncodeToString([]byte(d.Text))}, VideoMetadata: video}, nil
	case provider.FileBytes:
		mt, err := fullMediaType(fp.MediaType, d.Data, true)
		if err != nil {
			return part{}, err
		}
		return part{InlineData: &blob{MimeType: mt, Data: base64.StdEncoding.EncodeToString(d.Data)}, VideoMetadata: video}, nil
	}
	return part{}, &provider.UnsupportedFunctionalityError{Functionality: "file data of this kind"}
}

func (c *promptConverter) reference(d provider.FileReference) (string, error) {
	if c.p.cfg.vertex {
		return "", &provider.UnsupportedFunctionalityError{Functionality: "file parts with provider references"}
	}
	uri, ok := d.Reference["google"]
	if !ok {
		return "", &provider.UnsupportedFunctionalityError{Functionality: "a file reference without a \"google\" entry"}
	}
	return uri, nil
}

// assistant converts an assistant message. missing lists the tools whose
// calls were sent with the skip sentinel instead of a lost signature.
func (c *promptConverter) assistant(m provider.AssistantMessage) (parts []part, missing []string, err error) {
	parts = []part{}
	signedCall := false
	for _, ap := range m.Content {
		var opts map[string]any
		switch ap := ap.(type) {
		case provider.TextPart:
			opts = c.partOptions(ap.ProviderOptions)
			sig := stringOption(opts, "thoughtSignature")
			if ap.Text == "" && sig == "" {
				continue
			}
			parts = append(parts, part{Text: text(ap.Text), ThoughtSignature: sig})
		case provider.ReasoningPart:
			opts = c.partOptions(ap.ProviderOptions)
			sig := stringOption(opts, "thoughtSignature")
			if ap.Text == "" && sig == "" {
				continue
			}
			parts = append(parts, part{Text: text(ap.Text), Thought: true, ThoughtSignature: sig})
		case provider.ReasoningFilePart:
			opts = c.partOptions(ap.ProviderOptions)
			b, ok := ap.Data.(provider.FileBytes)
			if !ok {
				return nil, nil, &provider.UnsupportedFunctionalityError{Functionality: "file data URLs in assistant messages"}
			}
			parts = append(parts, part{InlineData: &blob{MimeType: ap.MediaType, Data: base64.StdEncoding.EncodeToString(b.Data)},
				Thought: true, ThoughtSignature: stringOption(opts, "thoughtSignature")})
		case provider.FilePart:
			opts = c.partOptions(ap.ProviderOptions)
			fp := part{ThoughtSignature: stringOption(opts, "thoughtSignature"), Thought: opts["thought"] == true}
			switch d := ap.Data.(type) {
			case provider.FileURL:
				return nil, nil, &provider.UnsupportedFunctionalityError{Functionality: "file data URLs in assistant messages"}
			case provider.FileReference:
				uri, err := c.reference(d)
				if err != nil {
					return nil, nil, err
				}
				fp.FileData = &fileData{MimeType: ap.MediaType, FileURI: uri}
			case provider.FileText:
				mt := ap.MediaType
				if !strings.Contains(mt, "/") {
					mt = "text/plain"
				}
				fp.InlineData = &blob{MimeType: mt, Data: base64.StdEncoding.EncodeToString([]byte(d.Text))}
			case provider.FileBytes:
				fp.InlineData = &blob{MimeType: ap.MediaType, Data: base64.StdEncoding.EncodeToString(d.Data)}
			default:
				return nil, nil, &provider.UnsupportedFunctionalityError{Functionality: "file data of this kind"}
			}
			parts = append(parts, fp)
		case provider.ToolCallPart:
			opts = c.partOptions(ap.ProviderOptions)
			if ap.ProviderExecuted && ap.ToolName == c.codeExecution {
				var code executableCode
				if err := json.Unmarshal(ap.Input, &code); err != nil {
					return nil, nil, fmt.Errorf("google: code_execution call input: %w", err)
				}
				parts = append(parts, part{ExecutableCode: &code})
				continue
			}
			sig := stringOption(opts, "thoughtSignature")
			serverID, serverType := stringOption(opts, "serverToolCallId"), stringOption(opts, "serverToolType")
			server := serverID != "" && serverType != ""
			effective := sig
			if sig == "" && c.caps.gemini3 && !(!server && signedCall) {
				effective = skipSignature
				missing = append(missing, ap.ToolName)
			}
			if !server && sig != "" {
				signedCall = true
			}
			if server {
				parts = append(parts, part{ToolCall: &serverToolCall{ToolType: serverType, Args: jsonInput(ap.Input), ID: serverID}, ThoughtSignature: effective})
				continue
			}
			fc := &functionCall{Name: ap.ToolName, Args: jsonInput(ap.Input)}
			if !c.p.cfg.vertex {
				fc.ID = ap.ToolCallID
			}
			parts = append(parts, part{FunctionCall: fc, ThoughtSignature: effective})
		case provider.ToolResultPart:
			opts = c.partOptions(ap.ProviderOptions)
			if j, ok := ap.Output.(provider.JSONOutput); ok && ap.ToolName == c.codeExecution {
				var r struct {
					Outcome *string `json:"outcome"`
					Output  *string `json:"output"`
				}
				if err := json.Unmarshal(j.Value, &r); err != nil || r.Outcome == nil || r.Output == nil {
					return nil, nil, fmt.Errorf("google: code_execution result must be {outcome, output}")
				}
				parts = append(parts, part{CodeExecutionResult: &codeResult{Outcome: *r.Outcome, Output: *r.Output}})
				continue
			}
			serverID, serverType := stringOption(opts, "serverToolCallId"), stringOption(opts, "serverToolType")
			if serverID != "" && serverType != "" {
				parts = append(parts, part{ToolResponse: &serverToolMessage{ToolType: serverType, Response: serverResponse(ap.Output), ID: serverID},
					ThoughtSignature: stringOption(opts, "thoughtSignature")})
			}
		}
	}
	return parts, missing, nil
}

// jsonInput returns a call's input as a JSON value: the input itself when
// it is valid JSON, else the input as a string.
func jsonInput(in json.RawMessage) json.RawMessage {
	if len(bytes.TrimSpace(in)) == 0 {
		return nil
	}
	if json.Valid(in) {
		return in
	}
	b, _ := json.Marshal(string(in))
	return b
}

// serverResponse is the response of a server tool: its JSON output, else
// an empty object.
func serverResponse(o provider.ToolResultOutput) json.RawMessage {
	if j, ok := o.(provider.JSONOutput); ok && len(j.Value) > 0 {
		return j.Value
	}
	return json.RawMessage(`{}`)
}

// toolResults converts a tool message. Results of server tools are added
// to the preceding model turn instead.
func (c *promptConverter) toolResults(m provider.ToolMessage, contents []content) ([]part, error) {
	parts := []part{}
	for _, tp := range m.Content {
		r, ok := tp.(provider.ToolResultPart)
		if !ok {
			continue // approval responses are not sent
		}
		opts := c.partOptions(r.ProviderOptions)
		serverID, serverType := stringOption(opts, "serverToolCallId"), stringOption(opts, "serverToolType")
		if serverID != "" && serverType != "" && len(contents) > 0 && contents[len(contents)-1].Role == "model" {
			last := &contents[len(contents)-1]
			last.Parts = append(last.Parts, part{ToolResponse: &serverToolMessage{ToolType: serverType, Response: serverResponse(r.Output), ID: serverID},
				ThoughtSignature: stringOption(opts, "thoughtSignature")})
			continue
		}
		id := r.ToolCallID
		if c.p.cfg.vertex {
			id = ""
		}
		switch o := r.Output.(type) {
		case provider.ContentOutput:
			if c.caps.gemini3 {
				parts = append(parts, c.contentResult(r.ToolName, id, o))
			} else {
				parts = append(parts, legacyContentResult(r.ToolName, id, o)...)
			}
			continue
		}
		resp := map[string]any{"name": r.ToolName}
		switch o := r.Output.(type) {
		case provider.TextOutput:
			resp["content"] = o.Value
		case provider.JSONOutput:
			resp["content"] = responseValue(o.Value)
		case provider.ErrorTextOutput:
			resp["error"] = o.Value
		case provider.ErrorJSONOutput:
			resp["error"] = responseValue(o.Value)
		case provider.ExecutionDeniedOutput:
			reason := o.Reason
			if reason == "" {
				reason = "Tool call execution denied."
			}
			resp["error"] = reason
		default:
			return nil, &provider.UnsupportedFunctionalityError{Functionality: fmt.Sprintf("tool result output %T", r.Output)}
		}
		parts = append(parts, part{FunctionResponse: &functionResponse{ID: id, Name: r.ToolName, Response: resp}})
	}
	return parts, nil
}

// responseValue is a JSON result as sent in a function response. Google
// reads {"$ref": ...} in structured responses as a reference to a
// multimodal part, so a value holding a "$ref" key is sent as JSON text.
func responseValue(v json.RawMessage) any {
	if len(v) == 0 {
		return nil
	}
	var decoded any
	if err := json.Unmarshal(v, &decoded); err != nil {
		return string(v)
	}
	if hasRef(decoded) {
		return string(compact(v))
	}
	return json.RawMessage(v)
}

func hasRef(v any) bool {
	switch v := v.(type) {
	case map[string]any:
		for k, x := range v {
			if k == "$ref" || hasRef(x) {
				return true
			}
		}
	case []any:
		for _, x := range v {
			if hasRef(x) {
				return true
			}
		}
	}
	return false
}

func compact(v json.RawMessage) []byte {
	var b bytes.Buffer
	if json.Compact(&b, v) != nil {
		return v
	}
	return b.Bytes()
}

// contentResult is a multimodal tool result for Gemini 3: the text joined
// in the response, files as parts of the function response.
func (c *promptConverter) contentResult(name, id string, o provider.ContentOutput) part {
	var texts []string
	var files []part
	for _, cp := range o.Value {
		switch cp := cp.(type) {
		case provider.TextPart:
			texts = append(texts, cp.Text)
		case provider.FilePart:
			switch d := cp.Data.(type) {
			case provider.FileBytes:
				mt, err := fullMediaType(cp.MediaType, d.Data, true)
				if err != nil {
					texts = append(texts, partJSON(cp))
					continue
				}
				files = append(files, part{InlineData: &blob{MimeType: mt, Data: base64.StdEncoding.EncodeToString(d.Data)}})
			case provider.FileURL:
				if mt, data, ok := parseBase64DataURL(d.URL); ok {
					files = append(files, part{InlineData: &blob{MimeType: mt, Data: data}})
				} else {
					texts = append(texts, partJSON(cp))
				}
			default:
				texts = append(texts, partJSON(cp))
			}
		default:
			texts = append(texts, partJSON(cp))
		}
	}
	msg := "Tool executed successfully."
	if len(texts) > 0 {
		msg = strings.Join(texts, "\n")
	}
	return part{FunctionResponse: &functionResponse{ID: id, Name: name, Response: map[string]any{"name": name, "content": msg}, Parts: files}}
}

// legacyContentResult is a multimodal tool result for models before Gemini
// 3: each text is a function response, each file a separate part.
func legacyContentResult(name, id string, o provider.ContentOutput) []part {
	var parts []part
	for _, cp := range o.Value {
		switch cp := cp.(type) {
		case provider.TextPart:
			parts = append(parts, part{FunctionResponse: &functionResponse{ID: id, Name: name, Response: map[string]any{"name": name, "content": cp.Text}}})
		case provider.FilePart:
			d, ok := cp.Data.(provider.FileBytes)
			mt, err := fullMediaType(cp.MediaType, d.Data, ok)
			if !ok || err != nil {
				parts = append(parts, part{Text: text(partJSON(cp))})
				continue
			}
			kind := "file"
			if strings.HasPrefix(mt, "image/") {
				kind = "image"
			}
			parts = append(parts,
				part{InlineData: &blob{MimeType: mt, Data: base64.StdEncoding.EncodeToString(d.Data)}},
				part{Text: text("Tool executed successfully and returned this " + kind + " as a response")})
		default:
			parts = append(parts, part{Text: text(partJSON(cp))})
		}
	}
	return parts
}

func partJSON(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}

// parseBase64DataURL splits "data:<type>;base64,<data>".
func parseBase64DataURL(u string) (mediaType, data string, ok bool) {
	rest, found := strings.CutPrefix(u, "data:")
	if !found {
		return "", "", false
	}
	meta, payload, found := strings.Cut(rest, ",")
	mt, isBase64 := strings.CutSuffix(meta, ";base64")
	if !found || !isBase64 || mt == "" || strings.ContainsAny(mt, ";,") || payload == "" {
		return "", "", false
	}
	return mt, payload, true
}

// fullMediaType returns mediaType when it has a subtype; otherwise it
// detects the subtype from the bytes (when there are any).
func fullMediaType(mediaType string, data []byte, hasBytes bool) (string, error) {
	if strings.Contains(mediaType, "/") {
		return mediaType, nil
	}
	if hasBytes {
		if mt := detectMediaType(data, strings.ToLower(mediaType)); mt != "" {
			return mt, nil
		}
		return "", &provider.UnsupportedFunctionalityError{Functionality: fmt.Sprintf("file of media type %q must specify subtype since it could not be auto-detected", mediaType)}
	}
	return "", &provider.UnsupportedFunctionalityError{Functionality: fmt.Sprintf("file of media type %q must specify subtype since it is not passed as inline bytes", mediaType)}
}

// detectMediaType sniffs the type of data within a top-level type ("image",
// "audio", "video", "application").
func detectMediaType(data []byte, top string) string {
	has := func(off int, sig string) bool {
		return len(data) >= off+len(sig) && string(data[off:off+len(sig)]) == sig
	}
	if top == "image" {
		switch {
		case has(0, "II*\x00"), has(0, "MM\x00*"):
			return "image/tiff"
		case has(4, "ftypavif"):
			return "image/avif"
		case has(4, "ftypheic"):
			return "image/heic"
		}
	}
	mt, _, _ := strings.Cut(http.DetectContentType(data), ";")
	switch mt {
	case "audio/wave":
		mt = "audio/wav"
	case "application/ogg":
		mt = "audio/ogg"
	}
	if strings.HasPrefix(mt, top+"/") {
		return mt
	}
	return ""
}

func unique(ss []string) []string {
	var out []string
	seen := map[string]bool{}
	for _, s := range ss {
		if !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	return out
}
