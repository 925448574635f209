// Package google provides Google's Gemini models, on the Gemini API or on
// Vertex AI: language models ([Provider.Model]) over generateContent and
// streamGenerateContent, and embedding models ([Provider.Embedding]).
//
//	p := google.New() // reads GOOGLE_GENERATIVE_AI_API_KEY when a model is called
//	model := p.Model("gemini-2.5-flash")
//	embedder := p.Embedding("gemini-embedding-001")
//
// For Vertex AI, name the project and location and let an HTTP client
// authenticate the requests (or give an express-mode API key):
//
//	client, err := googleoauth.DefaultClient(ctx, "https://www.googleapis.com/auth/cloud-platform") // golang.org/x/oauth2/google
//	p := google.New(google.WithVertex("my-project", "us-central1"), google.WithHTTPClient(client))
//
// The models implement [provider.LanguageModel] and
// [provider.EmbeddingModel]; applications normally use them through the ai
// package.
//
// # Requests
//
// System messages become the system instruction (Gemma models get them as
// the first user text). Images, PDFs, audio, video and text files are sent
// inline, by URL (files of the Files API, YouTube, public https URLs) or by
// reference ({"google": "<file uri>"}). Function tools are sent as function
// declarations with their JSON Schema (parametersJsonSchema); a tool with
// Strict set turns on validated function calling. The tool choice becomes
// functionCallingConfig: auto AUTO, none NONE, required ANY, a named tool
// ANY with allowedFunctionNames. A JSON response format is sent as
// responseMimeType and responseJsonSchema ("const" rewritten as a one-value
// "enum"); models before Gemini 3 that also get function tools, and any
// model with a forced tool choice, get the format as a function tool
// instead, whose input is reported as the text of the answer.
//
// Reasoning efforts ([provider.CallOptions.Reasoning]) map to a thinking
// level on Gemini 3 models (the nearest level the model supports, with a
// compatibility warning) and to a thinking budget, a share of 65,536
// tokens, on earlier models ("none" is budget 0 where the model allows
// it). The thinkingConfig provider option takes precedence.
//
// # Thought signatures
//
// Gemini returns thoughtSignature values on parts; they are reported as
// ProviderMetadata["google"]["thoughtSignature"] on the text, reasoning and
// tool call they belong to, and sent back when those parts appear in a
// later prompt. Gemini 3 rejects a multi-step conversation whose function
// calls lost their signature: such a call is sent with the documented
// skip_thought_signature_validator value and a warning.
//
// # Provider options
//
// Per-call settings go in ProviderOptions["google"] ([Options] documents
// each): responseModalities, thinkingConfig, cachedContent,
// structuredOutputs, safetySettings, threshold, audioTimestamp, labels,
// mediaResolution, imageConfig, retrievalConfig,
// streamFunctionCallArguments, serviceTier, continuationToken,
// sharedRequestType and requestType. Embedding calls read
// outputDimensionality, taskType, title and autoTruncate
// ([EmbeddingOptions]). On file parts, ProviderOptions["google"] may carry
// videoMetadata ({startOffset, endOffset, fps}).
//
// # Responses
//
// Text, thought summaries (reasoning), files, function calls, code
// execution calls and results, and sources from grounding metadata become
// content. Usage counts prompt and tool-use prompt tokens as input (cached
// content tokens as read from the cache) and candidate and thought tokens
// as output (thoughts as reasoning). Finish reasons map STOP to stop (or
// tool-calls when the model called functions), MAX_TOKENS to length, the
// safety reasons (SAFETY, RECITATION, BLOCKLIST, PROHIBITED_CONTENT, SPII,
// IMAGE_SAFETY) and a blocked prompt to content-filter,
// MALFORMED_FUNCTION_CALL to error and anything else to other. The provider
// metadata holds promptFeedback, groundingMetadata, urlContextMetadata,
// safetyRatings, usageMetadata, finishMessage, serviceTier and, when the
// response stopped early, continuationToken.
//
// An answer that reaches the per-request output cap while its
// maxOutputTokens budget lasts (finish reason CONTINUATION, Gemini 4 long
// decode) is continued automatically with further requests carrying its
// continuation token, up to 32 of them: their content is appended (in a
// stream, their chunks follow on), their usage added up, and the metadata
// also holds initialPromptTokenCount (the first request's prompt size) and
// groundingMetadataPerRequest. A continuation request that fails ends a
// stream with an error part and a length finish whose metadata carries the
// token, so that the caller can resume with the continuationToken option.
//
// Streams deliver text and reasoning in blocks and function calls as tool
// input. Function-call arguments streamed in pieces (Vertex AI's
// partialArgs with a JSON path each, announced with willContinue) are
// assembled as they arrive, and the call is reported once its last piece
// came; a call whose end never arrives is dropped rather than run on
// partial input.
//
// # Errors
//
// Failed calls return a [*provider.APICallError] with the status, headers,
// body and the message of the error body; Retryable is set for 408, 409,
// 429 and 5xx. A RetryInfo.retryDelay in the error body (for example
// "34.4s" on an exhausted quota) is added to the error's ResponseHeaders
// as retry-after-ms, which the ai package's retries honour, unless the
// response already has a retry-after header. A 200 answer that is not a
// Gemini response (an error object, an empty body, an HTML page, a stream
// without events, a stream line over 16 MiB) is an APICallError with status
// 200 that is not retried. An error reported as the first chunk of a stream
// fails the call with the status its code stands for; later errors in a
// stream become [provider.ErrorPart] values. A missing API key is a
// [*provider.LoadAPIKeyError].
package google
