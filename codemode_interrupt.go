package ai

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/aisdkgo/ai/internal/canonjson"
	"github.com/aisdkgo/ai/provider"
)

// This file lets a code mode program pause when one of its tool calls needs
// a person's approval, and resume once the person answered.
//
// A paused program is described by a "code-mode-interrupt" object in the
// shape of the TypeScript SDK's code mode: the code call's output while the
// program is paused, holding a signed, expiring continuation. The paused
// call itself is reported as a tool call marked as the program's (provider
// metadata "aisdkgo"."codeModeCall" names the code call), with an approval
// request, so that a chat client shows it like any call waiting for
// approval and a stateless server gets everything back with the answer.
// The continuation's token holds what the program saw: the seed of
// Math.random, the fixed clock, and the outcome of every tool call that
// completed. Resuming runs the program again from the start: completed
// calls are answered from the token and never run again, the approved
// call runs (a denied one rejects inside the program), and the program
// goes on. Neither the paused output nor the program's call reaches a
// model's prompt.

// CodeModeApproval says what a program does when one of its tool calls
// needs approval that nobody gave yet.
type CodeModeApproval int

const (
	// CodeModeApprovalCallback asks [CodeModeOptions.Approve], or, without
	// it, fails the call inside the program with
	// [CodeModeToolApprovalRequired].
	CodeModeApprovalCallback CodeModeApproval = iota
	// CodeModeApprovalInterrupt pauses the program: the step reports the
	// paused call as a [ToolCall] with a [ToolApprovalRequest] and the
	// generation stops, as for any approval. Answering the request in the
	// conversation resumes the program (see [CodeModeOptions]).
	CodeModeApprovalInterrupt
)

// CodeModeProtocolError reports a paused program that could not be
// resumed faithfully: it made other tool calls than the ones recorded when
// it paused (its path depends on something that is not replayed).
const CodeModeProtocolError = "CODE_MODE_PROTOCOL_ERROR"

// codeModeInterruptKind is the payload kind of an approval pause.
const codeModeInterruptKind = "ai-sdk-code-mode/tool-approval"

// metadataKey and callerField mark a paused call of a program in provider
// metadata: the value is the code call's id.
const (
	metadataKey = "aisdkgo"
	callerField = "codeModeCall"
)

// defaultContinuationMaxAge is how long a paused program may wait.
const defaultContinuationMaxAge = time.Hour

// maxContinuationBytes bounds the token of a paused program: the outcomes
// of its completed calls.
const maxContinuationBytes = 8 << 20

// InvalidCodeModeContinuationError reports a paused program that cannot be
// resumed: its continuation is malformed, expired, signed with another
// key, or does not match the conversation it came back in. The generation
// fails before anything runs.
type InvalidCodeModeContinuationError struct {
	// ToolCallID is the paused call's id.
	ToolCallID string
	// Reason says what is wrong.
	Reason string
}

// Error implements the error interface.
func (e *InvalidCodeModeContinuationError) Error() string {
	return fmt.Sprintf("code mode continuation of call %q refused: %s", e.ToolCallID, e.Reason)
}

// The continuation's wire shape, as the TypeScript SDK's code mode writes it.
type (
	codeInterrupt struct {
		Type            string           `json:"type"`
		InterruptID     string           `json:"interruptId"`
		ToolName        string           `json:"toolName"`
		ToolCallID      string           `json:"toolCallId"`
		OuterToolCallID string           `json:"outerToolCallId"`
		Input           json.RawMessage  `json:"input"`
		Payload         json.RawMessage  `json:"payload"`
		Continuation    codeContinuation `json:"continuation"`
	}
	codeContinuation struct {
		Version              int                   `json:"version"`
		JS                   string                `json:"js"`
		OuterToolCallID      string                `json:"outerToolCallId"`
		ToolNames            []string              `json:"toolNames"`
		Token                string                `json:"token"`
		PendingInterruptions []pendingInterruption `json:"pendingInterruptions"`
		Resolutions          []json.RawMessage     `json:"resolutions"`
		Auth                 *continuationAuth     `json:"auth,omitempty"`
	}
	pendingInterruption struct {
		RunInterruptionID string          `json:"runInterruptionId"`
		InterruptID       string          `json:"interruptId"`
		ToolName          string          `json:"toolName"`
		ToolCallID        string          `json:"toolCallId"`
		Input             json.RawMessage `json:"input"`
		Payload           json.RawMessage `json:"payload"`
	}
	continuationAuth struct {
		Alg         string `json:"alg"`
		Nonce       string `json:"nonce"`
		IssuedAtMs  int64  `json:"issuedAtMs"`
		ExpiresAtMs int64  `json:"expiresAtMs"`
		Signature   string `json:"signature,omitempty"`
	}
)

