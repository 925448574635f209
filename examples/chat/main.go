// Command chat serves a web chat (React with the AI SDK's useChat hook)
// from a Go backend: the page posts each turn to /api/chat, and the server
// answers with the UI message stream of a tool-search agent. The agent
// finds its tools with a search tool, and sending an email waits for the
// user's approval in the page, also when a code mode program the agent
// wrote sends it (ask for a script: the program pauses at the email and
// resumes once the user approved it).
//
// Build the page once, then start the server (a scripted model by default:
// no key, no network):
//
//	(cd examples/chat/web && npm ci && npm run build)
//	go run ./examples/chat
//
// and open http://127.0.0.1:8080. The backend is uistream's chat handler
// (server.go). An answer goes on streaming when the page is reloaded or
// closed, and the reloaded page gets the chat back and resumes the answer:
// the streams are kept in memory, or in Redis with -redis host:port (or
// CHAT_REDIS_ADDR); -resume=false turns this off (an answer then stops
// when its page goes away). The chats themselves are kept in this
// process's memory. The server signs the approval requests it sends to
// the page and runs a call only when the page answers with that
// signature; set CHAT_APPROVAL_SECRET to keep the secret across restarts
// and servers. With a real model (the key comes from
// OPENAI_API_KEY or ANTHROPIC_API_KEY):
//
//	go run ./examples/chat -provider openai -model gpt-5-mini
//	go run ./examples/chat -provider anthropic -model claude-sonnet-4-5
//	go run ./examples/chat -provider compat -base-url http://localhost:11434/v1 -model qwen3
package main

import (
	"context"
	"crypto/rand"
	"errors"
	"flag"
	"fmt"
	"log"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/aisdkgo/ai/provider"
	"github.com/aisdkgo/ai/providers/anthropic"
	"github.com/aisdkgo/ai/providers/openai"
	"github.com/aisdkgo/ai/providers/openaicompat"
	"github.com/aisdkgo/ai/uistream"
	"github.com/aisdkgo/ai/uistream/redisstore"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:8080", "the address to listen on")
	providerName := flag.String("provider", "scripted", "scripted, openai, anthropic or compat")
	modelID := flag.String("model", "", "the model id (for a real provider)")
	baseURL := flag.String("base-url", "", "the server's base URL (compat; optional for openai and anthropic)")
	web := flag.String("web", defaultWebDir(), "the folder of the built page")
	pace := flag.Duration("pace", 30*time.Millisecond, "the pause between the scripted model's stream parts")
	resume := flag.Bool("resume", true, "keep answers streaming when the page goes away, and let a reloaded page resume them")
	redisAddr := flag.String("redis", os.Getenv("CHAT_REDIS_ADDR"), "keep the streams in the Redis server at this address (host:port) instead of in memory")
	flag.Parse()

	model, err := pickModel(*providerName, *modelID, *baseURL, *pace)
	if err != nil {
		log.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(*web, "index.html")); err != nil {
		log.Printf("the page is not built (%s); run: cd examples/chat/web && npm ci && npm run build", *web)
	}
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		log.Fatal(err)
	}
	var streams uistream.StreamStore
	if *resume {
		if streams, err = streamStore(*redisAddr); err != nil {
			log.Fatal(err)
		}
	}
	chat := NewServer(model, *web, approvalSecret(), streams)
	srv := &http.Server{Handler: chat, ReadHeaderTimeout: 10 * time.Second}
	log.Printf("chat on http://%s (model %s %s)", ln.Addr(), model.Provider(), model.ModelID())
	if err := srv.Serve(ln); !errors.Is(err, http.ErrServerClosed) {
		log.Fatal(err)
	}
}

// streamStore is the store of the streams: in memory, or in the Redis
// server at redisAddr when it is set.
func streamStore(redisAddr string) (uistream.StreamStore, error) {
	if redisAddr == "" {
		return uistream.NewMemoryStore(), nil
	}
	client := redis.NewClient(&redis.Options{Addr: redisAddr})
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := client.Ping(ctx).Err(); err != nil {
		client.Close()
		return nil, fmt.Errorf("the Redis server at %s: %w", redisAddr, err)
	}
	return redisstore.New(client, nil), nil
}

// approvalSecret is the secret approval requests are signed with: from
// CHAT_APPROVAL_SECRET, so that approvals survive a restart and work across
// several servers, or else a random one for this process.
func approvalSecret() []byte {
	if s := os.Getenv("CHAT_APPROVAL_SECRET"); s != "" {
		return []byte(s)
	}
	secret := make([]byte, 32)
	if _, err := rand.Read(secret); err != nil {
		log.Fatal(err)
	}
	log.Print("CHAT_APPROVAL_SECRET is not set: approvals are signed with a random secret and will not survive a restart")
	return secret
}

// defaultWebDir is the page's build folder next to this file's source.
func defaultWebDir() string {
	_, file, _, ok := runtime.Caller(0)
	if !ok {
		return filepath.Join("examples", "chat", "web", "dist")
	}
	return filepath.Join(filepath.Dir(file), "web", "dist")
}

func pickModel(name, id, baseURL string, pace time.Duration) (provider.LanguageModel, error) {
	switch name {
	case "scripted":
		return scriptedModel(pace), nil
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
