package conformance

import (
	"context"

	"github.com/aisdkgo/ai"
)

// stream runs a stream-mode generation and records its parts.
func (b *built) stream(ctx context.Context, opts ai.GenerateTextOptions, rec *recorder, trace map[string]any) error {
	return &ScenarioError{"stream mode is not supported yet"}
}