// codeLedger is the token of a continuation: what the program saw.
type codeLedger struct {
	// Seed seeds Math.random, as a decimal string (JSON numbers hold 53
	// bits); Time is the run's fixed clock in Unix milliseconds.
	Seed  string       `json:"seed"`
	Time  int64        `json:"time"`
	Calls []ledgerCall `json:"calls"`
	// Pending is the sequence number of the paused call.
	Pending int `json:"pending"`
}

// ledgerCall is a tool call of the program that completed, with the
// outcome the program saw.
type ledgerCall struct {
	Seq    int             `json:"seq"`
	Name   string          `json:"name"`
	Input  json.RawMessage `json:"input"`
	Output json.RawMessage `json:"output,omitempty"`
	Error  *ledgerError    `json:"error,omitempty"`
	// payload is what a paused call asks for (never recorded).
	payload json.RawMessage
}

// ledgerError is a failed call as the program saw it: a library refusal
// with its code, or (Host) a tool failure, which programs see redacted.
type ledgerError struct {
	Code    string         `json:"code,omitempty"`
	Name    string         `json:"name,omitempty"`
	Message string         `json:"message,omitempty"`
	Details map[string]any `json:"details,omitempty"`
	Host    bool           `json:"host,omitempty"`
}

// outcome returns the recorded outcome as CallTool returns it.
func (c ledgerCall) outcome() (json.RawMessage, error) {
	if c.Error == nil {
		return c.Output, nil
	}
	if c.Error.Host {
		return nil, errRecordedToolFailure
	}
	return nil, &CodeModeError{Code: c.Error.Code, Name: c.Error.Name, Message: c.Error.Message, Details: c.Error.Details}
}

var errRecordedToolFailure = errors.New("the tool failed when the program first ran")

// processContinuationKey signs continuations when no secret is configured:
// they then resume only in this process.
var processContinuationKey = sync.OnceValue(func() []byte {
	k := make([]byte, 32)
	_, _ = rand.Read(k)
	return k
})

// continuationSecrets returns the secrets of a code tool's continuations:
// its own, else the generation's approval secrets, else the process key.
func (o CodeModeOptions) continuationSecrets(approval [][]byte) [][]byte {
	if len(o.ContinuationSecrets) > 0 {
		return o.ContinuationSecrets
	}
	if len(approval) > 0 {
		return approval
	}
	return [][]byte{processContinuationKey()}
}

// signContinuation signs c with secret, valid for maxAge from now.
func signContinuation(c *codeContinuation, secret []byte, now time.Time, maxAge time.Duration) error {
	nonce := make([]byte, 16)
	if _, err := rand.Read(nonce); err != nil {
		return err
	}
	c.Auth = &continuationAuth{Alg: "HMAC-SHA256", Nonce: hex.EncodeToString(nonce),
		IssuedAtMs: now.UnixMilli(), ExpiresAtMs: now.Add(maxAge).UnixMilli()}
	sig, err := continuationSignature(c, secret)
	if err != nil {
		return err
	}
	c.Auth.Signature = sig
	return nil
}

// continuationSignature is the HMAC-SHA256 of c's canonical JSON without
// its signature, in base64url.
func continuationSignature(c *codeContinuation, secret []byte) (string, error) {
	unsigned := *c
	auth := *c.Auth
	auth.Signature = ""
	unsigned.Auth = &auth
	raw, err := json.Marshal(unsigned)
	if err != nil {
		return "", err
	}
	canon, err := canonjson.Append(nil, raw)
	if err != nil {
		return "", err
	}
	m := hmac.New(sha256.New, secret)
	m.Write(canon)
	return base64.RawURLEncoding.EncodeToString(m.Sum(nil)), nil
}

