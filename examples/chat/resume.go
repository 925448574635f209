package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"iter"
	"log"
	"net/http"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/aisdkgo/ai"
	"github.com/aisdkgo/ai/uistream"
	"github.com/aisdkgo/ai/uistream/redisstore"
)

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

// maxChats bounds the chats the server remembers; the oldest is
// forgotten first.
const maxChats = 1000

// chats remembers, for each chat, the conversation as the page last
// posted it and the id of its latest stream, so that a reloaded page gets
// its messages back and resumes the answer that is still streaming (or
// replays the last one).
type chats struct {
	mu    sync.Mutex
	byID  map[string]*chatRecord
	order []string
}

type chatRecord struct {
	messages []uistream.Message
	stream   string
}

func (c *chats) get(id string) (chatRecord, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	r, ok := c.byID[id]
	if !ok {
		return chatRecord{}, false
	}
	return *r, true
}

// update changes the record of a chat, making one if needed.
func (c *chats) update(id string, f func(*chatRecord)) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.byID == nil {
		c.byID = map[string]*chatRecord{}
	}
	r, ok := c.byID[id]
	if !ok {
		if len(c.order) >= maxChats {
			delete(c.byID, c.order[0])
			c.order = c.order[1:]
		}
		r = &chatRecord{}
		c.byID[id] = r
		c.order = append(c.order, id)
	}
	f(r)
}

// EnableResume makes the answers outlive the page that asked: each one is
// kept in store while it streams, a reloaded page resumes it (GET
// /api/chat/{id}/stream) and the stop button ends it (POST
// /api/chat/{id}/stop). Without it, an answer stops when its page goes
// away. Call it before serving.
func (s *Server) EnableResume(store uistream.StreamStore) {
	s.resumer = &uistream.Resumer{
		Store: store,
		OnFinish: func(streamID string, err error) {
			if err != nil {
				log.Printf("stream %s: %v", streamID, err)
			}
		},
	}
}

// Shutdown stops the answers that are streaming and waits for them.
func (s *Server) Shutdown(ctx context.Context) error {
	if s.resumer == nil {
		return nil
	}
	return s.resumer.Shutdown(ctx)
}

// resumeRoutes adds the routes of the page's history, resumption and stop
// button. They answer without resumption too: nothing to resume (204), a
// stop that the page's own abort already did.
func (s *Server) resumeRoutes() {
	s.mux.HandleFunc("GET /api/history/{id}", s.history)
	s.mux.HandleFunc("GET /api/chat/{id}/stream", s.resumeStream)
	s.mux.HandleFunc("POST /api/chat/{id}/stop", s.stop)
}

// history answers the messages of a chat as the page last posted them
// (an empty list for a chat the server does not know).
func (s *Server) history(w http.ResponseWriter, r *http.Request) {
	rec, _ := s.chats.get(r.PathValue("id"))
	msgs := rec.messages
	if msgs == nil {
		msgs = []uistream.Message{}
	}
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(msgs)
}

// resumeStream answers useChat's resume request with the chat's latest
// stream, from its start.
func (s *Server) resumeStream(w http.ResponseWriter, r *http.Request) {
	rec, _ := s.chats.get(r.PathValue("id"))
	if s.resumer == nil || rec.stream == "" {
		w.WriteHeader(http.StatusNoContent)
		return
	}
	if err := s.resumer.Serve(w, r, rec.stream); err != nil && r.Context().Err() == nil {
		log.Printf("chat %s: resuming stream %s: %v", r.PathValue("id"), rec.stream, err)
	}
}

// stop ends the answer that is streaming in a chat.
func (s *Server) stop(w http.ResponseWriter, r *http.Request) {
	rec, _ := s.chats.get(r.PathValue("id"))
	if s.resumer != nil && rec.stream != "" {
		if err := s.resumer.Stop(r.Context(), rec.stream); err != nil && !errors.Is(err, uistream.ErrStreamNotFound) {
			log.Printf("chat %s: stopping stream %s: %v", r.PathValue("id"), rec.stream, err)
			uistream.WriteError(w, err)
			return
		}
	}
	w.WriteHeader(http.StatusNoContent)
}

// streamResumable runs a turn through the store: the answer goes on when
// the page goes away, and this response reads it from the store like a
// resumed one.
func (s *Server) streamResumable(w http.ResponseWriter, r *http.Request, chatID string, msgs []ai.Message, opts *uistream.Options) {
	streamID := uistream.NewID()
	err := s.resumer.Start(r.Context(), streamID, func(ctx context.Context) (iter.Seq2[ai.Part, error], error) {
		res, err := s.agent.Stream(ctx, ai.AgentCall{Messages: msgs})
		if err != nil {
			return nil, err
		}
		return res.Parts(), nil
	}, opts)
	if errors.Is(err, uistream.ErrTooManyStreams) {
		uistream.WriteError(w, &uistream.RequestError{Status: http.StatusServiceUnavailable, Message: "too many answers are streaming; try again later"})
		return
	}
	if err != nil {
		log.Printf("chat %s: %v", chatID, err)
		uistream.WriteError(w, err)
		return
	}
	s.chats.update(chatID, func(c *chatRecord) { c.stream = streamID })
	if err := s.resumer.Serve(w, r, streamID); err != nil && r.Context().Err() == nil {
		log.Printf("chat %s: %v", chatID, err)
	}
}
