// Command toolsearch shows tool search with deferred tools: thirty tools are
// registered, none of them is sent to the model at first, and the model
// discovers the ones it needs with a search tool.
//
// By default it runs on a built-in scripted model (no key, no network):
//
//	go run ./examples/toolsearch
//	go run ./examples/toolsearch -stream
//
// With a real model (the key comes from OPENAI_API_KEY, ANTHROPIC_API_KEY or
// GOOGLE_GENERATIVE_AI_API_KEY):
//
//	go run ./examples/toolsearch -provider openai -model gpt-5-mini
//	go run ./examples/toolsearch -provider anthropic -model claude-sonnet-4-5
//	go run ./examples/toolsearch -provider google -model gemini-2.5-flash
//	go run ./examples/toolsearch -provider compat -base-url http://localhost:11434/v1 -model qwen3
//
// Azure OpenAI takes a deployment name as the model, the resource from
// AZURE_RESOURCE_NAME (or -base-url) and the key from AZURE_API_KEY:
//
//	go run ./examples/toolsearch -provider azure -model my-gpt-5-mini-deployment
//
// Amazon Bedrock signs requests with the default AWS credentials
// (AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, a profile, SSO...) or uses
// a Bedrock API key from AWS_BEARER_TOKEN_BEDROCK; the region comes from
// AWS_REGION:
//
//	go run ./examples/toolsearch -provider bedrock -model us.anthropic.claude-sonnet-4-5-20250929-v1:0
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"log"
	"os"
	"strings"

	"github.com/aisdkgo/ai"
	"github.com/aisdkgo/ai/aitest"
	"github.com/aisdkgo/ai/provider"
	"github.com/aisdkgo/ai/providers/anthropic"
	"github.com/aisdkgo/ai/providers/azure"
	"github.com/aisdkgo/ai/providers/bedrock"
	"github.com/aisdkgo/ai/providers/google"
	"github.com/aisdkgo/ai/providers/openai"
	"github.com/aisdkgo/ai/providers/openaicompat"
)

type cityIn struct {
	City string `json:"city" jsonschema:"the city"`
}

type forecastOut struct {
	City     string `json:"city"`
	Forecast string `json:"forecast"`
}

type emailIn struct {
	To      string `json:"to" jsonschema:"the recipient's address"`
	Subject string `json:"subject"`
	Body    string `json:"body"`
}

// tools returns the search tool and thirty deferred tools.
func tools() ai.Tools {
	set := ai.Tools{
		{Name: "search", Tool: ai.ToolSearch()},
		{Name: "getForecast", Tool: ai.NewTool(ai.ToolDef[cityIn, forecastOut]{
			Description:  "Get the weather forecast for a city for tomorrow.",
			DeferLoading: true,
			Execute: func(_ context.Context, in cityIn, _ ai.ToolExecutionOptions) (forecastOut, error) {
				return forecastOut{City: in.City, Forecast: "heavy rain in the afternoon, 24°C"}, nil
			},
		})},
		{Name: "sendEmail", Tool: ai.NewTool(ai.ToolDef[emailIn, string]{
			Description:  "Send an email to a recipient.",
			DeferLoading: true,
			Execute: func(_ context.Context, in emailIn, _ ai.ToolExecutionOptions) (string, error) {
				return "queued email to " + in.To, nil
			},
		})},
	}
	others := []struct{ name, desc string }{
		{"createInvoice", "Create an invoice for a customer."},
		{"listInvoices", "List the invoices of a customer."},
		{"refundPayment", "Refund a card payment."},
		{"getCustomer", "Look up a customer by id or email."},
		{"updateCustomer", "Change a customer's contact details."},
		{"createTicket", "Open a support ticket."},
		{"closeTicket", "Close a support ticket."},
		{"searchTickets", "Search support tickets by keyword."},
		{"scheduleMeeting", "Schedule a calendar meeting."},
		{"cancelMeeting", "Cancel a calendar meeting."},
		{"listRepositories", "List the code repositories of a team."},
		{"createPullRequest", "Open a pull request."},
		{"deployService", "Deploy a service to production."},
		{"rollbackDeploy", "Roll back the last deployment of a service."},
		{"getShipment", "Track a shipment."},
		{"createOrder", "Place an order for a product."},
		{"cancelOrder", "Cancel an order."},
		{"getProduct", "Get a product's details and price."},
		{"translateText", "Translate text into another language."},
		{"summarizeDocument", "Summarize a document."},
		{"exportReport", "Export a sales report as CSV."},
		{"getExchangeRate", "Get the exchange rate between two currencies."},
		{"getAirQuality", "Get the air quality index for a city."},
		{"getTimeZone", "Get the time zone of a city."},
		{"postMessage", "Post a message to a chat channel."},
		{"createContact", "Add a contact to the address book."},
		{"getStockPrice", "Get the latest price of a stock."},
		{"bookFlight", "Book a flight between two cities."},
	}
	for _, o := range others {
		set = append(set, ai.NamedTool{Name: o.name, Tool: ai.NewTool(ai.ToolDef[map[string]any, string]{
			Description:  o.desc,
			DeferLoading: true,
			Execute: func(context.Context, map[string]any, ai.ToolExecutionOptions) (string, error) {
				return "done", nil
			},
		})})
	}
	return set
}