// verifyContinuation checks a continuation's shape, age and signature.
func verifyContinuation(c *codeContinuation, secrets [][]byte, now time.Time) string {
	if c.Version != 2 || c.Token == "" || len(c.PendingInterruptions) == 0 || c.Auth == nil {
		return "malformed continuation"
	}
	a := c.Auth
	if a.Alg != "HMAC-SHA256" || len(a.Nonce) != 32 || a.Signature == "" || a.ExpiresAtMs <= a.IssuedAtMs {
		return "malformed continuation"
	}
	if _, err := hex.DecodeString(a.Nonce); err != nil {
		return "malformed continuation"
	}
	if a.ExpiresAtMs < now.UnixMilli() {
		return "the continuation expired"
	}
	if a.IssuedAtMs > now.Add(time.Minute).UnixMilli() {
		return "the continuation was issued in the future"
	}
	for _, s := range secrets {
		want, err := continuationSignature(c, s)
		if err == nil && hmac.Equal([]byte(want), []byte(a.Signature)) {
			return ""
		}
	}
	return "invalid signature"
}

// programCallOf returns the code call that made a tool call, when it is a
// paused call of a program.
func programCallOf(po ProviderOptions) (string, bool) {
	id, ok := po[metadataKey][callerField].(string)
	return id, ok
}

// isProgramCall reports whether an assistant's tool call was made by a
// program, not by the model: such calls never reach a model's prompt.
func isProgramCall(p ToolCallPart) bool {
	_, ok := programCallOf(p.ProviderOptions)
	return ok
}

// pausedOutput returns the interrupt object a code call's result holds
// while its program is paused.
func pausedOutput(out ToolResultOutput) (json.RawMessage, bool) {
	j, ok := out.(JSONOutput)
	if !ok || !bytes.Contains(j.Value, []byte(`"code-mode-interrupt"`)) {
		return nil, false
	}
	var probe struct {
		Type         string          `json:"type"`
		Continuation json.RawMessage `json:"continuation"`
	}
	if json.Unmarshal(j.Value, &probe) != nil || probe.Type != "code-mode-interrupt" || len(probe.Continuation) == 0 {
		return nil, false
	}
	return j.Value, true
}

// codeResume is what resuming a paused program hands to its code tool.
type codeResume struct {
	interrupt codeInterrupt
	ledger    codeLedger
	// approved and reason answer an approval; resolution answers any other
	// pause (the person's input, as JSON).
	approved   bool
	reason     string
	resolution json.RawMessage
}

// payloadKind returns the kind of a pause's payload.
func payloadKind(payload json.RawMessage) string {
	var p struct {
		Kind string `json:"kind"`
	}
	_ = json.Unmarshal(payload, &p)
	return p.Kind
}

