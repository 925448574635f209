package registry_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/aisdkgo/ai/aitest"
	"github.com/aisdkgo/ai/middleware"
	"github.com/aisdkgo/ai/provider"
	"github.com/aisdkgo/ai/providers/openai"
	"github.com/aisdkgo/ai/registry"
)

// fakeProvider has the Model and Embedding methods of the provider
// packages and records the ids it was asked for.
type fakeProvider struct {
	name  string
	asked []string
}

func (p *fakeProvider) Model(id string) provider.LanguageModel {
	p.asked = append(p.asked, id)
	return &aitest.Model{ProviderName: p.name, ModelName: id,
		Responses: []aitest.Response{{Content: []provider.Content{aitest.Text("hi")}}}}
}

func (p *fakeProvider) Embedding(id string) provider.EmbeddingModel {
	return &aitest.EmbeddingModel{ProviderName: p.name, ModelName: id}
}

type languageOnly struct{}

func (languageOnly) Model(id string) provider.LanguageModel { return &aitest.Model{ModelName: id} }

func TestRegistry(t *testing.T) {
	ctx := context.Background()

	t.Run("resolves prefix and model", func(t *testing.T) {
		a, b := &fakeProvider{name: "a"}, &fakeProvider{name: "b"}
		reg := registry.New().MustRegister("a", a).MustRegister("b", b)
		m, err := reg.LanguageModel("b:model:with:colons")
		if err != nil {
			t.Fatal(err)
		}
		if m.Provider() != "b" || m.ModelID() != "model:with:colons" {
			t.Fatalf("got %s/%s", m.Provider(), m.ModelID())
		}
		if len(a.asked) != 0 || len(b.asked) != 1 {
			t.Fatalf("asked a=%v b=%v", a.asked, b.asked)
		}
		e, err := reg.EmbeddingModel("a:emb")
		if err != nil || e.Provider() != "a" || e.ModelID() != "emb" {
			t.Fatalf("embedding: %v %v", e, err)
		}
		if got := strings.Join(reg.Providers(), ","); got != "a,b" {
			t.Fatalf("providers %q", got)
		}
	})

	t.Run("real provider packages register", func(t *testing.T) {
		reg := registry.New().MustRegister("openai", openai.New(openai.WithAPIKey("k")))
		m, err := reg.LanguageModel("openai:gpt-5-mini")
		if err != nil || m.Provider() != "openai.responses" || m.ModelID() != "gpt-5-mini" {
			t.Fatalf("%v %v", m, err)
		}
		e, err := reg.EmbeddingModel("openai:text-embedding-3-small")
		if err != nil || e.Provider() != "openai.embedding" {
			t.Fatalf("%v %v", e, err)
		}
	})

	t.Run("errors name what is registered", func(t *testing.T) {
		reg := registry.New().MustRegister("openai", &fakeProvider{}).MustRegister("anthropic", &fakeProvider{})
		_, err := reg.LanguageModel("mistral:large")
		var np *registry.NoSuchProviderError
		if !errors.As(err, &np) || np.ProviderID != "mistral" || strings.Join(np.Available, ",") != "openai,anthropic" {
			t.Fatalf("err = %v", err)
		}
		if err.Error() != "no such provider: mistral (available providers: openai,anthropic)" {
			t.Fatalf("message %q", err)
		}
		if !errors.Is(err, registry.ErrNoSuchModel) {
			t.Fatal("not ErrNoSuchModel")
		}
		_, err = reg.EmbeddingModel("gpt-5")
		var nm *registry.NoSuchModelError
		if !errors.As(err, &nm) || nm.ModelType != registry.EmbeddingModel ||
			err.Error() != `invalid embeddingModel id for registry: gpt-5 (must be in the format "providerId:modelId")` {
			t.Fatalf("err = %v", err)
		}
		reg.MustRegister("lang", languageOnly{})
		if _, err := reg.EmbeddingModel("lang:x"); !errors.As(err, &nm) {
			t.Fatalf("language-only provider gave embedding: %v", err)
		}
	})

	t.Run("register rejects bad input", func(t *testing.T) {
		reg := registry.New()
		if err := reg.Register("", &fakeProvider{}); err == nil {
			t.Fatal("empty prefix accepted")
		}
		if err := reg.Register("a:b", &fakeProvider{}); err == nil {
			t.Fatal("prefix with separator accepted")
		}
		if err := reg.Register("x", 42); err == nil {
			t.Fatal("non-provider accepted")
		}
	})

	t.Run("custom separator", func(t *testing.T) {
		reg := registry.New(registry.WithSeparator(" > ")).MustRegister("p", &fakeProvider{name: "p"})
		m, err := reg.LanguageModel("p > m:1")
		if err != nil || m.ModelID() != "m:1" {
			t.Fatalf("%v %v", m, err)
		}
		if _, err := reg.LanguageModel("p:m"); err == nil {
			t.Fatal("default separator accepted")
		}
	})

	t.Run("aliases with default settings and fallback", func(t *testing.T) {
		base := aitest.NewModel(aitest.Response{Content: []provider.Content{aitest.Text("ok")}})
		emb := &aitest.EmbeddingModel{}
		fallback := &fakeProvider{name: "fb"}
		custom := &registry.Custom{
			LanguageModels: map[string]provider.LanguageModel{
				"fast": registry.Alias(base, provider.CallOptions{Temperature: new(0.25), MaxOutputTokens: new(100),
					ProviderOptions: provider.ProviderOptions{"x": {"a": 1, "b": 2}}}),
			},
			EmbeddingModels: map[string]provider.EmbeddingModel{
				"small": registry.EmbeddingAlias(emb, provider.EmbedCallOptions{Dimensions: 64,
					ProviderOptions: provider.ProviderOptions{"x": {"a": 1}}}),
			},
			Fallback: fallback,
		}
		reg := registry.New().MustRegister("app", custom)
		m, err := reg.LanguageModel("app:fast")
		if err != nil {
			t.Fatal(err)
		}
		if _, err := m.Generate(ctx, &provider.CallOptions{MaxOutputTokens: new(7),
			ProviderOptions: provider.ProviderOptions{"x": {"b": 3}}}); err != nil {
			t.Fatal(err)
		}
		call := base.Calls()[0]
		if *call.Temperature != 0.25 || *call.MaxOutputTokens != 7 ||
			call.ProviderOptions["x"]["a"] != 1 || call.ProviderOptions["x"]["b"] != 3 {
			t.Fatalf("defaults not applied: temp=%v max=%v po=%v", *call.Temperature, *call.MaxOutputTokens, call.ProviderOptions)
		}
		e, err := reg.EmbeddingModel("app:small")
		if err != nil {
			t.Fatal(err)
		}
		res, err := e.Embed(ctx, &provider.EmbedCallOptions{Values: []string{"a"}})
		if err != nil {
			t.Fatal(err)
		}
		if got := emb.Calls()[0]; got.Dimensions != 64 || got.ProviderOptions["x"]["a"] != 1 || len(res.Embeddings) != 1 {
			t.Fatalf("embedding defaults not applied: %+v", got)
		}
		m2, err := reg.LanguageModel("app:other")
		if err != nil || m2.Provider() != "fb" || m2.ModelID() != "other" {
			t.Fatalf("fallback: %v %v", m2, err)
		}
		noFallback := registry.New().MustRegister("app", &registry.Custom{})
		_, err = noFallback.LanguageModel("app:fast")
		var nm *registry.NoSuchModelError
		if !errors.As(err, &nm) || nm.ModelID != "fast" || nm.ModelType != registry.LanguageModel {
			t.Fatalf("err = %v", err)
		}
	})

	t.Run("registry middleware wraps every language model", func(t *testing.T) {
		inner := aitest.NewModel(aitest.Response{Content: []provider.Content{aitest.Text("ok")}})
		custom := &registry.Custom{LanguageModels: map[string]provider.LanguageModel{"m": inner}}
		reg := registry.New(registry.WithLanguageModelMiddleware(
			middleware.DefaultSettings(provider.CallOptions{Seed: new(9)}))).MustRegister("c", custom)
		m, err := reg.LanguageModel("c:m")
		if err != nil {
			t.Fatal(err)
		}
		if _, err := m.Generate(ctx, &provider.CallOptions{}); err != nil {
			t.Fatal(err)
		}
		if s := inner.Calls()[0].Seed; s == nil || *s != 9 {
			t.Fatalf("seed %v", s)
		}
	})
}
