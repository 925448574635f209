package main

import (
	"context"
	"fmt"
	"hash/fnv"
	"log"
	"net/http"
	"os"
	"path/filepath"
	"sync"

	"github.com/aisdkgo/ai"
	"github.com/aisdkgo/ai/provider"
	_ "github.com/aisdkgo/ai/quickjs" // the engine of the code tool
	"github.com/aisdkgo/ai/uistream"
)

// Server is the chat backend: the built page and the chat routes, which
// uistream's chat handler serves.
type Server struct {
	mux     *http.ServeMux
	resumer *uistream.Resumer // nil without resumption

	mu     sync.Mutex
	sent   []Email  // the emails the agent sent
	forged []string // the ids of the tool results refused as forged
}

// Email is an email the sendEmail tool sent.
type Email struct {
	To      string `json:"to" jsonschema:"the recipient's address"`
	Subject string `json:"subject"`
	Body    string `json:"body"`
}

type cityIn struct {
	City string `json:"city" jsonschema:"the city"`
}

// Weather is what the weather tool reports.
type Weather struct {
	City        string `json:"city"`
	Temperature int    `json:"temperature"`
	Unit        string `json:"unit"`
	Condition   string `json:"condition"`
}

// NewServer returns the chat server for a model; webDir holds the built
// page. The server signs its approval requests with secret and runs an
// approved call only when the page sends back the signature of that call.
// With streams, an answer outlives its page: it is kept in streams while
// it is produced, a reloaded page resumes it and the stop button ends it;
// without, an answer stops when its page goes away.
func NewServer(model provider.LanguageModel, webDir string, secret []byte, streams uistream.StreamStore) *Server {
	s := &Server{mux: http.NewServeMux()}
	agent := ai.NewAgent(ai.AgentOptions{Settings: ai.GenerateTextOptions{
		Model: model,
		Instructions: "You help with the weather and with email. Find the tools you need with the toolSearch tool. " +
			"Answer in one or two sentences.",
		Tools: s.tools(),
		// Programs of the code tool may call the weather and email tools
		// too; a program that emails pauses until the email is approved.
		ToolCallers: []ai.CallerRoute{
			{Tool: "getWeather", Callers: []string{ai.DirectCall, "code"}},
			{Tool: "sendEmail", Callers: []string{ai.DirectCall, "code"}},
		},
		ToolApproval: &ai.ToolApproval{Tools: map[string]ai.ApprovalRule{
			"sendEmail": ai.Rule(ai.RequiresApproval.WithReason("The agent wants to send an email on your behalf.")),
		}},
		// They sign the approval requests and the tool results the page
		// keeps; only what this server signed is taken back.
		ToolApprovalSecrets: [][]byte{secret},
		// An approval posted twice runs its call once.
		ApprovalLedger: ai.NewApprovalLedger(0),
		StopWhen:       ai.StepCountIs(8),
	}})
	if streams != nil {
		s.resumer = &uistream.Resumer{Store: streams, OnFinish: func(streamID string, err error) {
			if err != nil {
				log.Printf("stream %s: %v", streamID, err)
			}
		}}
	}
	// The chats are kept in memory (ChatOptions.Store takes a database).
	chat := uistream.NewChatHandler(uistream.ChatOptions{
		Agent:       agent,
		Resumer:     s.resumer,
		RecordUsage: true,
		Convert: uistream.ConvertOptions{OnForgedResult: func(res uistream.StoredResult) {
			log.Printf("the result of tool call %s did not come from this server", res.ToolCallID)
			s.mu.Lock()
			s.forged = append(s.forged, res.ToolCallID)
			s.mu.Unlock()
		}},
		Stream: uistream.Options{OnError: func(err error) string {
			log.Printf("chat: %v", err)
			return uistream.DefaultErrorText
		}},
	})
	s.mux.Handle("POST /api/chat", chat)              // a turn
	s.mux.Handle("GET /api/chat/{id}/stream", chat)   // useChat's resume
	s.mux.Handle("POST /api/chat/{id}/stop", chat)    // the stop button
	s.mux.Handle("GET /api/chat/{id}/messages", chat) // a reopened chat
	s.mux.Handle("GET /", page(webDir))
	return s
}

