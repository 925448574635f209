package providertest

import (
	"context"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/aisdkgo/ai"
	"github.com/aisdkgo/ai/provider"
	"github.com/aisdkgo/ai/providers/anthropic"
)

// partialText is the text a broken stream delivers before it breaks.
const partialText = "It will "

// checkBrokenStep checks a stream whose only step broke after partialText:
// the step is kept with what arrived, finishes with an error, and the
// stream ends with its finish part.
func checkBrokenStep(t *testing.T, o outcome) {
	t.Helper()
	assert.NoError(t, o.iterErr)
	assert.Equal(t, partialText, o.streamedText())
	types := o.types()
	if assert.GreaterOrEqual(t, len(types), 3) {
		assert.Equal(t, []string{"start", "start-step"}, types[:2])
		assert.Equal(t, []string{"finish-step", "finish"}, types[len(types)-2:])
	}
	// The accessors report the failure and keep what arrived.
	var failed *ai.StreamFailedError
	require.ErrorAs(t, o.err, &failed)
	require.NotNil(t, o.res)
	require.Len(t, o.res.Steps, 1)
	assert.Equal(t, ai.FinishError, o.res.FinishReason)
	assert.Equal(t, partialText, o.res.Text)
}

func TestStreamErrorAfterOutput(t *testing.T) {
	const message = "The server had an error while processing your request."
	for _, w := range wires() {
		t.Run(w.name(), func(t *testing.T) {
			t.Parallel()
			events := append(w.partial("resp_err", partialText), w.streamError(message)...)
			srv := newServer(t, w, replies(reply{events: events}))
			ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
			defer cancel()
			o := generate(ctx, t, true, options(w, srv))

			assert.Equal(t, 1, srv.count(), "an error after output is not retried")
			checkBrokenStep(t, o)
			errs := o.errorParts()
			require.Len(t, errs, 1, "error parts")
			if _, ok := w.(anthropicWire); ok {
				var se *anthropic.StreamError
				if assert.ErrorAs(t, errs[0], &se) {
					assert.Equal(t, "api_error", se.Type)
					assert.Equal(t, message, se.Message)
				}
				return
			}
			apiError(t, errs[0], 500, message, true)
		})
	}
}

func TestStreamErrorBeforeOutput(t *testing.T) {
	const message = "The request could not be served."
	for _, w := range wires() {
		t.Run(w.name(), func(t *testing.T) {
			t.Parallel()
			srv := newServer(t, w, replies(w.earlyError(false, message), w.respond(true, helloTurn)))
			ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
			defer cancel()
			o := generate(ctx, t, true, options(w, srv))

			assert.Equal(t, 1, srv.count(), "requests")
			assert.NoError(t, o.iterErr)
			errs := o.errorParts()
			require.Len(t, errs, 1, "error parts")
			status := w.earlyErrorStatus(false)
			if status == 0 {
				// The provider reports the error inside the step.
				var apiErr *provider.APICallError
				if assert.ErrorAs(t, errs[0], &apiErr) {
					assert.Equal(t, message, apiErr.Message)
				}
				var failed *ai.StreamFailedError
				require.ErrorAs(t, o.err, &failed)
				require.Len(t, o.res.Steps, 1)
				assert.Equal(t, ai.FinishError, o.res.FinishReason)
				return
			}
			// The model call fails: no step starts.
			apiError(t, errs[0], status, message, false)
			assert.Equal(t, []string{"start", "error"}, o.types())
			assert.Nil(t, o.res)
			var noOutput *ai.NoOutputGeneratedError
			assert.ErrorAs(t, o.err, &noOutput)
		})
	}
}

func TestStreamEarlyErrorIsRetried(t *testing.T) {
	for _, w := range wires() {
		if w.earlyErrorStatus(true) == 0 {
			continue // errors in the stream are not failed calls here
		}
		t.Run(w.name(), func(t *testing.T) {
			t.Parallel()
			overloaded := w.earlyError(true, "Overloaded")
			overloaded.header = http.Header{"Retry-After-Ms": {"5"}}
			srv := newServer(t, w, replies(overloaded, w.respond(true, helloTurn)))
			ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
			defer cancel()
			o := generate(ctx, t, true, options(w, srv))
			checkSuccess(t, srv, o, 2)
			assert.Less(t, o.elapsed, promptBound)
		})
	}
}

