// Package openai provides OpenAI language models through the Responses API
// ([Provider.Responses], also [Provider.Model]) and the Chat Completions API
// ([Provider.Chat]).
//
//	p := openai.New() // reads OPENAI_API_KEY when a model is called
//	model := p.Model("gpt-5")
//
// Both kinds of model implement [provider.LanguageModel]; applications
// normally use them through the ai package. [Provider.Embedding] returns an
// embedding model of the Embeddings API ([provider.EmbeddingModel]), for
// ai.Embed and ai.EmbedMany.
//
// # Streams
//
// [provider.StreamResult.Stream] may be ranged over once. Breaking out of the
// loop, or cancelling the context, closes the connection; a stream that is
// never ranged over holds its connection until the context ends.
//
// # Errors
//
// Failed calls return a [*provider.APICallError] carrying the status, the
// response headers and body, and the message from the error body; Retryable
// is set for 408, 409, 429 and 5xx responses, for dropped connections and
// for bodies cut off while they are read. A 200 response that is not what
// the API sends (an empty body, an HTML page, an error object, a stream
// without events, a stream line over 16 MiB) is an APICallError with status
// 200 that is not retryable. An
// error event that arrives in a streaming response before any output is
// returned by Stream the same way, with a status derived from its code (an
// exhausted quota is 429 and not retryable). Later error events become
// [provider.ErrorPart] values and finish the stream with
// [provider.FinishError]. Cancelling the context ends a call with the
// context's error. A missing API key is a [*provider.LoadAPIKeyError].
//
// # Responses API provider options
//
// Per-call settings go in ProviderOptions["openai"] of
// [provider.CallOptions]:
//
//   - conversation (string): continue an OpenAI conversation.
//   - previousResponseId (string): continue from a stored response.
//   - store (bool, API default true): store the response. With false, a
//     reasoning model's reasoning is requested with its encrypted content so
//     it can be sent back.
//   - instructions (string): system or developer instructions.
//   - include ([]string): extra output to include; web search sources,
//     code interpreter outputs and encrypted reasoning are added when needed.
//   - reasoningEffort, reasoningSummary, reasoningMode, reasoningContext
//     (strings): the "reasoning" object, for reasoning models only.
//     reasoningEffort takes precedence over [provider.CallOptions.Reasoning].
//   - textVerbosity (string): text.verbosity.
//   - strictJsonSchema (bool, default true): strict JSON schema outputs.
//   - promptCacheKey (string), promptCacheRetention ("in_memory" or "24h")
//     and promptCacheOptions ({mode, ttl, prewarm, comparisonResponseId}):
//     prompt caching controls.
//   - serviceTier (string), parallelToolCalls (bool), maxToolCalls (int),
//     metadata (object), user (string), safetyIdentifier (string),
//     truncation ("auto" or "disabled").
//   - logprobs (true or 1-20): token log probabilities, returned in the
//     provider metadata.
//   - contextManagement ([{type, compactThreshold}]): server-side compaction.
//   - allowedTools ({toolNames, mode}): restrict the callable tools without
//     changing the tool list (tool_choice "allowed_tools").
//   - systemMessageMode ("system", "developer" or "remove") and
//     forceReasoning (bool): override what is inferred from the model id.
//   - passThroughUnsupportedFiles (bool): send files other than images and
//     PDFs as input files.
//
// On prompt parts, ProviderOptions["openai"] may carry imageDetail (images)
// and promptCacheBreakpoint (an explicit cache breakpoint, sent as
// prompt_cache_breakpoint). On function tools it may carry deferLoading
// (bool, sent as defer_loading: the tool is loaded only when the model's
// tool search finds it) and namespace ({name, description}, grouping tools
// into a namespace).
//
// # Provider tools
//
// [WebSearch], [WebSearchPreview], [FileSearch], [CodeInterpreter],
// [ImageGeneration], [MCP], [ToolSearch], [ClientToolSearch] and
// [CustomTool] build them for the ai package. On the wire they are matched
// by id: "openai.web_search",
// "openai.web_search_preview", "openai.file_search",
// "openai.code_interpreter", "openai.image_generation", "openai.mcp",
// "openai.tool_search" and "openai.custom" (grammar-constrained custom tools).
// Their arguments use the camelCase names of the TypeScript AI SDK (for
// example searchContextSize, userLocation, vectorStoreIds). Calls and
// results of these tools are reported under the name the application gave
// the tool. Other ids are dropped with an "unsupported" warning.
//
// The tool search tool loads deferred tools. Hosted (execution "server", the
// default), the search is a provider-executed call with its result; with
// execution "client" it is an ordinary tool call whose input is
// {"arguments", "call_id"} and whose JSON result {"tools": [...]} lists the
// tool definitions to load.
//
// # Round trips
//
// Output parts carry ProviderMetadata["openai"] that must come back with
// them in later prompts: itemId on text, reasoning and tool calls,
// reasoningEncryptedContent on reasoning, namespace on calls of tools found
// by tool search, phase on text. With store (the default) earlier output is
// sent as item references; with store false reasoning is sent back with its
// encrypted content.
//
// # Chat Completions provider options
//
// ProviderOptions["openai"] of Chat models understands logitBias, logprobs,
// parallelToolCalls, user, reasoningEffort, maxCompletionTokens, store,
// metadata, prediction, serviceTier, strictJsonSchema, textVerbosity,
// promptCacheKey, promptCacheRetention, promptCacheOptions,
// safetyIdentifier, systemMessageMode and forceReasoning. Reasoning models
// (o-series, GPT-5 and later) get the developer role and
// max_completion_tokens, and settings they reject are removed with a
// warning. Provider tools are not available on Chat Completions.
package openai
