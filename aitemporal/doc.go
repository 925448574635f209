// Package aitemporal runs agents of package ai as Temporal workflows, so
// that a tool loop survives worker crashes and restarts, waits durably for
// approvals and spreads its model calls and tool executions over many
// workers.
//
// # How a run works
//
// A worker registers a [Config] with [Register]: the models it calls and
// the agents it runs, by name. A client starts a run with [Start] (the
// workflow [WorkflowName]) and an [Input] naming the agent and the prompt.
// The workflow drives the same engine as [ai.GenerateText], with its
// effects replaced:
//
//   - each model call is an activity ([GenerateActivity]) that calls the
//     model registered under the name the workflow sends;
//   - each tool execution is an activity ([ToolActivity]) that runs the
//     tool registered with the agent, by name, with the activity's context;
//   - the tool calls of a step run on workflow coroutines, started in call
//     order; the clock is workflow time and ids are counted from the run id.
//
// Everything else, the prompt, tool search and the discovery state, input
// validation, approval policies, the stop conditions, happens in workflow
// code, in memory, and is rebuilt by replay. A workflow that replays after
// a crash therefore sends the model exactly the tools it saw before, and a
// tool call whose activity completed is never run again: its result is in
// the history. A call cut off by a crash is retried once its heartbeat
// times out (see "Crashes and side effects").
//
// # Crashes and side effects
//
// A tool call whose completion the history recorded never runs again. But
// activities run at least once: when a worker dies after a tool did its
// work and before the server heard of it, the call runs again on another
// worker, and a tool that sends an email sends it twice. A tool with a side
// effect must therefore be idempotent. Each call gets a key for that,
// [IdempotencyKey], the same on every attempt and different for every call
// of every run; pass it to the system the tool changes:
//
//	Execute: func(ctx context.Context, in Payment, _ ai.ToolExecutionOptions) (Receipt, error) {
//		key, _ := aitemporal.IdempotencyKey(ctx)
//		return bank.Pay(ctx, in, bank.IdempotencyKey(key)) // the bank pays once per key
//	}
//
// Workers heartbeat while a model or tool call runs ([DefaultHeartbeatTimeout]),
// so a call on a worker that died is retried within seconds; a tool whose
// attempts all ended that way is reported to the model as a lost worker
// ([WorkerLost]), not as a tool that ran out of time.
//
// # Retries and tool errors
//
// A failed model call is retried by the model activity's retry policy when
// the provider marked the error retryable, as in a local generation. A
// failing tool is retried by the tool activity's retry policy (three
// attempts by default); after the last attempt its error becomes a tool
// error the model sees, as in a local run. A tool returns
// [NonRetryable](err), or a non-retryable *temporal.ApplicationError, for
// an error that retrying cannot fix: the model sees it at once.
//
// # Approvals
//
// When a call needs approval (the agent's ToolApproval or the tool's
// NeedsApproval), the run pauses: the [ProgressQuery] lists the pending
// requests and the run waits, for days if need be, for an [ApprovalSignal]
// per request ([Approve] sends one). Approved calls then run before the
// next model call; denied ones are reported to the model as denied. The
// deferred tools found before the pause stay loaded after it.
//
// A signal is taken only when it answers a request the run is waiting on,
// for the first time. When the agent signs its approvals
// (Options.ToolApprovalSecrets, as for a web chat), an approving signal must
// also carry the request's signature ([PendingApproval.Signature], which a
// page receives with the request): a server can then forward what a browser
// posted, and a forged answer runs nothing. Signals that are not taken are
// listed in the progress ([Progress.IgnoredApprovals]).
//
// # Code mode
//
// An agent may route tools to a code mode tool ([ai.CodeMode],
// Options.ToolCallers); the workers then import the engine
// (github.com/aisdkgo/ai/quickjs). The code tool's call runs in workflow
// code, and its program in the program activity ([ProgramActivity]),
// which runs it from the start with the calls it made so far answered
// from a ledger the workflow keeps: each call's name, input and outcome,
// as the program saw it. When the program makes a call the ledger lacks,
// the activity stops it there (the program never sees an answer) and
// reports the call, with any other call the program had dispatched
// alongside it. The workflow runs those calls as the engine runs any
// nested call: their input is validated, the approval policy decides, and
// each executes as a tool activity ([ToolActivity]) with its timeouts,
// retries, heartbeats and [IdempotencyKey] (the call's id is
// "<code call id>:tool-<n>"). Their outcomes join the ledger, which lives
// in the workflow's history as the program activity's input, and the
// program runs again, until it returns or fails. A worker that crashes,
// or an approval that takes days, costs one more run of the program:
// calls in the ledger never run again, and a call cut off by a crash is
// retried as any tool activity is (at least once: its tool should use the
// key).
//
// A call that needs approval waits for an [ApprovalSignal] as a direct
// call does: it is listed in the progress with the approval id
// "<call id>:approval", and a denial rejects the call inside the program
// with CODE_MODE_TOOL_APPROVAL_DENIED. CodeModeOptions.Approve, when set,
// decides instead, in workflow code (it must be deterministic and must not
// do I/O). CodeModeOptions.ApprovalMode does not apply, since the workflow
// waits rather than pausing, and [ai.RequestProgramInput] is not available
// to the tools of durable programs.
//
// Running a program again must take it down the same path, so:
//
//   - Math.random is seeded from the run and the code call, and Date.now()
//     and new Date() report the workflow time at which the program first
//     started, on every run of the program;
//   - a call whose sequence number is in the ledger is answered at once
//     with its recorded output or error (failures of tools stay redacted);
//   - a run that makes a different call (another tool or another input)
//     under a recorded sequence number, or that returns without making
//     every recorded call, fails the program with CODE_MODE_PROTOCOL_ERROR
//     rather than running anything twice. Programs are deterministic
//     otherwise, except when their path depends on the order in which
//     concurrent calls finish (Promise.race): such programs may fail so.
//
// The program's source and ledger are bounded by [MaxProgramLedgerBytes]
// (outputs kept in [Config.Store] count by their reference; the program
// activity reads them back); a program past it fails with
// CODE_MODE_ERROR. Every run of the
// program records the ledger so far in the history, so a program's share
// of the history grows with the square of its calls: prefer programs of
// tens of calls, and a store for large outputs. The code tool's Limits
// apply to each run of the program (its Timeout bounds the program's own
// computation, not the time its calls or approvals take), its Console
// receives the program's lines on the worker at every run, and the code
// tool's entry in [Agent.ToolActivities] sets the program activity's
// options. A run's stream ([Input.Stream]) shows the code call and its
// result, not the calls of its program: a program's approvals are found
// with the [ProgressQuery] and answered with [Approve].
//
// # Progress and streaming
//
// Callers follow a run with the [ProgressQuery]: its finished steps (text,
// tool calls and their outcomes), the tools it discovered and the approvals
// it waits for.
//
// A run started with [Input.Stream] also publishes itself as UI message
// streams, the protocol of the AI SDK's useChat, into the store of
// [Config.Stream]: the model activity streams the model's deltas while it
// runs, and each finished step is then published as the history records
// it, approval requests and their signatures included. A model call that
// a crash cut off streams again from its retry; the client receives a
// reset-step chunk that drops the partial step, and the message it ends
// with is the history's (see [Streaming]). The durablechat package serves
// these streams to useChat clients over HTTP and turns the approvals they
// post into approval signals.
//
// # Payloads
//
// Workflow inputs, activity payloads and histories carry only data:
// messages, tool definitions, tool names, inputs and outputs, as JSON in
// the TypeScript AI SDK's shape. Temporal bounds each payload (2 MB by
// default) and each history (50 MB), and every model call's input holds the
// conversation so far. A tool output larger than [Config.MaxOutputBytes]
// is put into [Config.Store] (see [OutputStore]) or, without a store, fails
// the call with a tool error the model sees. The raw HTTP bodies of model
// calls are not recorded. Long conversations should be trimmed with
// PrepareStep. A run does not continue as new: one run's history holds all
// of its steps, so a run of hundreds of steps needs smaller outputs or a
// store.
//
// # Determinism
//
// The functions among an agent's options (StopWhen, PrepareStep, approval
// rules, description functions, RepairToolCall, the callbacks) run in
// workflow code and run again on replay: they must be deterministic and
// must not do I/O. Every worker of a task queue must register the same
// agents, tools and models. A tool's Execute receives the call id but not
// the step's messages or the tool's context.
package aitemporal
