// Package azure reaches OpenAI models deployed on Azure OpenAI (and Azure
// AI Foundry), following the wire behaviour of the TypeScript AI SDK's
// @ai-sdk/azure provider.
//
// A model id is a deployment name. [Provider.Model] and
// [Provider.Responses] use the Responses API, [Provider.Chat] the Chat
// Completions API and [Provider.Embedding] the embeddings API; they share
// the implementation of the openai package, so prompts, tools, streaming
// and errors behave the same.
//
// URLs: with a resource name the base is
// https://{resource}.openai.azure.com/openai and requests go to
// {base}/v1/{path}?api-version=v1. A base URL given with [WithBaseURL] that
// already ends in /openai/v1, or that is not an Azure host (a proxy), is
// used as it is; a Foundry project endpoint gets no api-version.
// [WithDeploymentBasedURLs] selects the legacy form
// {base}/deployments/{deployment}/{path}?api-version=..., with the version
// of [WithAPIVersion].
//
// Authentication: the api-key header, from [WithAPIKey] or the
// AZURE_API_KEY environment variable; or a Microsoft Entra ID bearer token
// from [WithTokenProvider], or a client whose transport authenticates
// itself, given with [WithAuthenticatedClient].
//
// Responses models read call settings from ProviderOptions["azure"], or
// ProviderOptions["openai"] when there is no "azure" entry; they accept
// the settings the openai package documents. The options of prompt
// messages, parts and tool outputs (imageDetail, itemId...) are read the
// same way, and a file reference's "azure" id is used before its "openai"
// one. Tool options and the metadata of results use the "openai" key.
package azure
