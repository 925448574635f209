package ai

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"strings"
	"testing"
)

// signedCases is the shape of the recordings in testdata/approvals.
type signedCases struct {
	Secret     string `json:"secret"`
	SDK        string `json:"sdk,omitempty"`
	VerifiedBy string `json:"verifiedBy,omitempty"`
	Cases      []struct {
		Name            string `json:"name"`
		ToolName        string `json:"toolName"`
		ToolCallID      string `json:"toolCallId"`
		Input           string `json:"input"`
		ApprovalID      string `json:"approvalId"`
		Signature       string `json:"signature"`
		Verdict         string `json:"verdict,omitempty"`
		TamperedVerdict string `json:"tamperedVerdict,omitempty"`
	} `json:"cases"`
}

func readSignedCases(t *testing.T, path string) signedCases {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var sc signedCases
	if err := json.Unmarshal(b, &sc); err != nil {
		t.Fatal(err)
	}
	if len(sc.Cases) == 0 {
		t.Fatalf("%s holds no cases", path)
	}
	return sc
}

var recordGoApprovals = flag.String("record-go-approvals", "", "write the approvals signed in Go to this file, for the TypeScript SDK to verify")

// TestApprovalSignatureInterop replays signatures recorded in both
// directions: approval requests that the TypeScript SDK signed verify here,
// and the signatures made here are the ones that the TypeScript SDK, given
// the recorded conversation, accepted (and a tampered copy it refused).
func TestApprovalSignatureInterop(t *testing.T) {
	ts := readSignedCases(t, "testdata/approvals/ts-signed.json")
	secrets := [][]byte{[]byte("another secret"), []byte(ts.Secret)}
	for _, c := range ts.Cases {
		t.Run("from TypeScript/"+c.Name, func(t *testing.T) {
			in := json.RawMessage(c.Input)
			if !VerifyToolApprovalSignature(secrets, c.Signature, c.ApprovalID, c.ToolCallID, c.ToolName, in) {
				t.Fatalf("the reference's signature %s does not verify", c.Signature)
			}
			if got := SignToolApproval([]byte(ts.Secret), c.ApprovalID, c.ToolCallID, c.ToolName, in); got != c.Signature {
				t.Fatalf("signed here %s, by the reference %s", got, c.Signature)
			}
			if VerifyToolApprovalSignature([][]byte{[]byte("another secret")}, c.Signature, c.ApprovalID, c.ToolCallID, c.ToolName, in) {
				t.Fatal("verified under the wrong secret")
			}
			if VerifyToolApprovalSignature(secrets, c.Signature, c.ApprovalID+"x", c.ToolCallID, c.ToolName, in) {
				t.Fatal("verified for another approval id")
			}
		})
	}

	if *recordGoApprovals != "" {
		out := ts
		for i := range out.Cases {
			c := &out.Cases[i]
			c.ApprovalID = fmt.Sprintf("go-approval-%d", i)
			c.Signature = SignToolApproval([]byte(ts.Secret), c.ApprovalID, c.ToolCallID, c.ToolName, json.RawMessage(c.Input))
		}
		out.SDK = "github.com/aisdkgo/ai"
		b, _ := json.MarshalIndent(out, "", "  ")
		if err := os.WriteFile(*recordGoApprovals, append(b, '\n'), 0o644); err != nil {
			t.Fatal(err)
		}
	}

	goSigned := readSignedCases(t, "testdata/approvals/go-signed-verified.json")
	if goSigned.VerifiedBy == "" {
		t.Fatal("the recording of Go's signatures was not verified by the reference")
	}
	for _, c := range goSigned.Cases {
		t.Run("to TypeScript/"+c.Name, func(t *testing.T) {
			if c.Verdict != "executed" {
				t.Fatalf("the reference did not run the approved call: %s", c.Verdict)
			}
			if !strings.Contains(c.TamperedVerdict, "InvalidToolApprovalSignatureError") {
				t.Fatalf("the reference accepted a tampered signature: %s", c.TamperedVerdict)
			}
			got := SignToolApproval([]byte(goSigned.Secret), c.ApprovalID, c.ToolCallID, c.ToolName, json.RawMessage(c.Input))
			if got != c.Signature {
				t.Fatalf("signs %s now; the reference accepted %s", got, c.Signature)
			}
		})
	}
}
