package registry

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/aisdkgo/ai/middleware"
	"github.com/aisdkgo/ai/provider"
)

// LanguageModelProvider makes language models by id. [*Custom] implements
// it; providers whose Model method cannot fail are adapted by [Register].
type LanguageModelProvider interface {
	LanguageModel(modelID string) (provider.LanguageModel, error)
}

// EmbeddingModelProvider makes embedding models by id. [*Custom]
// implements it; providers whose Embedding method cannot fail are adapted
// by [Register].
type EmbeddingModelProvider interface {
	EmbeddingModel(modelID string) (provider.EmbeddingModel, error)
}

// modelMaker is the method of the provider packages of this module
// (openai, anthropic, google, openaicompat, azure, bedrock).
type modelMaker interface {
	Model(modelID string) provider.LanguageModel
}

// embeddingMaker is the embedding method of the provider packages.
type embeddingMaker interface {
	Embedding(modelID string) provider.EmbeddingModel
}

// ModelType names a kind of model in errors.
type ModelType string

// The model types.
const (
	LanguageModel  ModelType = "languageModel"
	EmbeddingModel ModelType = "embeddingModel"
)

// NoSuchModelError reports a model id that no provider resolves, or one
// not of the form "prefix:model".
type NoSuchModelError struct {
	// ModelID is the id that was asked for.
	ModelID string
	// ModelType is the kind of model asked for.
	ModelType ModelType
	// Message says what is wrong.
	Message string
}

// Error implements the error interface.
func (e *NoSuchModelError) Error() string {
	if e.Message != "" {
		return e.Message
	}
	return fmt.Sprintf("no such %s: %s", e.ModelType, e.ModelID)
}

// NoSuchProviderError reports a model id whose prefix names no registered
// provider. It lists the prefixes that are registered.
type NoSuchProviderError struct {
	// ModelID is the full id that was asked for.
	ModelID string
	// ModelType is the kind of model asked for.
	ModelType ModelType
	// ProviderID is the prefix that was not found.
	ProviderID string
	// Available are the registered prefixes, in registration order.
	Available []string
}

// Error implements the error interface.
func (e *NoSuchProviderError) Error() string {
	return fmt.Sprintf("no such provider: %s (available providers: %s)", e.ProviderID, strings.Join(e.Available, ","))
}

// Registry resolves ids of the form "prefix:model" to models of the
// providers registered under each prefix. It is safe for concurrent use;
// providers may be registered while models are resolved.
type Registry struct {
	separator  string
	middleware []middleware.Middleware

	mu        sync.RWMutex
	providers map[string]entry
	order     []string
}

type entry struct {
	language  LanguageModelProvider
	embedding EmbeddingModelProvider
}

// Option configures a [Registry].
type Option func(*Registry)

// WithSeparator sets the string between the provider prefix and the model
// id; the default is ":". An empty separator is ignored.
func WithSeparator(sep string) Option {
	return func(r *Registry) {
		if sep != "" {
			r.separator = sep
		}
	}
}

// WithLanguageModelMiddleware wraps every language model the registry
// returns in mws, as [middleware.Wrap] does: the first middleware sees a
// call first.
func WithLanguageModelMiddleware(mws ...middleware.Middleware) Option {
	return func(r *Registry) { r.middleware = append(r.middleware, mws...) }
}

// New returns an empty registry.
func New(opts ...Option) *Registry {
	r := &Registry{separator: ":", providers: map[string]entry{}}
	for _, o := range opts {
		o(r)
	}
	return r
}

