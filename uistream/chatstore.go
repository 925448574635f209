package uistream

import (
	"container/list"
	"context"
	"fmt"
	"sync"
)

// Chat is what a [ChatStore] keeps of one chat.
type Chat struct {
	// Messages are the chat's messages, oldest first.
	Messages []Message `json:"messages"`
	// ActiveStreamID is the id of the stream of the turn that is running
	// ("" when none): what a reloaded page resumes. Only a chat handler
	// with a [Resumer] sets it.
	ActiveStreamID string `json:"activeStreamId,omitempty"`
}

// A ChatStore keeps the chats that a chat handler ([NewChatHandler])
// serves. The handler loads a chat when a turn starts and saves it when
// the turn starts (with a [Resumer]: the posted message and the id of the
// turn's stream) and when it ends (the messages with the answer, no
// active stream). [MemoryChatStore] keeps them in this process; a
// database makes them last and shares them between servers.
//
// The methods are safe for concurrent use.
type ChatStore interface {
	// Load returns a chat. A chat the store does not hold is an empty
	// Chat and no error.
	Load(ctx context.Context, chatID string) (Chat, error)
	// Save replaces a chat. The store must not keep references to the
	// messages' contents past the call when the caller may change them;
	// the handler never changes what it saved.
	Save(ctx context.Context, chatID string, chat Chat) error
}

// Defaults of a [MemoryChatStore].
const (
	DefaultMaxChats        = 10_000
	DefaultMaxChatMessages = 10_000
)

// MemoryChatStore is a [ChatStore] in this process, the default of
// [NewChatHandler]: the chats last until the process ends, and only this
// server sees them. It is bounded: at most MaxChats chats, the one saved
// least recently is forgotten first; a chat of more than MaxMessages
// messages is not saved (ErrStoreFull). Set the fields before first use;
// the zero value uses the defaults.
type MemoryChatStore struct {
	// MaxChats bounds the chats held. Zero means DefaultMaxChats.
	MaxChats int
	// MaxMessages bounds the messages of one chat. Zero means
	// DefaultMaxChatMessages.
	MaxMessages int

	mu    sync.Mutex
	chats map[string]*list.Element // of *storedChat
	order list.List                // least recently saved first
}

type storedChat struct {
	id   string
	chat Chat
}

// NewMemoryChatStore returns an empty store with the default bounds.
func NewMemoryChatStore() *MemoryChatStore { return &MemoryChatStore{} }

// Load returns a copy of the stored chat.
func (s *MemoryChatStore) Load(_ context.Context, chatID string) (Chat, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	e, ok := s.chats[chatID]
	if !ok {
		return Chat{}, nil
	}
	return copyChat(e.Value.(*storedChat).chat), nil
}

// Save stores a copy of the chat.
func (s *MemoryChatStore) Save(_ context.Context, chatID string, chat Chat) error {
	maxMsgs := s.MaxMessages
	if maxMsgs <= 0 {
		maxMsgs = DefaultMaxChatMessages
	}
	if len(chat.Messages) > maxMsgs {
		return fmt.Errorf("%w: chat %s has %d messages (at most %d)", ErrStoreFull, chatID, len(chat.Messages), maxMsgs)
	}
	chat = copyChat(chat)
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.chats == nil {
		s.chats = map[string]*list.Element{}
	}
	if e, ok := s.chats[chatID]; ok {
		e.Value.(*storedChat).chat = chat
		s.order.MoveToBack(e)
		return nil
	}
	maxChats := s.MaxChats
	if maxChats <= 0 {
		maxChats = DefaultMaxChats
	}
	for s.order.Len() >= maxChats {
		oldest := s.order.Front()
		delete(s.chats, oldest.Value.(*storedChat).id)
		s.order.Remove(oldest)
	}
	s.chats[chatID] = s.order.PushBack(&storedChat{id: chatID, chat: chat})
	return nil
}

// copyChat copies a chat deeply enough that neither side sees the other's
// changes to messages or parts.
func copyChat(c Chat) Chat {
	if c.Messages != nil {
		msgs := make([]Message, len(c.Messages))
		for i, m := range c.Messages {
			msgs[i] = cloneMessage(m)
		}
		c.Messages = msgs
	}
	return c
}
