package openaichat

import (
	"bytes"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"

	"github.com/aisdkgo/ai/provider"
)

const idAlphabet = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"

// NewID returns a random 16-character alphanumeric id, used where the
// provider sends none (sources, some tool calls).
func NewID() string {
	b := make([]byte, 16)
	_, _ = rand.Read(b)
	for i := range b {
		b[i] = idAlphabet[int(b[i])%len(idAlphabet)]
	}
	return string(b)
}

// DecodeOptions decodes the provider options stored under key into v (a
// pointer to a struct with camelCase JSON tags). It reports whether the key
// was present. Values of the wrong type are an error.
func DecodeOptions(opts provider.ProviderOptions, key string, v any) (bool, error) {
	m, ok := opts[key]
	if !ok || m == nil {
		return false, nil
	}
	if err := decodeMap(m, v); err != nil {
		return true, fmt.Errorf("invalid %q provider options: %w", key, err)
	}
	return true, nil
}

func decodeMap(m map[string]any, v any) error {
	data, err := json.Marshal(m)
	if err != nil {
		return err
	}
	return json.Unmarshal(data, v)
}

// Options returns the settings stored under key in opts (nil when absent).
func Options(opts provider.ProviderOptions, key string) map[string]any {
	if opts == nil {
		return nil
	}
	return opts[key]
}

// StringOption returns opts[key][name] when it is a string.
func StringOption(opts provider.ProviderOptions, key, name string) string {
	s, _ := Options(opts, key)[name].(string)
	return s
}

// DataURL encodes data as a base64 data URL of the given media type.
func DataURL(mediaType string, data []byte) string {
	return "data:" + mediaType + ";base64," + base64.StdEncoding.EncodeToString(data)
}

// FileBytes returns the content of inline file data (bytes or text); ok is
// false for URLs and provider references.
func FileBytes(d provider.FileData) (data []byte, ok bool) {
	switch d := d.(type) {
	case provider.FileBytes:
		return d.Data, true
	case *provider.FileBytes:
		return d.Data, true
	case provider.FileText:
		return []byte(d.Text), true
	case *provider.FileText:
		return []byte(d.Text), true
	}
	return nil, false
}

// FileURL returns the URL of URL file data.
func FileURL(d provider.FileData) (string, bool) {
	switch d := d.(type) {
	case provider.FileURL:
		return d.URL, true
	case *provider.FileURL:
		return d.URL, true
	}
	return "", false
}

// FileReference returns the id stored for key in provider file reference
// data.
func FileReference(d provider.FileData, key string) (string, bool) {
	var ref map[string]string
	switch d := d.(type) {
	case provider.FileReference:
		ref = d.Reference
	case *provider.FileReference:
		ref = d.Reference
	default:
		return "", false
	}
	id, ok := ref[key]
	return id, ok
}

// ImageMediaType normalises an image media type: a wildcard or a bare
// "image" becomes "image/jpeg".
func ImageMediaType(mt string) string {
	if mt == "image/*" || mt == "image" {
		return "image/jpeg"
	}
	return mt
}

// IsImage reports whether mt is an image media type (or the bare "image").
func IsImage(mt string) bool {
	return mt == "image" || strings.HasPrefix(mt, "image/")
}

// MergeHeaders returns the union of hs; later values replace earlier ones
// for the same header name.
func MergeHeaders(hs ...http.Header) http.Header {
	out := http.Header{}
	for _, h := range hs {
		for k, vs := range h {
			out[http.CanonicalHeaderKey(k)] = append([]string(nil), vs...)
		}
	}
	return out
}

// ToolArguments returns a prompt tool call's input as the JSON object text
// the API expects for function arguments: an object is passed on, anything
// else (null, a scalar, an array, invalid JSON) becomes "{}". A JSON string
// holding an object is unwrapped.
func ToolArguments(input json.RawMessage) string {
	var v any
	if json.Unmarshal(input, &v) != nil {
		return "{}"
	}
	switch v := v.(type) {
	case map[string]any:
		return compact(input)
	case string:
		var inner map[string]any
		if json.Unmarshal([]byte(v), &inner) == nil && inner != nil {
			return compact([]byte(v))
		}
	}
	return "{}"
}

func compact(b []byte) string {
	var buf bytes.Buffer
	if json.Compact(&buf, b) != nil {
		return string(b)
	}
	return buf.String()
}
