package aitemporal

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/temporal"

	"github.com/aisdkgo/ai"
	"github.com/aisdkgo/ai/internal/effect"
	"github.com/aisdkgo/ai/provider"
)

// generate is the model activity: one attempt of one model call.
func (rt *runtime) generate(ctx context.Context, in generateInput) (generateOutput, error) {
	m, ok := rt.cfg.Models[in.Model]
	if !ok {
		return generateOutput{}, temporal.NewNonRetryableApplicationError(fmt.Sprintf("aitemporal: no model %q is registered on this worker", in.Model), "UnknownModel", nil)
	}
	opts := in.Options
	if opts == nil {
		opts = &provider.CallOptions{}
	}
	if rt.cfg.Store != nil {
		if err := rt.resolveStored(ctx, opts.Prompt); err != nil {
			return generateOutput{}, err
		}
	}
	defer heartbeat(ctx)()
	var res *provider.GenerateResult
	var err error
	if in.Stream != nil && rt.cfg.Stream != nil {
		res, err = rt.streamModel(ctx, m, opts, in.Stream)
	} else {
		res, err = callModel(ctx, m, opts)
	}
	if err != nil {
		return generateOutput{}, modelError(ctx, err)
	}
	return generateOutput{Result: res}, nil
}

func callModel(ctx context.Context, m provider.LanguageModel, opts *provider.CallOptions) (res *provider.GenerateResult, err error) {
	defer func() {
		if v := recover(); v != nil {
			res, err = nil, &ai.CallbackPanicError{Callback: "the model's Generate", Panic: v}
		}
	}()
	res, err = m.Generate(ctx, opts)
	if err == nil && res == nil {
		err = &provider.InvalidResponseDataError{Message: "the model returned no result"}
	}
	return res, err
}

// modelError says whether Temporal retries a failed model call: like a
// local generation, only provider errors marked retryable are retried.
func modelError(ctx context.Context, err error) error {
	if ctx.Err() != nil {
		return err
	}
	var api *provider.APICallError
	if errors.As(err, &api) {
		return temporal.NewApplicationErrorWithOptions(err.Error(), "APICallError", temporal.ApplicationErrorOptions{
			NonRetryable: !api.Retryable, Cause: err,
		})
	}
	return temporal.NewNonRetryableApplicationError(err.Error(), fmt.Sprintf("%T", err), err)
}

// resolveStored replaces the stored outputs in a prompt's tool results with
// the outputs themselves.
func (rt *runtime) resolveStored(ctx context.Context, prompt []provider.Message) error {
	for _, msg := range prompt {
		tm, ok := msg.(provider.ToolMessage)
		if !ok {
			continue
		}
		for i, p := range tm.Content {
			tr, ok := p.(provider.ToolResultPart)
			if !ok {
				continue
			}
			jo, ok := tr.Output.(provider.JSONOutput)
			if !ok {
				continue
			}
			var so StoredOutput
			if json.Unmarshal(jo.Value, &so) != nil {
				continue
			}
			data, err := rt.cfg.Store.Get(ctx, so.Key)
			if err != nil {
				return fmt.Errorf("aitemporal: reading stored output %q: %w", so.Key, err)
			}
			var s string
			if len(data) > 0 && data[0] == '"' && json.Unmarshal(data, &s) == nil {
				tr.Output = provider.TextOutput{Value: s, ProviderOptions: jo.ProviderOptions}
			} else {
				tr.Output = provider.JSONOutput{Value: data, ProviderOptions: jo.ProviderOptions}
			}
			// The prompt was decoded for this attempt alone: it is safe
			// to change in place.
			tm.Content[i] = tr
		}
	}
	return nil
}