// ServeHTTP serves the page and the chat routes.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) { s.mux.ServeHTTP(w, r) }

// Shutdown stops the answers that are streaming and waits for them.
func (s *Server) Shutdown(ctx context.Context) error {
	if s.resumer == nil {
		return nil
	}
	return s.resumer.Shutdown(ctx)
}

// Sent returns the emails sent so far.
func (s *Server) Sent() []Email {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Email(nil), s.sent...)
}

// Forged returns the ids of the tool results refused because they did not
// come from this server.
func (s *Server) Forged() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.forged...)
}

// tools returns the search tool, the code tool, a tool the model always sees, and
// deferred tools it has to find first.
func (s *Server) tools() ai.Tools {
	tools := ai.Tools{
		{Name: "toolSearch", Tool: ai.ToolSearch()},
		{Name: "code", Tool: ai.CodeMode(&ai.CodeModeOptions{
			Discovery:    ai.DiscoveryConversation,
			ApprovalMode: ai.CodeModeApprovalInterrupt,
		})},
		{Name: "getLocalTime", Tool: ai.NewTool(ai.ToolDef[cityIn, string]{
			Description: "Get the local time of a city.",
			Execute: func(context.Context, cityIn, ai.ToolExecutionOptions) (string, error) {
				return "12:00", nil
			},
		})},
		{Name: "getWeather", Tool: ai.NewTool(ai.ToolDef[cityIn, Weather]{
			Description:  "Get the current weather for a city.",
			DeferLoading: true,
			Execute: func(_ context.Context, in cityIn, _ ai.ToolExecutionOptions) (Weather, error) {
				return weatherIn(in.City), nil
			},
		})},
		{Name: "sendEmail", Tool: ai.NewTool(ai.ToolDef[Email, string]{
			Description:  "Send an email to a recipient.",
			DeferLoading: true,
			Execute: func(_ context.Context, e Email, _ ai.ToolExecutionOptions) (string, error) {
				s.mu.Lock()
				s.sent = append(s.sent, e)
				s.mu.Unlock()
				return "sent to " + e.To, nil
			},
		})},
	}
	for _, o := range []struct{ name, desc string }{
		{"getStockPrice", "Look up the latest price of a stock."},
		{"createInvoice", "Create an invoice for a customer."},
		{"bookFlight", "Book a flight between two cities."},
		{"translateText", "Translate text into another language."},
		{"createTicket", "Open a support ticket."},
	} {
		tools = append(tools, ai.NamedTool{Name: o.name, Tool: ai.NewTool(ai.ToolDef[map[string]any, string]{
			Description:  o.desc,
			DeferLoading: true,
			Execute: func(context.Context, map[string]any, ai.ToolExecutionOptions) (string, error) {
				return "done", nil
			},
		})})
	}
	return tools
}

// weatherIn makes up the weather of a city, the same every time.
func weatherIn(city string) Weather {
	h := fnv.New32a()
	h.Write([]byte(city))
	n := int(h.Sum32())
	conditions := []string{"sunny", "cloudy", "rainy", "windy"}
	return Weather{City: city, Temperature: 5 + n%25, Unit: "C", Condition: conditions[n/25%len(conditions)]}
}

// page serves the built page, or explains how to build it.
func page(dir string) http.Handler {
	files := http.FileServer(http.Dir(dir))
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if _, err := os.Stat(filepath.Join(dir, "index.html")); err != nil {
			w.Header().Set("Content-Type", "text/plain; charset=utf-8")
			w.WriteHeader(http.StatusNotFound)
			fmt.Fprintf(w, "The page is not built. Run:\n\n  cd examples/chat/web && npm ci && npm run build\n\n(looked in %s)\n", dir)
			return
		}
		files.ServeHTTP(w, r)
	})
}