// Register adds p under prefix, replacing a provider registered there
// before. p must make language models, embedding models or both: it
// implements [LanguageModelProvider] or [EmbeddingModelProvider] (as
// [*Custom] does), or has the Model(id) and Embedding(id) methods of this
// module's provider packages. The prefix must not be empty or contain the
// separator.
func (r *Registry) Register(prefix string, p any) error {
	if prefix == "" || strings.Contains(prefix, r.separator) {
		return fmt.Errorf("registry: invalid provider prefix %q (it must be non-empty and must not contain %q)", prefix, r.separator)
	}
	e := entry{language: asLanguage(p), embedding: asEmbedding(p)}
	if e.language == nil && e.embedding == nil {
		return fmt.Errorf("registry: provider %q (%T) makes neither language nor embedding models", prefix, p)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if _, ok := r.providers[prefix]; !ok {
		r.order = append(r.order, prefix)
	}
	r.providers[prefix] = e
	return nil
}

// MustRegister is [Registry.Register] for setup code: it panics on error
// and returns r, so that registrations chain.
func (r *Registry) MustRegister(prefix string, p any) *Registry {
	if err := r.Register(prefix, p); err != nil {
		panic(err)
	}
	return r
}

// Providers returns the registered prefixes in registration order.
func (r *Registry) Providers() []string {
	r.mu.RLock()
	defer r.mu.RUnlock()
	return slices.Clone(r.order)
}

// LanguageModel returns the language model named id, "prefix:model". The
// model id is everything after the first separator, so it may contain the
// separator itself. Errors are a [*NoSuchModelError] (bad id, or a
// provider without that model or without language models) or a
// [*NoSuchProviderError].
func (r *Registry) LanguageModel(id string) (provider.LanguageModel, error) {
	e, modelID, err := r.lookup(id, LanguageModel)
	if err != nil {
		return nil, err
	}
	if e.language == nil {
		return nil, &NoSuchModelError{ModelID: id, ModelType: LanguageModel,
			Message: fmt.Sprintf("no such languageModel: %s (the provider makes no language models)", id)}
	}
	m, err := e.language.LanguageModel(modelID)
	if err != nil {
		return nil, err
	}
	if m == nil {
		return nil, &NoSuchModelError{ModelID: id, ModelType: LanguageModel}
	}
	if len(r.middleware) > 0 {
		m = middleware.Wrap(m, r.middleware...)
	}
	return m, nil
}

// EmbeddingModel returns the embedding model named id, "prefix:model",
// with the errors of [Registry.LanguageModel].
func (r *Registry) EmbeddingModel(id string) (provider.EmbeddingModel, error) {
	e, modelID, err := r.lookup(id, EmbeddingModel)
	if err != nil {
		return nil, err
	}
	if e.embedding == nil {
		return nil, &NoSuchModelError{ModelID: id, ModelType: EmbeddingModel,
			Message: fmt.Sprintf("no such embeddingModel: %s (the provider makes no embedding models)", id)}
	}
	m, err := e.embedding.EmbeddingModel(modelID)
	if err != nil {
		return nil, err
	}
	if m == nil {
		return nil, &NoSuchModelError{ModelID: id, ModelType: EmbeddingModel}
	}
	return m, nil
}

func (r *Registry) lookup(id string, kind ModelType) (entry, string, error) {
	prefix, modelID, ok := strings.Cut(id, r.separator)
	if !ok {
		return entry{}, "", &NoSuchModelError{ModelID: id, ModelType: kind,
			Message: fmt.Sprintf("invalid %s id for registry: %s (must be in the format \"providerId%smodelId\")", kind, id, r.separator)}
	}
	r.mu.RLock()
	e, found := r.providers[prefix]
	available := slices.Clone(r.order)
	r.mu.RUnlock()
	if !found {
		return entry{}, "", &NoSuchProviderError{ModelID: id, ModelType: kind, ProviderID: prefix, Available: available}
	}
	return e, modelID, nil
}

// ErrNoSuchModel is matched by every [*NoSuchModelError] and
// [*NoSuchProviderError] with errors.Is.
var ErrNoSuchModel = errors.New("registry: no such model")

// Is makes errors.Is(err, ErrNoSuchModel) true.
func (e *NoSuchModelError) Is(target error) bool { return target == ErrNoSuchModel }

// Is makes errors.Is(err, ErrNoSuchModel) true.
func (e *NoSuchProviderError) Is(target error) bool { return target == ErrNoSuchModel }

func asLanguage(p any) LanguageModelProvider {
	switch p := p.(type) {
	case LanguageModelProvider:
		return p
	case modelMaker:
		return languageFunc(func(id string) (provider.LanguageModel, error) { return p.Model(id), nil })
	}
	return nil
}

func asEmbedding(p any) EmbeddingModelProvider {
	switch p := p.(type) {
	case EmbeddingModelProvider:
		return p
	case embeddingMaker:
		return embeddingFunc(func(id string) (provider.EmbeddingModel, error) { return p.Embedding(id), nil })
	}
	return nil
}

type languageFunc func(string) (provider.LanguageModel, error)

func (f languageFunc) LanguageModel(id string) (provider.LanguageModel, error) { return f(id) }

type embeddingFunc func(string) (provider.EmbeddingModel, error)

func (f embeddingFunc) EmbeddingModel(id string) (provider.EmbeddingModel, error) { return f(id) }
