package bedrock

import (
	_ "embed"
	"encoding/json"
	"strings"

	"github.com/aisdkgo/ai/provider"
)

// anthropicToolSchemas holds the input schemas of Anthropic's
// provider-defined tools, by tool id, as Anthropic defines them. A Claude
// model on Bedrock gets such a tool as an ordinary tool spec with this
// schema.
//
//go:embed anthropictools.json
var anthropicToolSchemasJSON []byte

var anthropicToolSchemas = func() map[string]json.RawMessage {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(anthropicToolSchemasJSON, &m); err != nil {
		panic("bedrock: anthropictools.json: " + err.Error())
	}
	return m
}()

// anthropicToolBetas are the anthropic-beta features Anthropic's
// provider-defined tools need.
var anthropicToolBetas = map[string]string{
	"anthropic.advisor_20260301":        "advisor-tool-2026-03-01",
	"anthropic.bash_20241022":           "computer-use-2024-10-22",
	"anthropic.bash_20250124":           "computer-use-2025-01-24",
	"anthropic.code_execution_20250522": "code-execution-2025-05-22",
	"anthropic.code_execution_20250825": "code-execution-2025-08-25",
	"anthropic.computer_20241022":       "computer-use-2024-10-22",
	"anthropic.computer_20250124":       "computer-use-2025-01-24",
	"anthropic.computer_20251124":       "computer-use-2025-11-24",
	"anthropic.memory_20250818":         "context-management-2025-06-27",
	"anthropic.text_editor_20241022":    "computer-use-2024-10-22",
	"anthropic.text_editor_20250124":    "computer-use-2025-01-24",
	"anthropic.text_editor_20250429":    "computer-use-2025-01-24",
	"anthropic.web_fetch_20250910":      "web-fetch-2025-09-10",
	"anthropic.web_fetch_20260209":      "code-execution-web-tools-2026-02-09",
	"anthropic.web_search_20260209":     "code-execution-web-tools-2026-02-09",
}

// notOnBedrock are the Anthropic tools Bedrock does not run.
var notOnBedrock = map[string]bool{
	"anthropic.web_search_20250305": true,
	"anthropic.web_search_20260318": true,
	"anthropic.web_fetch_20260318":  true,
}

// anthropicTools is what Anthropic's provider-defined tools add to a
// request for a Claude model: their tool specs, the tool choice in
// Anthropic's form (for additionalModelRequestFields, nil for none) and
// the beta features they need, in the order of the tools.
type anthropicTools struct {
	specs      []any
	toolChoice map[string]any
	betas      []string
}

// prepareAnthropicTools declares the provider tools all (of which
// forRequest are sent) the way Anthropic's own API would choose among
// them: the choice is Anthropic's tool_choice, a forced choice of a model
// that rejects it becomes auto with a warning, and an unknown tool is left
// out with a warning.
func prepareAnthropicTools(all, forRequest []*provider.ProviderTool, choice provider.ToolChoice, rejectsForced, disableParallel bool, warn func(provider.Warning)) anthropicTools {
	var out anthropicTools
	seen := map[string]bool{}
	for _, t := range all {
		if _, ok := anthropicToolSchemas[t.ID]; !ok {
			warn(provider.Warning{Type: "unsupported", Feature: "provider-defined tool " + t.ID})
			continue
		}
		if b := anthropicToolBetas[t.ID]; b != "" && !seen[b] {
			seen[b] = true
			out.betas = append(out.betas, b)
		}
	}
	choiceOf := func(typ string) map[string]any {
		tc := map[string]any{"type": typ}
		if disableParallel {
			tc["disable_parallel_tool_use"] = true
		}
		return tc
	}
	switch choice.Type {
	case "":
		if disableParallel {
			out.toolChoice = choiceOf("auto")
		}
	case provider.ToolChoiceAuto:
		out.toolChoice = choiceOf("auto")
	case provider.ToolChoiceRequired:
		if rejectsForced {
			warn(provider.Warning{Type: "unsupported", Feature: "toolChoice",
				Details: "toolChoice 'required' is not supported by this model because it rejects forced tool use. Using 'auto' instead. Instruct the model to use a tool in the prompt and verify that a tool call was made."})
			out.toolChoice = choiceOf("auto")
		} else {
			out.toolChoice = choiceOf("any")
		}
	case provider.ToolChoiceTool:
		if rejectsForced {
			warn(provider.Warning{Type: "unsupported", Feature: "toolChoice",
				Details: "toolChoice 'tool' is not supported by this model because it rejects forced tool use. Only the '" + choice.ToolName + "' tool is sent with 'auto' tool choice. Instruct the model to use the tool in the prompt and verify that a tool call was made."})
			out.toolChoice = choiceOf("auto")
		} else {
			out.toolChoice = choiceOf("tool")
			out.toolChoice["name"] = choice.ToolName
		}
	}
	for _, t := range forRequest {
		schema, ok := anthropicToolSchemas[t.ID]
		if !ok {
			continue
		}
		out.specs = append(out.specs, map[string]any{"toolSpec": map[string]any{
			"name": t.Name, "inputSchema": map[string]any{"json": schema}}})
	}
	return out
}

// notOnBedrockWarning is the warning for an Anthropic tool Bedrock lacks.
func notOnBedrockWarning(id string) provider.Warning {
	name := strings.TrimPrefix(id, "anthropic.")
	return provider.Warning{Type: "unsupported", Feature: name + " tool",
		Details: "The " + name + " tool is not supported on Amazon Bedrock."}
}