// executeTool is the tool activity: one attempt of one tool call, run with
// the activity's context (a tool may record its own heartbeats with
// activity.RecordHeartbeat).
func (rt *runtime) executeTool(ctx context.Context, in toolInput) (toolOutput, error) {
	agent, ok := rt.cfg.Agents[in.Agent]
	if !ok {
		return toolOutput{}, temporal.NewNonRetryableApplicationError(fmt.Sprintf("aitemporal: no agent %q is registered on this worker", in.Agent), "UnknownAgent", nil)
	}
	tool, ok := agent.Options.Tools.Get(in.ToolName)
	if !ok {
		return toolOutput{}, temporal.NewNonRetryableApplicationError(fmt.Sprintf("aitemporal: agent %q has no tool %q on this worker", in.Agent, in.ToolName), "UnknownTool", nil)
	}
	info := activity.GetInfo(ctx)
	ctx = context.WithValue(ctx, idempotencyKey{}, idempotencyKeyOf(info.WorkflowExecution.ID, info.WorkflowExecution.RunID, in.ToolCallID))
	stop := heartbeat(ctx)
	out, err := effect.RunTool(ctx, tool, effect.Call{ToolName: in.ToolName, ToolCallID: in.ToolCallID, Input: in.Input, Step: in.Step})
	stop()
	if err != nil {
		return toolOutput{}, toolActivityError(ctx, err)
	}
	if len(out) <= rt.maxBytes {
		return toolOutput{Output: out}, nil
	}
	if rt.cfg.Store == nil {
		return toolOutput{}, temporal.NewNonRetryableApplicationError(fmt.Sprintf(
			"the output of tool %q is %d bytes, more than the %d a durable run records; configure an output store", in.ToolName, len(out), rt.maxBytes), "OutputTooLarge", nil)
	}
	key, err := rt.cfg.Store.Put(ctx, StoredCall{WorkflowID: info.WorkflowExecution.ID, RunID: info.WorkflowExecution.RunID,
		ToolName: in.ToolName, ToolCallID: in.ToolCallID}, out)
	if err != nil {
		return toolOutput{}, fmt.Errorf("aitemporal: storing the output of tool %q: %w", in.ToolName, err)
	}
	return toolOutput{Stored: &StoredOutput{Key: key, Size: len(out)}}, nil
}

type idempotencyKey struct{}

func idempotencyKeyOf(workflowID, runID, toolCallID string) string {
	return workflowID + "/" + runID + "/" + toolCallID
}

// IdempotencyKey returns the idempotency key of the tool call a tool's
// Execute runs for, from its context, and whether there is one (there is
// in the tool activity of a durable run). The key is the same on every
// attempt of one call and differs between calls and between runs.
//
// Activities run at least once: a worker that crashes after a tool's side
// effect but before its completion reached the server makes Temporal run
// the call again on another worker. A tool with a side effect that must
// not happen twice (a payment, an email) passes the key to the system it
// changes, so that the second attempt is recognised there: as an
// Idempotency-Key header, a unique column, a conditional write.
func IdempotencyKey(ctx context.Context) (string, bool) {
	k, ok := ctx.Value(idempotencyKey{}).(string)
	return k, ok
}

// toolActivityError says whether Temporal retries a failed tool call. A
// tool's own errors are retried by the activity's retry policy, unless the
// tool returns a non-retryable *temporal.ApplicationError (see
// [NonRetryable]); a call whose input does not decode, whose output cannot
// be encoded or whose tool panicked fails at once.
func toolActivityError(ctx context.Context, err error) error {
	var app *temporal.ApplicationError
	if errors.As(err, &app) || ctx.Err() != nil {
		return err
	}
	var (
		input  *ai.InvalidToolInputError
		output *ai.ToolOutputError
		exec   *ai.ToolExecutionError
	)
	if errors.As(err, &input) || errors.As(err, &output) || errors.As(err, &exec) && exec.Panic != nil {
		return temporal.NewNonRetryableApplicationError(err.Error(), fmt.Sprintf("%T", err), err)
	}
	return err
}

// NonRetryable marks a tool's error as final: the tool activity is not
// retried and the model is told err's message at once. A tool may also
// return a *temporal.ApplicationError of its own.
func NonRetryable(err error) error {
	if err == nil {
		return nil
	}
	return temporal.NewNonRetryableApplicationError(err.Error(), fmt.Sprintf("%T", err), err)
}

// heartbeat records heartbeats while an activity runs, when the activity
// has a heartbeat timeout: a crashed worker's call is then retried after
// that timeout, and a cancellation of the run reaches the call. It returns
// the function that stops it.
func heartbeat(ctx context.Context) func() {
	timeout := activity.GetInfo(ctx).HeartbeatTimeout
	if timeout <= 0 {
		return func() {}
	}
	every := max(timeout/3, 10*time.Millisecond)
	done := make(chan struct{})
	stopped := make(chan struct{})
	go func() {
		defer close(stopped)
		t := time.NewTicker(every)
		defer t.Stop()
		for {
			activity.RecordHeartbeat(ctx)
			select {
			case <-done:
				return
			case <-ctx.Done():
				return
			case <-t.C:
			}
		}
	}()
	return func() {
		close(done)
		<-stopped
	}
}
