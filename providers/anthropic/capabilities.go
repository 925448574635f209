package anthropic

import "github.com/aisdkgo/ai/internal/claude"

// capabilities describes what a model accepts; see [claude.Capabilities].
type capabilities = claude.Capabilities

// modelCapabilities looks a model id up by family.
func modelCapabilities(id string) capabilities { return claude.ModelCapabilities(id) }
