package registry_test

import (
	"fmt"

	"github.com/aisdkgo/ai/provider"
	"github.com/aisdkgo/ai/providers/anthropic"
	"github.com/aisdkgo/ai/providers/openai"
	"github.com/aisdkgo/ai/registry"
)

func Example() {
	reg := registry.New()
	reg.MustRegister("openai", openai.New())
	reg.MustRegister("anthropic", anthropic.New())
	reg.MustRegister("app", &registry.Custom{
		LanguageModels: map[string]provider.LanguageModel{
			"fast": registry.Alias(openai.New().Model("gpt-5-mini"),
				provider.CallOptions{Reasoning: provider.ReasoningLow}),
		},
	})

	model, _ := reg.LanguageModel("anthropic:claude-sonnet-4-5")
	fmt.Println(model.Provider(), model.ModelID())
	alias, _ := reg.LanguageModel("app:fast")
	fmt.Println(alias.ModelID())
	_, err := reg.LanguageModel("mistral:large")
	fmt.Println(err)
	// Output:
	// anthropic.messages claude-sonnet-4-5
	// gpt-5-mini
	// no such provider: mistral (available providers: openai,anthropic,app)
}
