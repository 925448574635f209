// Package mcptools turns the tools of MCP servers into tools of package
// [github.com/aisdkgo/ai], on the official MCP Go SDK
// ([github.com/modelcontextprotocol/go-sdk/mcp]).
//
// A [Source] wraps one [mcp.ClientSession]. Its [Source.Tools] method lists
// the server's tools (following every page) and returns them as dynamic
// tools ([ai.NewDynamicTool]): named as on the server, optionally with a
// prefix; described and with the input schema exactly as the server gives
// them (save for regular expressions that Go cannot compile, see
// [Source.Tools]); deferred on request, so that a server with hundreds of tools costs
// no tokens until an [ai.ToolSearch] tool finds the few a task needs; and
// with the server and the tool's MCP annotations in their metadata (see
// [Info]).
//
// # Wiring
//
// The application connects to the server itself and keeps the session and
// the source for as long as it uses the server. To follow a server whose
// tool list changes, make a [ListChanged] and install its handler on the
// client before connecting: the client subscribes to the notifications only
// when a handler is set at connection time.
//
//	changes := new(mcptools.ListChanged)
//	client := mcp.NewClient(&mcp.Implementation{Name: "app", Version: "v1"}, changes.ClientOptions(nil))
//	session, err := client.Connect(ctx, &mcp.CommandTransport{Command: exec.Command("my-server")}, nil)
//	if err != nil {
//		return err
//	}
//	defer session.Close() // the caller's job: mcptools never closes a session
//
//	src := mcptools.NewSource(session, &mcptools.Options{
//		Prefix:       "github_",
//		DeferLoading: true,
//		ListChanged:  changes,
//	})
//	tools, err := src.Tools(ctx) // once per generation
//	if err != nil {
//		return err
//	}
//	res, err := ai.GenerateText(ctx, ai.GenerateTextOptions{
//		Model: model,
//		Tools: append(tools, ai.NamedTool{Name: "tool_search", Tool: ai.ToolSearch()}),
//		...
//	})
//
// # Snapshots
//
// Each call of [Source.Tools] returns an immutable snapshot, and a
// generation only ever sees the snapshot it was given: a change on the
// server shows from the next generation on, never in the middle of one. A
// notification only marks the source stale; the next call of Tools lists
// again. Calls of tools that the server has meanwhile removed fail as tool
// errors, which the model sees.
//
// # Calls and results
//
// A converted tool calls the server with the generation's context, so that
// cancelling the generation or a tool timeout ([ai.Timeout]) cancels the
// call. The result ([*mcp.CallToolResult], the tool's output value) is
// shown to the model as [ModelOutput] describes: text as text, images and
// audio as files, structured content as JSON.
//
// Nothing a server does fails a generation. A result with isError set, a
// protocol error, a broken connection, an expired deadline and content that
// cannot be shown to a model (an image without data, an invalid media type)
// all make the call fail with a [*CallError], which the model sees as a
// tool error.
//
// # Resources and prompts
//
// [ListResources], [ListResourceTemplates] and [ListPrompts] follow every
// page of a listing. [ReadResource] reads a resource and [ResourceParts]
// turns its contents into parts of a user message (text as text, blobs as
// files); [GetPrompt] fills in a prompt and returns it as messages
// ([PromptMessages]), ready for [ai.GenerateTextOptions.Messages]. A
// [ResourceUpdates], installed on the client like [ListChanged], lets
// [ResourceUpdates.Watch] subscribe to a resource and yield its updates
// until its context ends.
//
// # Requests from the server
//
// [WithElicitation] answers a server's questions to the user
// (elicitation/create) through a function the application supplies:
// accept with content, decline or cancel. [WithSampling] answers its
// requests for text (sampling/createMessage) with a language model of
// package ai, after an optional approval and within a token cap. Both are
// client options, set before connecting.
//
// # Authorization
//
// [HTTPTransport] connects over streamable HTTP with the MCP SDK's OAuth
// support ([HTTPOptions].OAuth: an authorization-code or
// client-credentials handler of the SDK) or with a token source the
// application already has ([HTTPOptions].Token, [TokenHandler]).
//
// # Tool drift
//
// A server can change a tool after a person approved it. [FingerprintTools]
// digests the security-relevant part of each tool's definition (its
// description, title and input schema, as the TypeScript AI SDK's
// fingerprintTools does, digest for digest); store the fingerprints with
// the approval and call [DetectToolDrift] on every later snapshot before
// trusting it.
package mcptools
