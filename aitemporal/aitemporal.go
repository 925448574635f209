package aitemporal

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"time"

	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"

	"github.com/aisdkgo/ai"
	"github.com/aisdkgo/ai/provider"
)

// The names this package registers on a worker and that clients use.
const (
	// WorkflowName is the name of the workflow that runs an agent.
	WorkflowName = "aitemporal.Run"
	// GenerateActivity is the name of the activity that makes one model
	// call.
	GenerateActivity = "aitemporal.Generate"
	// ToolActivity is the name of the activity that executes one tool call.
	ToolActivity = "aitemporal.ExecuteTool"
	// ProgramActivity is the name of the activity that runs a code mode
	// program once, its completed tool calls answered from the workflow's
	// record.
	ProgramActivity = "aitemporal.RunProgram"
	// ApprovalSignal is the signal that answers an approval request; its
	// payload is an [Approval].
	ApprovalSignal = "aitemporal.approval"
	// ProgressQuery is the query that returns a run's [Progress].
	ProgressQuery = "aitemporal.progress"
)

// DefaultMaxOutputBytes is the size above which a tool output is put into
// [Config.Store] instead of the workflow history, unless
// [Config.MaxOutputBytes] says otherwise.
const DefaultMaxOutputBytes = 256 << 10

// Config is what the workers of a task queue run: the models they call and
// the agents they run, by name. Every worker of the task queue must be
// registered with the same models, agents and tools: the workflow code
// replays on any of them.
type Config struct {
	// Models are the models the agents call, by name. An activity input
	// names the model; the worker that runs the activity calls the model
	// registered under that name.
	Models map[string]provider.LanguageModel
	// Agents are the agents a run may ask for, by name.
	Agents map[string]*Agent
	// Store, when set, keeps tool outputs larger than MaxOutputBytes out of
	// the workflow history; see [OutputStore].
	Store OutputStore
	// MaxOutputBytes bounds the JSON of one tool output in the history
	// (0 means [DefaultMaxOutputBytes]). A larger output goes to Store;
	// without a Store, the call fails with a tool error the model sees.
	MaxOutputBytes int
	// Stream, when set, publishes the runs that ask for it
	// ([Input.Stream]) as UI message streams; see [Streaming].
	Stream *Streaming
}

// Agent is an agent a durable run can ask for by name.
type Agent struct {
	// Options configure every generation of the agent as they configure
	// [ai.GenerateText]: Model (which must be one of [Config.Models]),
	// Instructions, Tools, ToolSearch and deferred tools, StopWhen,
	// ToolApproval, sampling settings. Prompt and Messages come from each
	// run's [Input] and must be empty here.
	//
	// Functions among the options (StopWhen, PrepareStep, ToolApproval
	// rules, NeedsApproval, RepairToolCall, description functions, the
	// callbacks) run in workflow code: they must be deterministic and must
	// not do I/O, and they run again when a workflow replays. A tool's
	// Execute runs in an activity, where anything goes.
	//
	// Timeout.Total becomes a workflow timer that ends the run with an
	// *ai.TimeoutError; Timeout.Tool and Timeout.Tools become the
	// StartToCloseTimeout of the tool activity (unless ToolActivity or
	// ToolActivities sets one). Timeout.Step has no durable counterpart
	// and is rejected, as is GenerateID (the workflow makes its own
	// deterministic ids).
	//
	// ToolCallers (code mode) work durably: the code tool's programs run
	// in the program activity and each of their tool calls is a tool
	// activity, recorded in the history (see the package documentation,
	// "Code mode"). The code tool's entry in ToolActivities (or
	// ToolActivity) gives the options of its program activity.
	Options ai.GenerateTextOptions
	// ModelActivity are the options of the model activity. Zero fields get
	// defaults: a StartToCloseTimeout of ten minutes, a HeartbeatTimeout of
	// [DefaultHeartbeatTimeout] (the worker heartbeats while the model
	// answers, so that a call handed to a worker that died is retried within
	// seconds) and a retry policy of MaxRetries+1 attempts with exponential
	// backoff from two seconds. Only provider errors marked retryable, and
	// lost workers, are retried.
	ModelActivity workflow.ActivityOptions
	// ToolActivity are the options of the tool activity. Zero fields get
	// defaults: a StartToCloseTimeout of ten minutes, a HeartbeatTimeout of
	// [DefaultHeartbeatTimeout] (the worker heartbeats while a tool runs,
	// so that a crashed worker's call is retried soon) and three attempts
	// with exponential backoff from one second.
	ToolActivity workflow.ActivityOptions
	// ToolActivities override ToolActivity for single tools, by name; zero
	// fields of an entry are taken from ToolActivity.
	ToolActivities map[string]workflow.ActivityOptions
	// ContinueAsNewAfter bounds the history of one workflow run: a long
	// run continues as a new run (Temporal's continue-as-new) at the end
	// of a step, when a bound is reached or the server suggests it. The
	// new run takes over the conversation, the steps, the usage and the
	// discovered tools, so the result is the same; StopWhen then sees the
	// earlier runs' steps as empty placeholders (their count is right, so
	// StepCountIs holds, but their content is gone).
	ContinueAsNewAfter ContinueAsNew
}