func TestStreamConnectionDropped(t *testing.T) {
	for _, w := range wires() {
		t.Run(w.name(), func(t *testing.T) {
			t.Parallel()
			srv := newServer(t, w, replies(reply{events: w.partial("resp_drop", partialText), then: dropConnection}))
			ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
			defer cancel()
			o := generate(ctx, t, true, options(w, srv))

			assert.Less(t, o.elapsed, promptBound)
			assert.Equal(t, 1, srv.count(), "a stream that breaks after output is not retried")
			checkBrokenStep(t, o)
			errs := o.errorParts()
			require.Len(t, errs, 1, "error parts")
			var apiErr *provider.APICallError
			if assert.ErrorAs(t, errs[0], &apiErr) {
				assert.True(t, apiErr.Retryable)
				assert.Equal(t, http.StatusOK, apiErr.StatusCode, "the status of the response that broke")
				assert.Contains(t, apiErr.Message, "cut off")
			}
		})
	}
}

func TestStreamTruncated(t *testing.T) {
	for _, w := range wires() {
		t.Run(w.name(), func(t *testing.T) {
			t.Parallel()
			// The server ends the response properly, but before the events
			// that finish the answer.
			srv := newServer(t, w, replies(reply{events: w.partial("resp_cut", partialText)}))
			ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
			defer cancel()
			o := generate(ctx, t, true, options(w, srv))

			assert.Less(t, o.elapsed, promptBound)
			assert.Equal(t, 1, srv.count(), "requests")
			assert.NoError(t, o.iterErr)
			assert.Equal(t, partialText, o.streamedText())
			require.NoError(t, o.err)
			require.Len(t, o.res.Steps, 1)
			assert.Equal(t, partialText, o.res.Text)
			assert.Equal(t, ai.FinishInterrupted, o.res.FinishReason)
			assert.Empty(t, o.errorParts())
		})
	}
}

// cutAfter returns the events up to and including the first one whose data
// holds the JSON text piece.
func cutAfter(t *testing.T, events []event, piece string) []event {
	t.Helper()
	quoted := mustJSON(piece)
	escaped := quoted[1 : len(quoted)-1]
	for i, ev := range events {
		if strings.Contains(ev.data, escaped) {
			return events[:i+1]
		}
	}
	t.Fatalf("no event holds %s", piece)
	return nil
}

// callCutter is a wire whose tool call input does not appear as text in
// its events; it says where a stream breaks during a call.
type callCutter interface {
	cutDuringCall(events []event) []event
}

// cutDuringCall returns the events of a streamed tool call answer up to a
// point inside the call's input.
func cutDuringCall(t *testing.T, w wire, events []event) []event {
	t.Helper()
	if c, ok := w.(callCutter); ok {
		return c.cutDuringCall(events)
	}
	return cutAfter(t, events, split(forecastInput)[0])
}

func TestStreamBrokenDuringToolCall(t *testing.T) {
	for _, w := range wires() {
		for _, drop := range []bool{false, true} {
			name := "ended"
			if drop {
				name = "dropped"
			}
			t.Run(w.name()+"/"+name, func(t *testing.T) {
				t.Parallel()
				call := wireCall{id: w.callID(1), name: "getForecast", args: forecastInput}
				full := w.respond(true, turn{id: "resp_cut", calls: []wireCall{call}, input: 10, output: 5})
				rp := reply{events: cutDuringCall(t, w, full.events)}
				if drop {
					rp.then = dropConnection
				}
				srv := newServer(t, w, replies(rp, w.respond(true, helloTurn)))
				var runs atomic.Int32
				opts := options(w, srv)
				opts.StopWhen = ai.StepCountIs(3)
				opts.Tools = ai.Tools{{Name: "getForecast", Tool: ai.NewTool(ai.ToolDef[cityIn, string]{
					Description: "Get the weather forecast for a city.",
					Execute: func(context.Context, cityIn, ai.ToolExecutionOptions) (string, error) {
						runs.Add(1)
						return "rain", nil
					},
				})}}
				ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
				defer cancel()
				o := generate(ctx, t, true, opts)

				assert.Less(t, o.elapsed, promptBound)
				assert.Zero(t, runs.Load(), "a tool must not run on partial input")
				assert.Equal(t, 1, srv.count(), "requests")
				assert.NotContains(t, o.types(), "tool-result")
				assert.NoError(t, o.iterErr)
				require.NotNil(t, o.res)
				require.Len(t, o.res.Steps, 1)
				assert.Empty(t, o.res.ToolResults())
				if drop {
					var failed *ai.StreamFailedError
					assert.ErrorAs(t, o.err, &failed)
					assert.Equal(t, ai.FinishError, o.res.FinishReason)
					assert.Len(t, o.errorParts(), 1)
				} else {
					require.NoError(t, o.err)
					assert.Equal(t, ai.FinishInterrupted, o.res.FinishReason)
				}
			})
		}
	}
}