// readContinuation parses and checks the continuation carried by a paused
// call against the call, the secrets and the clock.
func readContinuation(raw json.RawMessage, call ToolCallPart, approvalID string, secrets [][]byte, now time.Time) (*codeResume, error) {
	fail := func(reason string) error {
		return &InvalidCodeModeContinuationError{ToolCallID: call.ToolCallID, Reason: reason}
	}
	var ci codeInterrupt
	if err := json.Unmarshal(raw, &ci); err != nil || ci.Type != "code-mode-interrupt" {
		return nil, fail("malformed continuation")
	}
	c := &ci.Continuation
	if reason := verifyContinuation(c, secrets, now); reason != "" {
		return nil, fail(reason)
	}
	// The signed ledger decides; the visible fields must agree with it and
	// with the call in the conversation.
	pending := c.PendingInterruptions[len(c.Resolutions):]
	if len(c.Resolutions) >= len(c.PendingInterruptions) || len(pending) == 0 {
		return nil, fail("nothing is pending")
	}
	p := pending[0]
	if c.OuterToolCallID != ci.OuterToolCallID || p.InterruptID != ci.InterruptID || p.ToolCallID != ci.ToolCallID ||
		p.ToolName != ci.ToolName || !canonjson.Equal(p.Input, ci.Input) || !canonjson.Equal(p.Payload, ci.Payload) {
		return nil, fail("the interrupt does not match its signed continuation")
	}
	if p.ToolCallID != call.ToolCallID || p.ToolName != call.ToolName || !canonjson.Equal(p.Input, call.Input) {
		return nil, fail("the continuation belongs to another call")
	}
	approval := payloadKind(p.Payload) == codeModeInterruptKind
	switch {
	case approvalID != "" && (!approval || approvalID != p.InterruptID):
		return nil, fail("the approval answers another request")
	case approvalID == "" && approval:
		return nil, fail("the call waits for an approval, not for a result")
	}
	var l codeLedger
	if err := json.Unmarshal([]byte(c.Token), &l); err != nil || l.Pending <= 0 {
		return nil, fail("malformed continuation")
	}
	return &codeResume{interrupt: ci, ledger: l}, nil
}

// programRun records and replays the tool calls of a program run in
// interrupt mode, and pauses it at the first call that needs approval.
type programRun struct {
	mu sync.Mutex
	// replay holds the calls answered from a continuation, by sequence.
	replay map[int]ledgerCall
	// resume is set when the run resumes a paused program.
	resume *codeResume
	ledger codeLedger
	// paused is the call the run paused at, once it did.
	paused   *ledgerCall
	inFlight int
	cancel   context.CancelFunc
	// recorded counts the bytes the ledger holds; past
	// maxContinuationBytes the run records nothing more and cannot pause.
	recorded int
	overflow bool
}

func newProgramRun(res *codeResume, now time.Time) *programRun {
	p := &programRun{resume: res}
	if res != nil {
		p.ledger = codeLedger{Seed: res.ledger.Seed, Time: res.ledger.Time, Calls: slices.Clone(res.ledger.Calls)}
		p.replay = make(map[int]ledgerCall, len(res.ledger.Calls))
		for _, c := range res.ledger.Calls {
			p.replay[c.Seq] = c
			p.recorded += len(c.Name) + len(c.Input) + len(c.Output) + 64
		}
		return p
	}
	var seed [8]byte
	_, _ = rand.Read(seed[:])
	s := binary.LittleEndian.Uint64(seed[:]) | 1
	p.ledger = codeLedger{Seed: strconv.FormatUint(s, 10), Time: now.UnixMilli()}
	return p
}

// seed and clock return the values the run replays.
func (p *programRun) seed() uint64 {
	s, _ := strconv.ParseUint(p.ledger.Seed, 10, 64)
	return max(s, 1)
}

func (p *programRun) clock() time.Time { return time.UnixMilli(p.ledger.Time) }

// errPaused is what the program sees for calls after it paused; it is
// stopped before it can act on it.
var errPaused = &CodeModeError{Code: CodeModeAborted, Name: "CodeModeAbortedError", Message: "The program paused for approval."}

// needsApproval is what a routed call returns in interrupt mode when it
// needs approval that nobody gave yet.
type needsApproval struct {
	input json.RawMessage
}

func (*needsApproval) Error() string { return "the call needs approval" }