// ContinueAsNew bounds one workflow run of an agent; zero fields mean no
// bound of that kind.
type ContinueAsNew struct {
	// Steps is the number of steps one run takes at most.
	Steps int
	// HistoryEvents is the length of the workflow history past which the
	// run continues as new at the end of the current step.
	HistoryEvents int
}

// OutputStore keeps large tool outputs outside the workflow history.
// Temporal bounds each payload (2 MB by default) and the whole history
// (50 MB), and every model call's input holds the conversation so far, so a
// large tool output would be recorded once per later step.
//
// The tool activity puts an output larger than [Config.MaxOutputBytes]
// into the store and records only a [StoredOutput]; the model activity
// reads it back before it calls the model, so the model sees the full
// output. The generation itself sees the StoredOutput value as the tool's
// output: a tool whose outputs may be stored should not depend on
// ToModelOutput, which then receives the zero value of the output type.
type OutputStore interface {
	// Put stores an output (JSON) and returns its key.
	Put(ctx context.Context, call StoredCall, output json.RawMessage) (key string, err error)
	// Get returns the output stored under key.
	Get(ctx context.Context, key string) (json.RawMessage, error)
}

// StoredCall identifies the call whose output is stored.
type StoredCall struct {
	WorkflowID string
	RunID      string
	ToolName   string
	ToolCallID string
}

// StoredOutput stands for a tool output kept in an [OutputStore].
type StoredOutput struct {
	Key  string `json:"key"`
	Size int    `json:"size"`
}

// MarshalJSON writes {"aitemporalStoredOutput":{"key":...,"size":...}}, the
// form in which a stored output appears in the conversation.
func (s StoredOutput) MarshalJSON() ([]byte, error) {
	type plain StoredOutput
	return json.Marshal(struct {
		Stored plain `json:"aitemporalStoredOutput"`
	}{plain(s)})
}

// UnmarshalJSON reads what MarshalJSON writes.
func (s *StoredOutput) UnmarshalJSON(data []byte) error {
	type plain StoredOutput
	var v struct {
		Stored *plain `json:"aitemporalStoredOutput"`
	}
	if err := json.Unmarshal(data, &v); err != nil {
		return err
	}
	if v.Stored == nil {
		return errors.New("not a stored output")
	}
	*s = StoredOutput(*v.Stored)
	return nil
}

// Register registers the workflow and the activities that run cfg's agents
// on w. It checks the configuration and returns an error describing the
// first problem; nothing is registered then.
func Register(w worker.Registry, cfg *Config) error {
	rt, err := newRuntime(cfg)
	if err != nil {
		return err
	}
	w.RegisterWorkflowWithOptions(rt.run, workflow.RegisterOptions{Name: WorkflowName})
	w.RegisterActivityWithOptions(rt.generate, activity.RegisterOptions{Name: GenerateActivity})
	w.RegisterActivityWithOptions(rt.executeTool, activity.RegisterOptions{Name: ToolActivity})
	w.RegisterActivityWithOptions(rt.runProgram, activity.RegisterOptions{Name: ProgramActivity})
	if cfg.Stream != nil {
		w.RegisterActivityWithOptions(rt.publish, activity.RegisterOptions{Name: PublishActivity})
	}
	return nil
}

// RegisterWorkflow registers only the workflow, for a
// worker.WorkflowReplayer that checks recorded histories against the
// current code.
func RegisterWorkflow(w worker.WorkflowRegistry, cfg *Config) error {
	rt, err := newRuntime(cfg)
	if err != nil {
		return err
	}
	w.RegisterWorkflowWithOptions(rt.run, workflow.RegisterOptions{Name: WorkflowName})
	return nil
}

// runtime is a checked Config.
type runtime struct {
	cfg      Config
	models   []namedModel // sorted by name
	maxBytes int
}

type namedModel struct {
	name  string
	model provider.LanguageModel
}

func newRuntime(cfg *Config) (*runtime, error) {
	if cfg == nil {
		return nil, errors.New("aitemporal: nil config")
	}
	rt := &runtime{cfg: *cfg, maxBytes: cmp.Or(cfg.MaxOutputBytes, DefaultMaxOutputBytes)}
	if cfg.MaxOutputBytes < 0 {
		return nil, errors.New("aitemporal: MaxOutputBytes must not be negative")
	}
	if cfg.Stream != nil && cfg.Stream.Store == nil {
		return nil, errors.New("aitemporal: Stream.Store is required")
	}
	for name, m := range cfg.Models {
		if m == nil {
			return nil, fmt.Errorf("aitemporal: model %q is nil", name)
		}
		if !reflect.TypeOf(m).Comparable() {
			return nil, fmt.Errorf("aitemporal: model %q is a %T, which cannot be compared; register a pointer", name, m)
		}
		rt.models = append(rt.models, namedModel{name, m})
	}
	slices.SortFunc(rt.models, func(a, b namedModel) int { return cmp.Compare(a.name, b.name) })
	for name, a := range cfg.Agents {
		if err := rt.checkAgent(a); err != nil {
			return nil, fmt.Errorf("aitemporal: agent %q: %w", name, err)
		}
	}
	return rt, nil
}

