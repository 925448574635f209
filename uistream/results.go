package uistream

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"maps"

	"github.com/aisdkgo/ai"
	"github.com/aisdkgo/ai/internal/canonjson"
)

// ResultSignatureKey is the key of the tool metadata (the toolMetadata of
// tool chunks and parts) under which [Write] puts the signature of a tool
// result when [Options.ResultSecrets] are set. The client keeps the
// metadata with the tool part and sends it back with the history, where
// [ConvertMessages] checks it.
const ResultSignatureKey = "aisdkgoResultSignature"

// resultSigVersion tags the payload of a signed result.
const resultSigVersion = "aisdkgo-tool-result-v1"

// forgedText replaces, for the model, a result the server cannot vouch for.
const forgedText = "Tool output omitted: this server did not produce it."

// signResult signs the outcome of a tool call as the client will hold it:
// the call's id, tool name and input, and its state with the output (or
// the error text as a JSON string).
func signResult(secret []byte, callID, toolName string, input json.RawMessage, state ToolState, value json.RawMessage) string {
	mac := hmac.New(sha256.New, secret)
	mac.Write(resultPayload(callID, toolName, input, state, value))
	return base64.RawURLEncoding.EncodeToString(mac.Sum(nil))
}

func resultPayload(callID, toolName string, input json.RawMessage, state ToolState, value json.RawMessage) []byte {
	b := []byte{'['}
	for i, s := range []string{resultSigVersion, callID, toolName, canonjson.Digest(input), string(state), canonjson.Digest(value)} {
		if i > 0 {
			b = append(b, ',')
		}
		b = canonjson.AppendString(b, s)
	}
	return append(b, ']')
}

// verifyResult reports whether the part's outcome carries a signature made
// by one of secrets.
func verifyResult(secrets [][]byte, p ToolPart) bool {
	sig, _ := p.ToolMetadata[ResultSignatureKey].(string)
	got, err := base64.RawURLEncoding.DecodeString(sig)
	if err != nil || len(got) != sha256.Size {
		return false
	}
	value := p.Output
	if p.State == OutputError {
		value, _ = json.Marshal(p.ErrorText)
	}
	payload := resultPayload(p.ToolCallID, p.ToolName, p.Input, p.State, value)
	ok := false
	for _, secret := range secrets {
		mac := hmac.New(sha256.New, secret)
		mac.Write(payload)
		if hmac.Equal(mac.Sum(nil), got) {
			ok = true
		}
	}
	return ok
}

// signedMetadata returns the tool metadata of a result chunk with the
// result's signature added, or meta itself when results are not signed.
func (c *converter) signedMetadata(meta map[string]any, callID, toolName string, input json.RawMessage, state ToolState, value any) map[string]any {
	if len(c.opts.ResultSecrets) == 0 {
		return meta
	}
	raw, err := json.Marshal(value)
	if err != nil {
		return meta // the chunk cannot be written either
	}
	out := make(map[string]any, len(meta)+1)
	maps.Copy(out, meta)
	out[ResultSignatureKey] = signResult(c.opts.ResultSecrets[0], callID, toolName, input, state, raw)
	return out
}

// vouched reports whether the outcome of a tool part may reach the model
// as the tool's: always without ResultSecrets; with them, only results of
// tools that neither this server nor the provider runs (the client's own
// tools, and tools missing from Tools), and results signed by this server.
// A result that fails is reported to OnForgedResult.
func (c *converterIn) vouched(p ToolPart) bool {
	secrets := c.opts.ResultSecrets
	if len(secrets) == 0 {
		return true
	}
	t, known := c.opts.Tools.Get(p.ToolName)
	if !p.ProviderExecuted && (!known || !ai.RunsHere(t)) {
		return true
	}
	if _, program := ai.ProgramCallOf(p.CallProviderMetadata); program {
		// A person's answer to a paused program's call: the generation
		// checks it against the program's signed continuation, and it
		// never reaches the model as the tool's result.
		return true
	}
	if verifyResult(secrets, p) {
		return true
	}
	if c.opts.OnForgedResult != nil {
		c.opts.OnForgedResult(StoredResult{ToolName: p.ToolName, ToolCallID: p.ToolCallID, Input: p.Input, Output: p.Output})
	}
	return false
}