// call runs one tool call of the program: answered from the continuation
// when it completed before, paused when it needs approval, else run by
// invoke and recorded. approved tells invoke that a person approved the
// call while the program was paused.
func (p *programRun) call(ctx context.Context, call CodeToolCall, invoke func(ctx context.Context, approved bool) (json.RawMessage, error)) (json.RawMessage, error) {
	p.mu.Lock()
	if rec, ok := p.replay[call.Seq]; ok {
		p.mu.Unlock()
		if rec.Name != call.Name || !canonjson.Equal(rec.Input, call.Input) {
			return nil, divergence(call, rec.Name)
		}
		return rec.outcome()
	}
	if p.paused != nil {
		p.mu.Unlock()
		return nil, errPaused
	}
	approved := false
	pc := &programCallState{}
	if r := p.resume; r != nil && call.Seq == r.ledger.Pending {
		pi := r.interrupt
		if call.Name != pi.ToolName || !canonjson.Equal(call.Input, pi.Input) {
			p.mu.Unlock()
			return nil, divergence(call, pi.ToolName)
		}
		if payloadKind(pi.Payload) != codeModeInterruptKind {
			// The tool asked for input: it runs again and gets the answer.
			pc.resolution = r.resolution
		} else if !r.approved {
			denial := deniedError(call.Name, r.reason)
			p.record(call, nil, denial)
			p.mu.Unlock()
			return nil, denial
		}
		approved = true
	}
	p.inFlight++
	p.mu.Unlock()

	out, err := invoke(context.WithValue(ctx, programCallKey{}, pc), approved)

	p.mu.Lock()
	defer p.mu.Unlock()
	p.inFlight--
	var na *needsApproval
	var ask *inputRequest
	switch {
	case errors.As(err, &na):
		if p.paused == nil {
			p.paused = &ledgerCall{Seq: call.Seq, Name: call.Name, Input: na.input,
				payload: json.RawMessage(`{"kind":"` + codeModeInterruptKind + `"}`)}
		}
		p.stopWhenIdle()
		return nil, errPaused
	case errors.As(err, &ask):
		if p.paused == nil {
			p.paused = &ledgerCall{Seq: call.Seq, Name: call.Name, Input: call.Input, payload: ask.payload}
		}
		p.stopWhenIdle()
		return nil, errPaused
	}
	p.record(call, out, err)
	p.stopWhenIdle()
	return out, err
}

// record adds a completed call to the ledger.
func (p *programRun) record(call CodeToolCall, out json.RawMessage, err error) {
	lc := ledgerCall{Seq: call.Seq, Name: call.Name, Input: call.Input}
	var ce *CodeModeError
	switch {
	case err == nil:
		lc.Output = out
		if lc.Output == nil {
			lc.Output = json.RawMessage("null")
		}
	case errors.As(err, &ce):
		lc.Error = &ledgerError{Code: ce.Code, Name: ce.Name, Message: ce.Message, Details: ce.Details}
	default:
		lc.Error = &ledgerError{Host: true}
	}
	if p.overflow {
		return
	}
	p.recorded += len(lc.Name) + len(lc.Input) + len(lc.Output) + 64
	if lc.Error != nil {
		p.recorded += len(lc.Error.Message)
	}
	if p.recorded > maxContinuationBytes {
		// What the program did no longer fits a continuation: keep memory
		// bounded; a pause now fails the run.
		p.overflow, p.ledger.Calls = true, nil
		return
	}
	p.ledger.Calls = append(p.ledger.Calls, lc)
}

// stopWhenIdle ends a paused run once no call it made is running, so that
// every call that started is recorded.
func (p *programRun) stopWhenIdle() {
	if p.paused != nil && p.inFlight == 0 && p.cancel != nil {
		p.cancel()
	}
}

func divergence(call CodeToolCall, recorded string) error {
	return &CodeModeError{Code: CodeModeProtocolError, Name: "CodeModeProtocolError",
		Message: fmt.Sprintf("The resumed program made a different tool call than when it paused: call %d is %q, it was %q. Programs must not depend on the order in which concurrent tool calls finish.", call.Seq, call.Name, recorded)}
}

func deniedError(name, reason string) *CodeModeError {
	msg := fmt.Sprintf("Tool %q approval was denied.", name)
	if reason != "" {
		msg = fmt.Sprintf("Tool %q approval was denied: %s", name, reason)
	}
	return &CodeModeError{Code: CodeModeToolApprovalDenied, Name: codeModeToolApprovalDeniedName, Message: msg,
		Details: map[string]any{"toolName": name}}
}

// codePaused ends a code tool's execution when its program paused for
// approval; the engine turns it into the paused call and its approval
// request.
type codePaused struct {
	interrupt codeInterrupt
	raw       json.RawMessage
}