func (rt *runtime) checkAgent(a *Agent) error {
	if a == nil {
		return errors.New("nil agent")
	}
	o := &a.Options
	switch {
	case o.Model == nil:
		return errors.New("Options.Model is required")
	case o.Prompt != "" || o.Messages != nil:
		return errors.New("Options.Prompt and Options.Messages must be empty: each run's Input carries them")
	case o.Timeout.Step != 0:
		return errors.New("Options.Timeout.Step has no durable counterpart: bound model calls with ModelActivity and tools with Timeout.Tool or ToolActivity")
	case o.GenerateID != nil:
		return errors.New("Options.GenerateID must be nil: durable runs make deterministic ids")
	}
	if _, ok := rt.modelName(o.Model); !ok {
		return fmt.Errorf("its model (%s %s) is not one of Config.Models", o.Model.Provider(), o.Model.ModelID())
	}
	for _, r := range o.ToolCallers {
		for _, name := range append([]string{r.Tool}, r.Callers...) {
			if _, ok := o.Tools.Get(name); !ok && name != ai.DirectCall {
				return fmt.Errorf("ToolCallers names %q, which is not one of its tools", name)
			}
		}
	}
	for name := range a.ToolActivities {
		if _, ok := o.Tools.Get(name); !ok {
			return fmt.Errorf("ToolActivities names %q, which is not one of its tools", name)
		}
	}
	return nil
}

// modelName returns the name a model is registered under.
func (rt *runtime) modelName(m provider.LanguageModel) (string, bool) {
	if m == nil || !reflect.TypeOf(m).Comparable() {
		return "", false
	}
	for _, nm := range rt.models {
		if reflect.TypeOf(nm.model) == reflect.TypeOf(m) && nm.model == m {
			return nm.name, true
		}
	}
	return "", false
}

// modelOptions returns the options of the model activity.
func (a *Agent) modelOptions(maxRetries int) workflow.ActivityOptions {
	o := a.ModelActivity
	if o.StartToCloseTimeout == 0 && o.ScheduleToCloseTimeout == 0 {
		o.StartToCloseTimeout = 10 * time.Minute
	}
	if o.HeartbeatTimeout == 0 {
		o.HeartbeatTimeout = DefaultHeartbeatTimeout
	}
	if o.RetryPolicy == nil {
		o.RetryPolicy = &temporal.RetryPolicy{InitialInterval: 2 * time.Second, BackoffCoefficient: 2, MaximumAttempts: int32(maxRetries + 1)}
	}
	return o
}

// DefaultHeartbeatTimeout is the heartbeat timeout of the model and tool
// activities unless [Agent.ModelActivity] or [Agent.ToolActivity] set one:
// the worker heartbeats while a call runs, so a call whose worker died is
// noticed after this long and retried on another worker.
const DefaultHeartbeatTimeout = 10 * time.Second

// toolOptions returns the options of the tool activity for one tool.
func (a *Agent) toolOptions(name string) workflow.ActivityOptions {
	o := a.ToolActivity
	if t, ok := a.ToolActivities[name]; ok {
		o = mergeActivityOptions(t, o)
	}
	if o.StartToCloseTimeout == 0 && o.ScheduleToCloseTimeout == 0 {
		d, ok := a.Options.Timeout.Tools[name]
		if !ok {
			d = a.Options.Timeout.Tool
		}
		o.StartToCloseTimeout = cmp.Or(d, 10*time.Minute)
	}
	if o.HeartbeatTimeout == 0 {
		o.HeartbeatTimeout = DefaultHeartbeatTimeout
	}
	if o.RetryPolicy == nil {
		o.RetryPolicy = &temporal.RetryPolicy{InitialInterval: time.Second, BackoffCoefficient: 2, MaximumAttempts: 3}
	}
	return o
}

// mergeActivityOptions fills the zero fields of o from base.
func mergeActivityOptions(o, base workflow.ActivityOptions) workflow.ActivityOptions {
	o.TaskQueue = cmp.Or(o.TaskQueue, base.TaskQueue)
	o.ScheduleToCloseTimeout = cmp.Or(o.ScheduleToCloseTimeout, base.ScheduleToCloseTimeout)
	o.ScheduleToStartTimeout = cmp.Or(o.ScheduleToStartTimeout, base.ScheduleToStartTimeout)
	o.StartToCloseTimeout = cmp.Or(o.StartToCloseTimeout, base.StartToCloseTimeout)
	o.HeartbeatTimeout = cmp.Or(o.HeartbeatTimeout, base.HeartbeatTimeout)
	if o.RetryPolicy == nil {
		o.RetryPolicy = base.RetryPolicy
	}
	return o
}
