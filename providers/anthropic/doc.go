// Package anthropic is a provider for Anthropic's Messages API
// (POST {base}/messages).
//
//	p := anthropic.New() // reads ANTHROPIC_API_KEY
//	model := p.Model("claude-sonnet-4-5")
//
// The model implements [provider.LanguageModel]: Generate and Stream turn
// call options into Messages requests and read the answer back into
// provider-neutral content parts, usage and finish reasons. Failed calls
// return a [*provider.APICallError] with the status, headers, body and the
// message from Anthropic's error body; Retryable follows
// [provider.IsRetryableStatus] (429, 529 overloaded and other 5xx are
// retryable), dropped connections and bodies cut off while they are read
// are retryable, and a cancelled context is returned as the context's
// error. A 200 response that is not a Messages response (an empty body, an
// HTML page, an error object, a stream without events, a stream line over
// 16 MiB) is an APICallError with status 200 that is not retryable. An error
// event before any output fails the call with the status its type stands
// for: api_error 500, overloaded_error 529 and rate_limit_error 429 are
// retryable; request_too_large 413, authentication_error 401,
// permission_error 403, not_found_error 404, billing_error and
// invalid_request_error 400, and unknown types 500 are not.
//
// # Prompt
//
// System messages at the start become the top-level system prompt. Runs of
// user and tool messages become one user message, runs of assistant messages
// one assistant message. Images (any image/* type) and PDFs are sent as
// base64 data, by URL, or by Anthropic file id ([provider.FileReference]
// with an "anthropic" entry); text/plain files become text documents. Tool
// results become tool_result blocks. Reasoning parts are sent back as
// thinking blocks when their provider options carry the "signature" (or
// "redactedData") the answer reported, so reasoning round-trips through the
// provider metadata of reasoning parts. Calls and results of
// provider-executed tools in assistant messages (web search, web fetch,
// code execution, tool search, advisor, MCP) are sent back as the blocks the
// API produced them from.
//
// # Tools
//
// Function tools are sent with their name, description and input schema;
// Strict is sent for models that support strict tools and dropped with a
// warning otherwise. Provider tools ([provider.ProviderTool]) are declared
// by id, for example "anthropic.web_search_20250305" or
// "anthropic.tool_search_regex_20251119"; the API knows them by fixed names
// ("web_search", "tool_search_tool_regex"), and calls and results are
// reported under the name the application gave the tool. Tool choice "auto",
// "none", "required" (sent as "any") and a named tool are supported; "none"
// keeps the tool list so that history referring to the tools stays valid.
// Models or thinking settings that reject forced tool use get "auto" with a
// warning instead of "required" or a named tool (then only the named tool is
// sent).
//
// Deferred tools: a function tool whose provider options hold
// {"anthropic": {"deferLoading": true}} (see [DeferLoading]) is declared
// with defer_loading and is loaded only when a tool search tool finds it.
// The search tools ([ToolSearchRegex], [ToolSearchBM25]) run at Anthropic:
// their calls arrive as provider-executed tool calls and their results as
// provider tool results whose value is a list of
// {"type": "tool_reference", "toolName": ...}, or an error result
// {"type": "tool_search_tool_result_error", "errorCode": ...}. When the
// model calls a search tool and a client tool in one turn, the search result
// arrives at the start of the next response; it is reported then, under the
// search tool the request declares.
//
// # Provider options
//
// Call settings go in CallOptions.ProviderOptions["anthropic"] (see
// [MessagesOptions] for a typed form). The keys:
//
//   - thinking: {"type": "enabled", "budgetTokens": n} | {"type":
//     "adaptive", "display": "omitted"|"summarized"|"updates"} | {"type":
//     "disabled"} | {"type": "between_tools"}. Budgets default to 1024 and
//     are added to max_tokens; while thinking, temperature, topK and topP
//     are dropped with warnings. Settings a model rejects are adjusted with
//     a warning.
//   - effort: "low" | "medium" | "high" | "xhigh" | "max" (output_config.effort).
//     Without thinking and effort options, CallOptions.Reasoning picks them.
//   - disableParallelToolUse: bool.
//   - sendReasoning: bool, default true.
//   - structuredOutputMode: "outputFormat" | "jsonTool" | "auto" (default):
//     how a JSON response format is requested, natively through
//     output_config.format or through a "json" tool.
//   - cacheControl: {"type": "ephemeral", "ttl": "5m"|"1h"}, automatic
//     caching of the whole request.
//   - metadata: {"userId": string}.
//   - toolStreaming: bool, default true: fine-grained streaming of tool
//     inputs in streaming calls (eager_input_streaming on function tools).
//   - anthropicBeta: []string, extra anthropic-beta features.
//   - container: {"id": string, "skills": [{"type", "skillId", "version"}]}.
//   - mcpServers: [{"type": "url", "name", "url", "authorizationToken",
//     "toolConfiguration": {"enabled", "allowedTools"}}].
//   - contextManagement: {"edits": [...]}, see [ContextEdit].
//   - speed: "fast" | "standard"; inferenceGeo: "us" | "global";
//     taskBudget: {"type": "tokens", "total", "remaining"}.
//
// Settings of single prompt parts and tools go in their own provider options
// under "anthropic":
//
//   - cacheControl (alias cache_control): a cache breakpoint, {"type":
//     "ephemeral", "ttl": ...}, on system messages, user, assistant and tool
//     messages (then on their last part), message parts, tool results and
//     function tools; see [CacheBreakpoint]. At most four breakpoints are
//     sent per request; thinking blocks cannot carry one.
//   - on function tools: deferLoading, allowedCallers, eagerInputStreaming
//     (see [ToolOptions]).
//   - on PDF and text file parts: citations {"enabled": true}, title,
//     context.
//   - on custom parts inside tool result content: {"type":
//     "tool-reference", "toolName": name} sends a tool_reference, which is
//     how a client-side tool search hands discovered tools to the model.
//
// # Output
//
// Text, reasoning (with the "signature" or "redactedData" metadata), tool
// calls, provider-executed calls and results, and sources (from citations
// and web search results) are reported in order. Usage follows Anthropic's
// accounting: input_tokens counts only uncached input, so the input total is
// input_tokens + cache_creation_input_tokens + cache_read_input_tokens, with
// NoCache, CacheRead and CacheWrite set from those fields. Finish reasons
// map end_turn, stop_sequence and pause_turn to stop, tool_use to
// tool-calls, max_tokens and model_context_window_exceeded to length,
// refusal to content-filter and anything else to other; the raw value is
// kept. A stream that ends without message_stop finishes as interrupted.
// The provider metadata "anthropic" of a call holds the raw usage,
// cacheCreationInputTokens, stopSequence, stopDetails, iterations, container
// and contextManagement.
//
// # Differences from the TypeScript provider
//
//   - A stream that ends without message_stop still ends with a finish
//     part: interrupted, or error when the API reported an error or the
//     events made no sense. Events after a finished message, other than a
//     new message_start, are ignored, and so are event and block types this
//     package does not know. A response without any event fails the call.
//   - A named tool choice that names a provider tool is sent with the
//     tool's API name.
//   - A tool search result whose call was in an earlier response belongs to
//     the BM25 search tool when the request declares it, else to the regex
//     one.
//   - Images of media type "image" or "image/*" get their type from their
//     bytes; data: URLs are sent as base64 data; Anthropic file ids are
//     accepted through [provider.FileReference].
//   - Not supported: mid-conversation tool changes, the computer toolset,
//     server-side fallbacks and safeguards, and a custom provider name for
//     the options.
package anthropic