// scriptedModel stands in for a language model: it looks at the tools it
// is offered and the results it got, and answers like a model would.
func scriptedModel() provider.LanguageModel {
	offered := func(o *provider.CallOptions, name string) bool {
		for _, t := range o.Tools {
			if t.ToolName() == name {
				return true
			}
		}
		return false
	}
	return &aitest.Model{ModelName: "scripted", Respond: func(_ context.Context, call int, o *provider.CallOptions) (aitest.Response, error) {
		toolCall := func(id, name, input string) aitest.Response {
			return aitest.Response{
				Content:      []provider.Content{aitest.Text(""), aitest.ToolCall(id, name, input)},
				FinishReason: aitest.ToolCalls,
			}
		}
		switch {
		case call == 0:
			return toolCall("call-1", "search", `{"query":"weather forecast"}`), nil
		case call == 1 && offered(o, "getForecast"):
			return toolCall("call-2", "getForecast", `{"city":"Bangalore"}`), nil
		case call == 2:
			return toolCall("call-3", "search", `{"query":"send email"}`), nil
		case call == 3 && offered(o, "sendEmail"):
			return toolCall("call-4", "sendEmail",
				`{"to":"team@example.com","subject":"Rain tomorrow","body":"Heavy rain in Bangalore tomorrow afternoon. Bring umbrellas."}`), nil
		}
		return aitest.Response{Content: []provider.Content{aitest.Text(
			"Yes: heavy rain is expected in Bangalore tomorrow afternoon (24°C). I emailed the team to bring umbrellas.")}}, nil
	}}
}

func main() {
	providerName := flag.String("provider", "scripted", "scripted, openai, anthropic, google, azure, bedrock or compat")
	modelID := flag.String("model", "", "the model id (for a real provider)")
	baseURL := flag.String("base-url", "", "the server's base URL (compat; optional for openai, anthropic, google, azure and bedrock)")
	stream := flag.Bool("stream", false, "stream the answer as it arrives")
	flag.Parse()

	model, err := pickModel(*providerName, *modelID, *baseURL)
	if err != nil {
		log.Fatal(err)
	}
	opts := ai.GenerateTextOptions{
		Model:        model,
		Instructions: "You help with the weather and with email. Find the tools you need with the search tool.",
		Tools:        tools(),
		StopWhen:     ai.StepCountIs(8),
		Prompt:       "Will it rain in Bangalore tomorrow? If so, email team@example.com to bring umbrellas.",
		OnStepStart: func(e ai.StepStartEvent) {
			var names []string
			for _, t := range e.Tools {
				names = append(names, t.ToolName())
			}
			fmt.Printf("step %d: the model sees %d tools: %s\n", e.StepNumber, len(names), strings.Join(names, ", "))
		},
	}
	ctx := context.Background()
	if *stream {
		runStream(ctx, opts)
		return
	}
	opts.OnStepEnd = printStep
	res, err := ai.GenerateText(ctx, opts)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("\nanswer after %d steps: %s\n", len(res.Steps), res.Text)
}

