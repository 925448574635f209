package providertest

import (
	"context"
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/aisdkgo/ai/provider"
)

// TestCutStreamClosesTextBlock cuts every protocol's stream in the middle
// of an event after a text delta: the open text block is closed before the
// finish part, the same way for every provider.
func TestCutStreamClosesTextBlock(t *testing.T) {
	for _, p := range protocols() {
		t.Run(p.name, func(t *testing.T) {
			rp := reply{events: p.partial("resp_1", "Hel"), tail: p.cutTail()}
			if p.binary != nil {
				rp.encode, rp.contentType = p.binary.encode, p.binary.contentType
			}
			srv := newFaultServer(t, p.path(true), rp)
			model := p.model(srv.URL, &http.Client{})
			res, err := model.Stream(context.Background(), &provider.CallOptions{Prompt: userPrompt("Say hello.")})
			require.NoError(t, err)
			var kinds []string
			textOpen := false
			endedBeforeFinish := false
			for part, err := range res.Stream {
				if err != nil {
					kinds = append(kinds, "error")
					break
				}
				kinds = append(kinds, part.PartType())
				switch part.(type) {
				case provider.TextStart:
					textOpen = true
				case provider.TextEnd:
					textOpen = false
				case provider.Finish:
					endedBeforeFinish = !textOpen
				}
			}
			assert.Contains(t, kinds, "text-start", "%v", kinds)
			assert.Contains(t, kinds, "finish", "%v", kinds)
			assert.True(t, endedBeforeFinish, "the text block is closed before finish: %v", kinds)
		})
	}
}