func TestStreamEarlyBreakClosesResponse(t *testing.T) {
	for _, w := range wires() {
		t.Run(w.name(), func(t *testing.T) {
			t.Parallel()
			gone := make(chan struct{})
			srv := newServer(t, w, replies(reply{events: w.partial("resp_open", partialText), then: waitForClient(gone)}))
			ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
			defer cancel()
			s, err := ai.StreamText(ctx, options(w, srv))
			require.NoError(t, err)
			text := ""
			for p, err := range s.Parts() {
				require.NoError(t, err)
				if d, ok := p.(ai.TextDelta); ok {
					text = d.Delta
					break
				}
			}
			assert.Equal(t, partialText, text)
			select {
			case <-gone:
			case <-time.After(promptBound):
				t.Fatal("the HTTP response was not closed after the reader stopped")
			}
			_, err = s.Wait()
			assert.ErrorIs(t, err, ai.ErrStreamStopped)
			assert.Equal(t, 1, srv.count(), "requests")
		})
	}
}

func TestStreamCancelledMidStream(t *testing.T) {
	for _, w := range wires() {
		t.Run(w.name(), func(t *testing.T) {
			t.Parallel()
			gone := make(chan struct{})
			srv := newServer(t, w, replies(reply{events: w.partial("resp_open", partialText), then: waitForClient(gone)}))
			ctx, cancel := context.WithCancel(t.Context())
			defer cancel()
			s, err := ai.StreamText(ctx, options(w, srv))
			require.NoError(t, err)
			var types []string
			start := time.Now()
			for p, err := range s.Parts() {
				require.NoError(t, err)
				types = append(types, p.PartType())
				if _, ok := p.(ai.TextDelta); ok {
					cancel()
				}
			}
			assert.Less(t, time.Since(start), promptBound)
			if assert.NotEmpty(t, types) {
				assert.Equal(t, "abort", types[len(types)-1])
			}
			assert.NotContains(t, types, "error")
			select {
			case <-gone:
			case <-time.After(promptBound):
				t.Fatal("the HTTP response was not closed after the cancellation")
			}
			_, err = s.Wait()
			assert.ErrorIs(t, err, context.Canceled)
		})
	}
}

func TestCancelledWhileWaitingForTheAnswer(t *testing.T) {
	for _, w := range wires() {
		for _, stream := range []bool{false, true} {
			for _, started := range []bool{false, true} {
				name := w.name() + "/" + mode(stream) + "/before the headers"
				if started {
					name = w.name() + "/" + mode(stream) + "/after the headers"
				}
				t.Run(name, func(t *testing.T) {
					t.Parallel()
					gone := make(chan struct{})
					ctx, cancel := context.WithCancel(t.Context())
					defer cancel()
					// The client gives up once the server has the request
					// (and, after the headers, has sent what it will send).
					wait := func(w http.ResponseWriter, r *http.Request) {
						cancel()
						waitForClient(gone)(w, r)
					}
					rp := reply{handle: wait}
					switch {
					case started && stream:
						// The first event, then nothing.
						rp = reply{events: w.partial("resp_slow", partialText)[:1], then: wait}
					case started:
						rp = reply{then: wait}
					}
					srv := newServer(t, w, replies(rp))
					o := generate(ctx, t, stream, options(w, srv))
					assert.Less(t, o.elapsed, promptBound)
					assert.ErrorIs(t, o.err, context.Canceled)
					assert.Equal(t, 1, srv.count(), "requests")
					if stream {
						assert.NoError(t, o.iterErr)
						assert.Empty(t, o.errorParts())
						if types := o.types(); assert.NotEmpty(t, types) {
							assert.Equal(t, "abort", types[len(types)-1])
						}
					}
					select {
					case <-gone:
					case <-time.After(promptBound):
						t.Fatal("the request was not abandoned after the cancellation")
					}
				})
			}
		}
	}
}