func printStep(s *ai.StepResult) {
	for _, p := range s.Content {
		printTool(p)
	}
}

// printTool prints a tool call, result or error.
func printTool(p any) {
	switch p := p.(type) {
	case ai.ToolCall:
		if p.Invalid {
			fmt.Printf("  calls %s %s: invalid (%v)\n", p.ToolName, p.Input, p.Error)
		} else {
			fmt.Printf("  calls %s %s\n", p.ToolName, p.Input)
		}
	case ai.ToolResult:
		if found, ok := p.Output.(ai.ToolSearchResult); ok {
			var names []string
			for _, t := range found.Tools {
				names = append(names, t.Name)
			}
			fmt.Printf("  search found: %s (callable from the next step)\n", strings.Join(names, ", "))
		} else {
			out, _ := json.Marshal(p.Output)
			fmt.Printf("  %s returned %s\n", p.ToolName, out)
		}
	case ai.ToolError:
		fmt.Printf("  %s failed: %v\n", p.ToolName, p.Error)
	}
}

func runStream(ctx context.Context, opts ai.GenerateTextOptions) {
	res, err := ai.StreamText(ctx, opts)
	if err != nil {
		log.Fatal(err)
	}
	for part, err := range res.Parts() {
		if err != nil {
			log.Fatal(err)
		}
		switch p := part.(type) {
		case ai.TextDelta:
			fmt.Print(p.Delta)
		case ai.ToolCall, ai.ToolError:
			printTool(p)
		case ai.ToolResult:
			if !p.Preliminary {
				printTool(p)
			}
		case ai.ErrorPart:
			fmt.Printf("  error: %v\n", p.Err)
		case ai.FinishStep:
			if p.FinishReason == ai.FinishStop {
				fmt.Println()
			}
		}
	}
	steps, err := res.Steps()
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("\nfinished after %d steps\n", len(steps))
}

func pickModel(name, id, baseURL string) (provider.LanguageModel, error) {
	switch name {
	case "scripted":
		return scriptedModel(), nil
	case "openai":
		var opts []openai.Option
		if baseURL != "" {
			opts = append(opts, openai.WithBaseURL(baseURL))
		}
		return openai.New(opts...).Responses(orDefault(id, "gpt-5-mini")), nil
	case "anthropic":
		var opts []anthropic.Option
		if baseURL != "" {
			opts = append(opts, anthropic.WithBaseURL(baseURL))
		}
		return anthropic.New(opts...).Model(orDefault(id, "claude-sonnet-4-5")), nil
	case "google":
		var opts []google.Option
		if baseURL != "" {
			opts = append(opts, google.WithBaseURL(baseURL))
		}
		return google.New(opts...).Model(orDefault(id, "gemini-2.5-flash")), nil
	case "azure":
		if id == "" {
			return nil, fmt.Errorf("-provider azure needs -model with a deployment name")
		}
		var opts []azure.Option
		if baseURL != "" {
			opts = append(opts, azure.WithBaseURL(baseURL))
		}
		return azure.New(opts...).Model(id), nil
	case "bedrock":
		var opts []bedrock.Option
		if baseURL != "" {
			opts = append(opts, bedrock.WithBaseURL(baseURL))
		}
		return bedrock.New(opts...).Model(orDefault(id, "us.anthropic.claude-sonnet-4-5-20250929-v1:0")), nil
	case "compat":
		if baseURL == "" {
			return nil, fmt.Errorf("-provider compat needs -base-url")
		}
		opts := []openaicompat.Option{openaicompat.WithBaseURL(baseURL)}
		if key := os.Getenv("OPENAI_COMPATIBLE_API_KEY"); key != "" {
			opts = append(opts, openaicompat.WithAPIKey(key))
		}
		return openaicompat.New(opts...).Model(orDefault(id, "llama3.1")), nil
	}
	return nil, fmt.Errorf("unknown provider %q", name)
}

func orDefault(v, d string) string {
	if v == "" {
		return d
	}
	return v
}
