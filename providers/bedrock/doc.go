// Package bedrock reaches models on Amazon Bedrock through the Converse and
// ConverseStream APIs, following the wire behaviour of the TypeScript AI
// SDK's @ai-sdk/amazon-bedrock provider. Anthropic's Claude models, Amazon
// Nova, Meta Llama, Mistral, OpenAI's open-weight models and the others
// that Converse serves work through the same model type.
//
// Authentication: requests are signed with AWS Signature Version 4
// (service "bedrock") using the credentials of [WithCredentials] or of the
// AWS SDK's default chain (environment variables, shared files, SSO,
// container and instance roles); or, with a Bedrock API key
// ([WithAPIKey] or AWS_BEARER_TOKEN_BEDROCK), sent as a bearer token. The
// region comes from [WithRegion], AWS_REGION or the shared configuration.
//
// Streams use the AWS event-stream binary framing (a prelude with lengths
// and a CRC-32, typed headers, the payload and a CRC-32 of the message);
// messages are checked and bounded to 16 MiB. An exception message before
// any output fails the call with the status it stands for
// (throttlingException 429, internalServerException 500,
// serviceUnavailableException 503, modelStreamErrorException 424, all
// retryable; validationException 400), so the ai package retries it like
// an HTTP error; a later one is an error part of the stream.
//
// Call settings go in ProviderOptions["amazonBedrock"] (or "bedrock"):
// reasoningConfig ({type: "enabled"|"disabled"|"adaptive", budgetTokens,
// maxReasoningEffort, display}), additionalModelRequestFields,
// anthropicBeta, serviceTier and structuredOutputMode; any other key
// (guardrailConfig, performanceConfig, requestMetadata...) is copied into
// the request body. The neutral reasoning effort of a call maps to
// thinking budgets or adaptive thinking on Claude models and to
// maxReasoningEffort elsewhere. ProviderOptions["anthropic"] may set
// disableParallelToolUse.
//
// On prompt parts, the same keys take cachePoint (for example
// {"type": "default"}) to add a cache point after the part or message,
// guardContent and guardContentQualifiers (text and images),
// citations ({"enabled": true}) for documents, and the signature,
// redactedData or redactedContent of reasoning returned earlier (results
// carry them in their provider metadata under both keys). Images (JPEG,
// PNG, GIF, WebP), documents (PDF, CSV, DOC, DOCX, XLS, XLSX, HTML, TXT,
// Markdown) and videos are sent as bytes; images and videos may also be
// s3:// URLs.
//
// Anthropic's provider-defined tools (bash, text editor, computer, memory,
// code execution; provider tool ids "anthropic.*") reach Claude models as
// tool specs with the tools' input schemas; the tool choice then goes in
// Anthropic's form, and the beta features the tools need are added to
// anthropic_beta, in additionalModelRequestFields. Bedrock does not run
// Anthropic's web search and newer web fetch tools, and other models take
// no provider tools: those are left out with a warning.
//
// A JSON response format with a schema uses Anthropic's native structured
// output (output_config.format) on Claude models that support it, asks for
// JSON in the system message on Claude models that cannot be forced to call
// a tool (keeping only the JSON object of the answer), and otherwise is
// answered through a tool named "json" whose input becomes the text of the
// answer. structuredOutputMode ("outputFormat", "jsonTool" or "auto")
// chooses between the first and the last.
package bedrock
