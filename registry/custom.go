package registry

import (
	"github.com/aisdkgo/ai/middleware"
	"github.com/aisdkgo/ai/provider"
)

// Custom is a provider made of fixed models under names of your choice
// (aliases such as "fast" or "smart"), with an optional fallback provider
// for the names it does not list. Register it in a [Registry] like any
// provider. Default settings for an alias are applied by wrapping its model
// in middleware, with [Alias] and [EmbeddingAlias] or directly with
// [middleware.Wrap] and [middleware.WrapEmbedding].
//
// A Custom must not be modified while it is in use.
type Custom struct {
	// LanguageModels map names to language models.
	LanguageModels map[string]provider.LanguageModel
	// EmbeddingModels map names to embedding models.
	EmbeddingModels map[string]provider.EmbeddingModel
	// Fallback resolves the names the maps lack, when set. Like the
	// providers given to [Registry.Register], it implements
	// [LanguageModelProvider] or [EmbeddingModelProvider] or has this
	// module's Model and Embedding methods.
	Fallback any
}

// LanguageModel returns the language model named modelID, or the
// fallback's, or a [*NoSuchModelError].
func (c *Custom) LanguageModel(modelID string) (provider.LanguageModel, error) {
	if m, ok := c.LanguageModels[modelID]; ok && m != nil {
		return m, nil
	}
	if f := asLanguage(c.Fallback); f != nil {
		return f.LanguageModel(modelID)
	}
	return nil, &NoSuchModelError{ModelID: modelID, ModelType: LanguageModel}
}

// EmbeddingModel returns the embedding model named modelID, or the
// fallback's, or a [*NoSuchModelError].
func (c *Custom) EmbeddingModel(modelID string) (provider.EmbeddingModel, error) {
	if m, ok := c.EmbeddingModels[modelID]; ok && m != nil {
		return m, nil
	}
	if f := asEmbedding(c.Fallback); f != nil {
		return f.EmbeddingModel(modelID)
	}
	return nil, &NoSuchModelError{ModelID: modelID, ModelType: EmbeddingModel}
}

// Alias returns model with defaults applied to every call through
// [middleware.DefaultSettings]: what a call leaves unset takes the value of
// defaults.
func Alias(model provider.LanguageModel, defaults provider.CallOptions) provider.LanguageModel {
	return middleware.Wrap(model, middleware.DefaultSettings(defaults))
}

// EmbeddingAlias returns model with defaults applied to every call through
// [middleware.DefaultEmbeddingSettings].
func EmbeddingAlias(model provider.EmbeddingModel, defaults provider.EmbedCallOptions) provider.EmbeddingModel {
	return middleware.WrapEmbedding(model, middleware.DefaultEmbeddingSettings(defaults))
}
