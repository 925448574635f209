// Package ai builds tool-using language model applications: typed tools,
// a multi-step tool-calling loop ([GenerateText], [StreamText], [Agent]),
// tool search over deferred tools ([ToolSearch]) and code mode ([CodeMode]),
// on any model that implements the small contract in package provider.
//
// # Tools
//
// A tool is made from a Go function whose input and output are Go types:
//
//	weather := ai.NewTool(ai.ToolDef[WeatherIn, WeatherOut]{
//		Description: "Get the weather forecast for a city.",
//		Execute: func(ctx context.Context, in WeatherIn, opts ai.ToolExecutionOptions) (WeatherOut, error) {
//			...
//		},
//	})
//
// The input's JSON Schema is inferred from WeatherIn once, and the
// model's input is validated against it before Execute sees it. Invalid
// input, an unknown tool, an error or a panic in a tool become a tool error
// that the model sees in the next step; the generation goes on.
// [NewDynamicTool] makes tools whose schemas are known only at run time
// (MCP servers), and [ProviderDefined] turns the tools a provider package
// describes (web search, code execution) into tools.
//
// # The loop
//
// [GenerateText] calls the model, runs the tools it asks for (concurrently,
// results in call order), sends the results back, and repeats until
// [GenerateTextOptions.StopWhen] holds. [StreamText] does the same while
// streaming every part ([Part]) as it happens; the stream is read with a
// range loop and is driven by its reader. [Agent] keeps a configuration for
// many calls. Cancelling the context stops the model call and the tools.
//
// # Tool search
//
// Tools registered with DeferLoading are not sent to the model. A search
// tool ([ToolSearch], [NewToolSearch]) lets the model find them by keywords;
// the tools it finds are sent from the next step on. Each generation keeps
// its own discovery state, so many generations can share the same tools.
//
// # Observing generations
//
// [GenerateTextOptions.Observer] receives the start and end of the
// generation, each step, model call and tool call, and each retry; see
// [Observer]. Package aiotel traces with OpenTelemetry, package aislog logs
// with log/slog.
//
// # Providers
//
// Models come from provider packages (providers/openai,
// providers/anthropic, providers/google, providers/openaicompat) or from any
// implementation of [provider.LanguageModel]; [Embed] and [EmbedMany] embed
// text with a [provider.EmbeddingModel]. Package middleware wraps models
// (default settings, reasoning tags, simulated streaming, a concurrency
// cap). Package aitest provides scripted models for tests.
package ai
