package main

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"sync/atomic"
	"time"

	"github.com/aisdkgo/ai/aitest"
	"github.com/aisdkgo/ai/provider"
)

// scriptedModel stands in for a language model: it reads the conversation
// and the tools it is offered, and answers like a model would. A request
// about the weather goes: search for tools, get the weather, answer and
// offer to email the team (which waits for approval), then confirm. A
// request that asks for a script searches too, then writes a code mode
// program that gets the weather and emails the team (the program pauses at
// the email until it is approved), then confirms.
func scriptedModel(pace time.Duration) provider.LanguageModel {
	var n atomic.Int64
	next := func(prefix string) string { return fmt.Sprintf("%s-%d", prefix, n.Add(1)) }
	m := &aitest.Model{ModelName: "scripted", Respond: func(_ context.Context, _ int, o *provider.CallOptions) (aitest.Response, error) {
		return aitest.Response{Chunks: respond(o, next)}, nil
	}}
	return &pacedModel{LanguageModel: m, pace: pace}
}

var cityPattern = regexp.MustCompile(`\bin ([A-Z][\p{L}-]+)`)

// respond returns the scripted answer to a call.
func respond(o *provider.CallOptions, next func(string) string) []provider.StreamPart {
	city := "Berlin"
	script := false
	var last provider.Message
	for _, m := range o.Prompt {
		if u, ok := m.(provider.UserMessage); ok {
			text := ""
			for _, p := range u.Content {
				if t, ok := p.(provider.TextPart); ok {
					text += t.Text
				}
			}
			if strings.HasPrefix(text, "Code mode capability update") {
				// The catalog of the code tool, not the user.
				continue
			}
			if m := cityPattern.FindStringSubmatch(text); m != nil {
				city = m[1]
			}
			script = strings.Contains(strings.ToLower(text), "script")
		}
		last = m
	}
	tm, ok := last.(provider.ToolMessage)
	if !ok || len(tm.Content) == 0 {
		return answer(next, "Let me find the tools I need.",
			toolCall(next("call"), "toolSearch", map[string]string{"query": "weather email"}))
	}
	var result provider.ToolResultPart
	for _, p := range tm.Content {
		if r, ok := p.(provider.ToolResultPart); ok {
			result = r
		}
	}
	switch result.ToolName {
	case "toolSearch":
		if script && offered(o, "code") && offered(o, "getWeather") && offered(o, "sendEmail") {
			return answer(next, "I will run a script for that.", toolCall(next("call"), "code", map[string]string{"js": fmt.Sprintf(
				`const w = await tools.getWeather({city: %q});
const body = "It is " + w.condition + " and " + w.temperature + "°C in " + w.city + ".";
const sent = await tools.sendEmail({to: "team@example.com", subject: "Weather in " + w.city, body});
return {weather: w, sent};`, city)}))
		}
		if offered(o, "getWeather") {
			return answer(next, "", toolCall(next("call"), "getWeather", map[string]string{"city": city}))
		}
		return answer(next, "I could not find a weather tool.")
	case "getWeather":
		var w Weather
		if out, ok := result.Output.(provider.JSONOutput); ok {
			json.Unmarshal(out.Value, &w)
		}
		summary := fmt.Sprintf("It is %s and %d°C in %s.", w.Condition, w.Temperature, w.City)
		if !offered(o, "sendEmail") {
			return answer(next, summary)
		}
		return answer(next, summary+" I will email the team about it.",
			toolCall(next("call"), "sendEmail", Email{To: "team@example.com", Subject: "Weather in " + w.City, Body: summary}))
	case "code":
		if out, ok := result.Output.(provider.JSONOutput); ok && strings.Contains(string(out.Value), `"sent"`) {
			return answer(next, "The script ran: the team has the forecast.")
		}
		return answer(next, "The script did not finish.")
	case "sendEmail":
		if _, denied := result.Output.(provider.ExecutionDeniedOutput); denied {
			return answer(next, "OK, I did not send the email.")
		}
		return answer(next, "Done: the team has the forecast.")
	}
	return answer(next, "I am not sure what to do next.")
}

func offered(o *provider.CallOptions, name string) bool {
	for _, t := range o.Tools {
		if t.ToolName() == name {
			return true
		}
	}
	return false
}

// answer streams a text word by word, then the tool calls.
func answer(next func(string) string, text string, calls ...[]provider.StreamPart) []provider.StreamPart {
	var out []provider.StreamPart
	if text != "" {
		id := next("txt")
		out = append(out, provider.TextStart{ID: id})
		for w := range strings.SplitAfterSeq(text, " ") {
			out = append(out, provider.TextDelta{ID: id, Delta: w})
		}
		out = append(out, provider.TextEnd{ID: id})
	}
	for _, c := range calls {
		out = append(out, c...)
	}
	reason := provider.FinishStop
	if len(calls) > 0 {
		reason = provider.FinishToolCalls
	}
	return append(out, provider.Finish{FinishReason: provider.FinishReason{Unified: reason}})
}

// toolCall streams a call's input in two pieces.
func toolCall(id, name string, input any) []provider.StreamPart {
	b, _ := json.Marshal(input)
	s := string(b)
	half := len(s) / 2
	return []provider.StreamPart{
		provider.ToolInputStart{ID: id, ToolName: name},
		provider.ToolInputDelta{ID: id, Delta: s[:half]},
		provider.ToolInputDelta{ID: id, Delta: s[half:]},
		provider.ToolInputEnd{ID: id},
		provider.ToolCall{ToolCallID: id, ToolName: name, Input: s},
	}
}

// pacedModel pauses between stream parts, so that the page shows the
// answer arriving.
type pacedModel struct {
	provider.LanguageModel
	pace time.Duration
}

func (m *pacedModel) Stream(ctx context.Context, opts *provider.CallOptions) (*provider.StreamResult, error) {
	res, err := m.LanguageModel.Stream(ctx, opts)
	if err != nil || m.pace <= 0 {
		return res, err
	}
	inner := res.Stream
	res.Stream = func(yield func(provider.StreamPart, error) bool) {
		t := time.NewTimer(m.pace)
		defer t.Stop()
		for p, err := range inner {
			select {
			case <-ctx.Done():
				yield(nil, ctx.Err())
				return
			case <-t.C:
				t.Reset(m.pace)
			}
			if !yield(p, err) {
				return
			}
		}
	}
	return res, nil
}