// pausedBy returns the pause err reports, if it does.
func pausedBy(err error) *codePaused {
	var p *codePaused
	if errors.As(err, &p) {
		return p
	}
	return nil
}

func (e *codePaused) Error() string {
	return fmt.Sprintf("the program paused: tool %q needs approval", e.interrupt.ToolName)
}

// pause builds the signed continuation of a paused run.
func (p *programRun) pause(js, outer string, callees Callees, secret []byte, maxAge time.Duration, now time.Time) (*codePaused, error) {
	pc := p.paused
	if p.overflow {
		return nil, &CodeModeError{Code: CodeModeErrorCode, Name: "CodeModeError",
			Message: fmt.Sprintf("The program paused, but the results of its calls so far take more than the %d bytes a continuation may hold.", maxContinuationBytes)}
	}
	p.ledger.Pending = pc.Seq
	slices.SortFunc(p.ledger.Calls, func(a, b ledgerCall) int { return a.Seq - b.Seq })
	token, err := json.Marshal(p.ledger)
	if err != nil {
		return nil, err
	}
	if len(token) > maxContinuationBytes {
		return nil, &CodeModeError{Code: CodeModeErrorCode, Name: "CodeModeError",
			Message: fmt.Sprintf("The program paused for approval, but what it did so far takes %d bytes, more than the %d a continuation may hold.", len(token), maxContinuationBytes)}
	}
	id := outer + ":tool-" + strconv.Itoa(pc.Seq)
	pending := pendingInterruption{RunInterruptionID: "interrupt-" + strconv.Itoa(pc.Seq), InterruptID: id + ":interrupt",
		ToolName: pc.Name, ToolCallID: id, Input: pc.Input, Payload: pc.payload}
	names := callees.Tools().Names()
	slices.Sort(names)
	c := codeContinuation{Version: 2, JS: js, OuterToolCallID: outer, ToolNames: names, Token: string(token),
		PendingInterruptions: []pendingInterruption{pending}, Resolutions: []json.RawMessage{}}
	if maxAge <= 0 {
		maxAge = defaultContinuationMaxAge
	}
	if err := signContinuation(&c, secret, now, maxAge); err != nil {
		return nil, err
	}
	ci := codeInterrupt{Type: "code-mode-interrupt", InterruptID: pending.InterruptID, ToolName: pc.Name, ToolCallID: id,
		OuterToolCallID: outer, Input: pc.Input, Payload: pending.Payload, Continuation: c}
	raw, err := json.Marshal(ci)
	if err != nil {
		return nil, err
	}
	return &codePaused{interrupt: ci, raw: raw}, nil
}

// pausedProgram is the outcome of a code call whose program paused: the
// call's output (the interrupt object), the program's paused call and its
// approval request. It never leaves the engine: expandOutcome turns it
// into those three parts.
type pausedProgram struct {
	result ToolResult
	call   ToolCall
	// request is nil when the call asks for input rather than approval.
	request *ToolApprovalRequest
}

func (pausedProgram) ContentType() string { return "tool-result" }
func (pausedProgram) PartType() string    { return "tool-result" }
func (pausedProgram) isContentPart()      {}

// pausedOutcome turns a paused program into the outcome of its code call.
func (r *run) pausedOutcome(outer *ToolCall, cp *codePaused) pausedProgram {
	ci := cp.interrupt
	call := ToolCall{ToolCallID: ci.ToolCallID, ToolName: ci.ToolName, Input: ci.Input,
		ProviderMetadata: ProviderMetadata{metadataKey: {callerField: ci.OuterToolCallID}}}
	if t, ok := r.idx.get(ci.ToolName); ok {
		c := t.core()
		call.Title, call.ToolMetadata, call.Dynamic = c.title, c.metadata, t.Kind() == DynamicKind
	}
	res := ToolResult{ToolCallID: outer.ToolCallID, ToolName: outer.ToolName, Input: outer.Input, Output: cp.raw,
		Dynamic: outer.Dynamic, ToolMetadata: outer.ToolMetadata, ProviderMetadata: outer.ProviderMetadata, outputJSON: cp.raw}
	pp := pausedProgram{result: res, call: call}
	if payloadKind(ci.Payload) == codeModeInterruptKind {
		pp.request = &ToolApprovalRequest{ApprovalID: ci.InterruptID, ToolCall: call, Signature: r.signApproval(ci.InterruptID, call)}
	}
	return pp
}

