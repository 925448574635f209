package providertest

import (
	"fmt"
	"net/http"
	"net/http/httptest"

	"github.com/aisdkgo/ai/provider"
	"github.com/aisdkgo/ai/providers/azure"
)

// azureWire is the Responses API as Azure OpenAI serves it: other URLs and
// the api-key header.
type azureWire struct{ responsesWire }

func (azureWire) name() string { return "azure" }
func (azureWire) path() string { return "/openai/responses" }

func (azureWire) model(srv *httptest.Server) provider.LanguageModel {
	return azure.New(azure.WithAPIKey("test-key"), azure.WithBaseURL(srv.URL+"/openai"),
		azure.WithHTTPClient(srv.Client())).Responses("gpt-4.1")
}

func (azureWire) checkHeaders(h http.Header) error {
	if got := h.Get("Api-Key"); got != "test-key" {
		return fmt.Errorf("api-key header %q", got)
	}
	if got := h.Get("Authorization"); got != "" {
		return fmt.Errorf("unexpected authorization header %q", got)
	}
	return nil
}
