// Package registry resolves model ids of the form "prefix:model" to models
// of registered providers, like the TypeScript AI SDK's
// createProviderRegistry and customProvider.
//
// Register each provider under a prefix, then ask for models by id:
//
//	reg := registry.New()
//	reg.MustRegister("openai", openai.New())
//	reg.MustRegister("anthropic", anthropic.New())
//	model, err := reg.LanguageModel("anthropic:claude-sonnet-4-5")
//
// An id without the separator yields a [*NoSuchModelError]; a prefix that
// is not registered yields a [*NoSuchProviderError] that lists the
// registered prefixes. Both match [ErrNoSuchModel] with errors.Is.
//
// A [Custom] provider gives names (aliases) to fixed models, with default
// settings applied through the middleware package, and can fall back to
// another provider for other names:
//
//	reg.MustRegister("app", &registry.Custom{
//		LanguageModels: map[string]provider.LanguageModel{
//			"fast": registry.Alias(openai.New().Model("gpt-5-mini"),
//				provider.CallOptions{Reasoning: provider.ReasoningLow}),
//		},
//		Fallback: openai.New(),
//	})
//	model, err := reg.LanguageModel("app:fast")
//
// [WithLanguageModelMiddleware] wraps every language model the registry
// returns.
package registry
