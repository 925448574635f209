package ai

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"strings"

	"github.com/aisdkgo/ai/internal/canonjson"
)

// approvalSigVersion tags the payload of a signed approval request.
const approvalSigVersion = "ai-sdk-tool-approval-v1"

// SignToolApproval signs an approval request for a tool call: the
// HMAC-SHA256, under secret, of the JSON array of a version tag, the
// approval id, the tool call id, the tool name and the SHA-256 digest of the
// input's canonical JSON, written in unpadded base64url. It is the signature
// the generation puts on its approval requests when
// [GenerateTextOptions.ToolApprovalSecrets] is set, and the one the
// TypeScript AI SDK makes with the same secret, so servers of either kind
// accept each other's approvals.
//
// input is the call's input as JSON; text that is not JSON is signed as a
// JSON string, as the TypeScript SDK signs the raw input of a call it could
// not parse.
func SignToolApproval(secret []byte, approvalID, toolCallID, toolName string, input json.RawMessage) string {
	mac := hmac.New(sha256.New, secret)
	mac.Write(approvalPayload(approvalID, toolCallID, toolName, inputDigest(input)))
	return base64.RawURLEncoding.EncodeToString(mac.Sum(nil))
}

// VerifyToolApprovalSignature reports whether signature is the signature
// of the approval request under one of secrets (a list so that secrets can
// be rotated: sign with the first, accept any). Like the TypeScript SDK it
// also accepts the earlier, newline-separated payload when no field holds a
// newline.
func VerifyToolApprovalSignature(secrets [][]byte, signature, approvalID, toolCallID, toolName string, input json.RawMessage) bool {
	sig, err := base64.RawURLEncoding.DecodeString(strings.TrimRight(signature, "="))
	if err != nil || len(sig) != sha256.Size {
		return false
	}
	digest := inputDigest(input)
	payloads := [][]byte{approvalPayload(approvalID, toolCallID, toolName, digest)}
	if !strings.Contains(approvalID+toolCallID+toolName, "\n") {
		payloads = append(payloads, []byte(approvalID+"\n"+toolCallID+"\n"+toolName+"\n"+digest))
	}
	ok := false
	for _, secret := range secrets {
		for _, p := range payloads {
			mac := hmac.New(sha256.New, secret)
			mac.Write(p)
			if hmac.Equal(mac.Sum(nil), sig) {
				ok = true // keep going: the time taken does not say which matched
			}
		}
	}
	return ok
}

// approvalPayload is the signed text: a JSON array of strings.
func approvalPayload(approvalID, toolCallID, toolName, digest string) []byte {
	b := []byte{'['}
	b = canonjson.AppendString(b, approvalSigVersion)
	for _, s := range []string{approvalID, toolCallID, toolName, digest} {
		b = append(b, ',')
		b = canonjson.AppendString(b, s)
	}
	return append(b, ']')
}

// inputDigest is the unpadded base64url SHA-256 of the input's canonical
// JSON.
func inputDigest(input json.RawMessage) string { return canonjson.Digest(input) }