// expandOutcome returns the parts an execution outcome adds to a step: a
// paused program adds its code call's output, its paused call and the
// approval request.
func expandOutcome(p ContentPart) []ContentPart {
	if pp, ok := p.(pausedProgram); ok {
		if pp.request == nil {
			return []ContentPart{pp.result, pp.call}
		}
		return []ContentPart{pp.result, pp.call, *pp.request}
	}
	return []ContentPart{p}
}

// resumeProgram checks the answer to a paused program's call and returns
// the state of its code call, ready to run again; nil when the program went
// on before (its code call has a result). Nothing runs here.
func (r *run) resumeProgram(s *step, a pendingApproval, calls map[string]ToolCallPart) (*callState, error) {
	fail := func(reason string) error {
		return &InvalidCodeModeContinuationError{ToolCallID: a.call.ToolCallID, Reason: reason}
	}
	if a.approved {
		if err := r.checkApprovalSignature(a); err != nil {
			return nil, err
		}
	}
	outerID, _ := programCallOf(a.call.ProviderOptions)
	outer, ok := calls[outerID]
	if !ok {
		return nil, fail("its code mode call is not in the conversation")
	}
	paused, settled := r.pausedOutputs(outerID)
	if settled {
		// The program went on before.
		return nil, nil
	}
	if len(paused) == 0 {
		return nil, fail("the conversation holds no paused output of its code mode call")
	}
	e, ok := s.tools.execTool(outer.ToolName)
	var def *callerDef
	if t, known := r.idx.get(outer.ToolName); ok && known {
		def = t.core().caller
	}
	if def == nil || def.secrets == nil {
		return nil, fail(fmt.Sprintf("tool %q is not a code mode tool", outer.ToolName))
	}
	// The latest paused output is the one the answer is for.
	res, err := readContinuation(paused[len(paused)-1], a.call, a.approvalID, def.secrets(r.opts.ToolApprovalSecrets), r.eff.Now())
	if err == nil && a.resolution == nil && a.approvalID == "" {
		err = fail("no answer")
	}
	if err != nil {
		return nil, err
	}
	c := &res.interrupt.Continuation
	var in codeInput
	if json.Unmarshal(outer.Input, &in) != nil || in.JS != c.JS || c.OuterToolCallID != outer.ToolCallID {
		return nil, fail("the continuation belongs to another program")
	}
	routed := s.tools.callees[outer.ToolName].Names()
	for _, n := range c.ToolNames {
		if !slices.Contains(routed, n) {
			return nil, fail(fmt.Sprintf("tool %q is no longer callable from programs", n))
		}
	}
	call, err := r.parseOnce(s, provider.ToolCall{ToolCallID: outer.ToolCallID, ToolName: outer.ToolName, Input: string(outer.Input)})
	if err != nil {
		return nil, fail("its code mode call is invalid: " + err.Error())
	}
	res.approved, res.reason, res.resolution = a.approved, a.reason, a.resolution
	call.resume = res
	return &callState{call: call, entry: e}, nil
}

// pausedOutputs returns the paused outputs of a code call in the
// conversation, oldest first, and whether it also has a final result.
func (r *run) pausedOutputs(id string) (paused []json.RawMessage, settled bool) {
	for _, m := range r.messages {
		t, ok := m.(ToolMessage)
		if !ok {
			continue
		}
		for _, p := range t.Content {
			tr, ok := p.(ToolResultPart)
			if !ok || tr.ToolCallID != id {
				continue
			}
			if raw, ok := pausedOutput(tr.Output); ok {
				paused = append(paused, raw)
			} else {
				settled = true
			}
		}
	}
	return paused, settled
}

