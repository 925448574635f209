package providertest

import (
	"context"
	"errors"
	"net/http"
	"testing"

	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/aisdkgo/ai"
	"github.com/aisdkgo/ai/middleware"
	"github.com/aisdkgo/ai/provider"
)

// abandonedStreams is how many streams each protocol starts and never
// reads.
const abandonedStreams = 200

// TestAbandonedStreamsLeaveNothing starts streams that are never ranged
// over and cancels their contexts: no goroutine and no connection of
// theirs may be left.
func TestAbandonedStreamsLeaveNothing(t *testing.T) {
	for _, p := range protocols() {
		t.Run(p.name, func(t *testing.T) {
			before := goleak.IgnoreCurrent()
			rp := partialReply(p)
			srv := newFaultServer(t, p.path(true), rp)
			transport := &http.Transport{}
			model := p.model(srv.URL, &http.Client{Transport: transport})
			for range abandonedStreams {
				ctx, cancel := context.WithCancel(t.Context())
				res, err := model.Stream(ctx, &provider.CallOptions{Prompt: userPrompt("Say hello.")})
				require.NoError(t, err)
				require.NotNil(t, res.Stream)
				cancel()
			}
			transport.CloseIdleConnections()
			srv.waitClosed(t)
			srv.Close()
			goleak.VerifyNone(t, before)
		})
	}
}

// TestFailingStreamMiddlewareLeavesNothing runs StreamText through a
// middleware that starts the model's stream and then fails, by returning an
// error or by panicking: the stream it dropped must not outlive the call.
func TestFailingStreamMiddlewareLeavesNothing(t *testing.T) {
	failure := errors.New("middleware refused the stream")
	cases := map[string]func() (*provider.StreamResult, error){
		"error": func() (*provider.StreamResult, error) { return nil, failure },
		"panic": func() (*provider.StreamResult, error) { panic(failure) },
	}
	noRetries := 0
	for name, fail := range cases {
		for _, p := range protocols() {
			t.Run(name+"/"+p.name, func(t *testing.T) {
				before := goleak.IgnoreCurrent()
				rp := partialReply(p)
				srv := newFaultServer(t, p.path(true), rp)
				transport := &http.Transport{}
				model := middleware.Wrap(p.model(srv.URL, &http.Client{Transport: transport}), middleware.New(middleware.Hooks{
					WrapStream: func(ctx context.Context, next provider.LanguageModel, opts *provider.CallOptions) (*provider.StreamResult, error) {
						if _, err := next.Stream(ctx, opts); err != nil {
							return nil, err
						}
						return fail()
					},
				}))
				for range 20 {
					s, err := ai.StreamText(t.Context(), ai.StreamTextOptions{Model: model, Prompt: "Say hello.", MaxRetries: &noRetries})
					require.NoError(t, err)
					var streamErr error
					for _, err := range s.Parts() {
						if err != nil {
							streamErr = err
						}
					}
					_, err = s.Wait()
					if err == nil {
						err = streamErr
					}
					require.Error(t, err)
				}
				transport.CloseIdleConnections()
				srv.waitClosed(t)
				srv.Close()
				goleak.VerifyNone(t, before)
			})
		}
	}
}

// waitGone keeps a response open until the client goes away.
func waitGone(_ http.ResponseWriter, r *http.Request) { <-r.Context().Done() }

// userPrompt is a prompt of one user message.
func userPrompt(text string) []provider.Message {
	return []provider.Message{provider.UserMessage{Content: []provider.UserPart{provider.TextPart{Text: text}}}}
}

// partialReply is the beginning of a streamed answer that never ends, in
// the protocol's framing.
func partialReply(p protocol) reply {
	rp := reply{events: p.partial("resp_1", "Hello"), then: waitGone}
	if p.binary != nil {
		rp.encode, rp.contentType = p.binary.encode, p.binary.contentType
	}
	return rp
}
