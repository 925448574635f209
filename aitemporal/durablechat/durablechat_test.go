package durablechat_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/aisdkgo/ai/aitemporal"
	"github.com/aisdkgo/ai/aitemporal/durablechat"
	"github.com/aisdkgo/ai/uistream"
)

func put(t *testing.T, store uistream.StreamStore, id string, finish bool, chunks ...uistream.Chunk) {
	t.Helper()
	ctx := context.Background()
	require.NoError(t, store.Create(ctx, id))
	for _, c := range chunks {
		b, err := uistream.Marshal(c)
		require.NoError(t, err)
		require.NoError(t, store.Append(ctx, id, b))
	}
	if finish {
		require.NoError(t, store.Finish(ctx, id))
	}
}

func mark(kind string, step, attempt int) uistream.Chunk {
	return uistream.Data{Name: aitemporal.MarkerName, Data: aitemporal.Marker{Kind: kind, Step: step, Attempt: attempt}, Transient: true}
}

// TestResume serves a chat's stream from its start with the message id
// first and the markers gone, and answers 204 for a chat without one.
func TestResume(t *testing.T) {
	store := uistream.NewMemoryStore()
	active := &durablechat.MemoryActive{}
	h := durablechat.New(durablechat.Options{Store: store, Active: active})
	put(t, store, "wf", true,
		mark(aitemporal.MarkModel, 0, 1), uistream.TextStart{ID: "a"}, uistream.TextDelta{ID: "a", Delta: "Hi"},
		mark(aitemporal.MarkStep, 0, 0), uistream.TextStart{ID: "s0-0"}, uistream.TextDelta{ID: "s0-0", Delta: "Hi."}, uistream.TextEnd{ID: "s0-0"}, uistream.FinishStep{},
		mark(aitemporal.MarkFinish, 1, 0), uistream.Finish{FinishReason: "stop"})
	require.NoError(t, active.SetActive(context.Background(), "chat", durablechat.Active{WorkflowID: "wf", MessageID: "m1", StreamID: "wf"}))

	rec := httptest.NewRecorder()
	require.NoError(t, h.Resume(rec, httptest.NewRequest(http.MethodGet, "/api/chat/chat/stream", nil), "chat"))
	require.Equal(t, http.StatusOK, rec.Code)
	var msg uistream.Message
	for m, err := range uistream.ReadMessage(uistream.ReadChunks(rec.Body), nil) {
		require.NoError(t, err)
		msg = m
	}
	assert.Equal(t, "m1", msg.ID)
	require.Len(t, msg.Parts, 2)
	assert.Equal(t, "Hi.", msg.Parts[1].(uistream.TextPart).Text)
	assert.NotContains(t, rec.Body.String(), "data-aitemporal")

	rec = httptest.NewRecorder()
	require.NoError(t, h.Resume(rec, httptest.NewRequest(http.MethodGet, "/api/chat/other/stream", nil), "other"))
	assert.Equal(t, http.StatusNoContent, rec.Code)
}

// TestBadRequests: requests that cannot start or continue a run are
// refused before the server is asked.
func TestBadRequests(t *testing.T) {
	h := durablechat.New(durablechat.Options{Store: uistream.NewMemoryStore(), ToolApprovalSecrets: [][]byte{[]byte("s")}})
	user := `{"id":"u1","role":"user","parts":[{"type":"text","text":"Hi"}]}`
	approved := `{"id":"m1","role":"assistant","parts":[{"type":"tool-sendEmail","toolCallId":"c1","state":"approval-responded","input":{"to":"bob"},"approval":{"id":"a1","approved":true,"signature":"forged"}}]}`
	for name, body := range map[string]string{
		"no chat id":   `{"messages":[` + user + `]}`,
		"long chat id": `{"id":"` + strings.Repeat("x", 300) + `","messages":[` + user + `]}`,
		"no messages":  `{"id":"c","messages":[]}`,
		"forged":       `{"id":"c","messages":[` + user + `,` + approved + `]}`,
	} {
		t.Run(name, func(t *testing.T) {
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, httptest.NewRequest(http.MethodPost, "/api/chat", strings.NewReader(body)))
			assert.Equal(t, http.StatusBadRequest, rec.Code, rec.Body.String())
		})
	}
}

// TestMemoryActiveBound: the oldest chats make room.
func TestMemoryActiveBound(t *testing.T) {
	m := &durablechat.MemoryActive{Max: 2}
	ctx := context.Background()
	for _, id := range []string{"a", "b", "c"} {
		require.NoError(t, m.SetActive(ctx, id, durablechat.Active{StreamID: id}))
	}
	_, ok, _ := m.Active(ctx, "a")
	assert.False(t, ok)
	a, ok, _ := m.Active(ctx, "c")
	assert.True(t, ok)
	assert.Equal(t, "c", a.StreamID)
}