// pausedStep records the step that reports a resumed program that paused
// again: the paused call and its request (the code call's new paused output
// is in the resumption's tool message). No model was called: its usage is
// zero.
func (r *run) pausedStep(s *step, parts []ContentPart) error {
	m := r.opts.Model
	st := &StepResult{StepNumber: len(r.steps), Content: parts, FinishReason: FinishToolCalls, ToolsContext: r.toolsContext}
	if m != nil {
		st.Provider, st.ModelID = m.Provider(), m.ModelID()
	}
	st.Response = ResponseInfo{ID: r.newID(), Timestamp: r.now(), ModelID: st.ModelID}
	msgs, err := r.responseMessagesFor(nil, s, nil, parts)
	if err != nil {
		return err
	}
	st.Response.Messages = r.addMessages(slices.Clip(r.messages), msgs)
	r.steps = append(r.steps, st)
	r.paused = true
	if f := r.opts.OnStepEnd; f != nil {
		callback("OnStepEnd", func() { f(st) })
	}
	return nil
}

// programCallKey keys the state of a program's tool call in its context.
type programCallKey struct{}

// programCallState is what a tool called by a pausable program may use.
type programCallState struct {
	// resolution is the person's answer when the call resumes a pause it
	// asked for.
	resolution json.RawMessage
}

// inputRequest is the error [RequestProgramInput] returns to pause a
// program.
type inputRequest struct {
	payload json.RawMessage
}

func (e *inputRequest) Error() string {
	return "the tool asked for input (" + payloadKind(e.payload) + "): return this error to pause the program"
}

// ErrNotInProgram is returned by [RequestProgramInput] outside a tool call
// of a program that can pause.
var ErrNotInProgram = errors.New("ai: RequestProgramInput works only in tool calls of code mode programs that pause (CodeModeApprovalInterrupt)")

// RequestProgramInput lets a tool that code mode programs call ask a person
// for input, pausing the program as an approval does (the code tool must
// use [CodeModeApprovalInterrupt]). kind names what is asked (it must not
// be empty, nor the approval kind "ai-sdk-code-mode/tool-approval");
// details, when not nil, are added to the request's payload as JSON fields.
//
// The first time, it returns an error: return it from the tool. The program
// pauses, the step reports the tool's call (marked as the program's, see
// [ProgramCallOf]) and the generation stops; the code call's output holds
// the request (payload {"kind": kind, ...details}). The person's answer
// comes back as that call's tool result in the conversation (a chat
// client's addToolOutput); the program then runs again, its completed
// calls answered from the continuation, the tool runs again, and this time
// RequestProgramInput returns the answer as JSON.
func RequestProgramInput(ctx context.Context, kind string, details map[string]any) (json.RawMessage, error) {
	pc, ok := ctx.Value(programCallKey{}).(*programCallState)
	if !ok {
		return nil, ErrNotInProgram
	}
	if pc.resolution != nil {
		return pc.resolution, nil
	}
	if kind == "" || kind == codeModeInterruptKind {
		return nil, &InvalidArgumentError{Parameter: "kind", Message: "a program input request needs a kind of its own"}
	}
	fields := map[string]any{}
	for k, v := range details {
		fields[k] = v
	}
	fields["kind"] = kind
	payload, err := json.Marshal(fields)
	if err != nil {
		return nil, &InvalidArgumentError{Parameter: "details", Message: err.Error()}
	}
	return nil, &inputRequest{payload: payload}
}

// ProgramCallOf reports whether a tool call (its provider metadata) was
// made by a paused code mode program, and returns the id of the code call
// whose program made it. A chat page can show such calls as part of the
// program.
func ProgramCallOf(md ProviderMetadata) (codeCallID string, ok bool) {
	return programCallOf(ProviderOptions(md))
}

// inputAnswer returns a person's answer to a program's request for input,
// given as the call's tool result, as JSON.
func inputAnswer(out ToolResultOutput) (json.RawMessage, bool) {
	switch o := out.(type) {
	case JSONOutput:
		if !json.Valid(o.Value) {
			return nil, false
		}
		return o.Value, true
	case TextOutput:
		raw, err := json.Marshal(o.Value)
		return raw, err == nil
	}
	return nil, false
}
