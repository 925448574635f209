package aiotel_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	coltracepb "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	commonpb "go.opentelemetry.io/proto/otlp/common/v1"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
	"google.golang.org/protobuf/proto"

	"github.com/aisdkgo/ai"
	"github.com/aisdkgo/ai/aiotel"
)

// collector is an OTLP/HTTP endpoint that keeps the spans it receives.
type collector struct {
	mu    sync.Mutex
	spans []*tracepb.Span
	errs  []string
}

func (c *collector) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	c.mu.Lock()
	defer c.mu.Unlock()
	body, err := io.ReadAll(r.Body)
	switch {
	case err != nil:
		c.errs = append(c.errs, err.Error())
	case r.URL.Path != "/v1/traces":
		c.errs = append(c.errs, "path "+r.URL.Path)
	case r.Header.Get("Content-Type") != "application/x-protobuf":
		c.errs = append(c.errs, "content type "+r.Header.Get("Content-Type"))
	default:
		var req coltracepb.ExportTraceServiceRequest
		if err := proto.Unmarshal(body, &req); err != nil {
			c.errs = append(c.errs, "decode: "+err.Error())
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		for _, rs := range req.ResourceSpans {
			for _, ss := range rs.ScopeSpans {
				if ss.Scope.GetName() == aiotel.ScopeName || ss.Scope.GetName() == "test" {
					c.spans = append(c.spans, ss.Spans...)
				}
			}
		}
	}
	out, _ := proto.Marshal(&coltracepb.ExportTraceServiceResponse{})
	w.Header().Set("Content-Type", "application/x-protobuf")
	_, _ = w.Write(out)
}

func stringAttr(s *tracepb.Span, key string) (string, bool) {
	for _, kv := range s.Attributes {
		if kv.Key == key {
			if v, ok := kv.Value.Value.(*commonpb.AnyValue_StringValue); ok {
				return v.StringValue, true
			}
		}
	}
	return "", false
}

// Spans cross a real OTLP/HTTP wire and decode as OTLP protobuf.
func TestOTLPHTTPExport(t *testing.T) {
	col := &collector{}
	srv := httptest.NewServer(col)
	defer srv.Close()
	ctx := context.Background()
	exp, err := otlptracehttp.New(ctx, otlptracehttp.WithEndpointURL(srv.URL+"/v1/traces"))
	require.NoError(t, err)
	tp := sdktrace.NewTracerProvider(sdktrace.WithBatcher(exp))

	model, tools := searchRun(tp)
	res, err := ai.GenerateText(ctx, ai.GenerateTextOptions{
		Model: model, Tools: tools, Prompt: "Will it rain in Paris?", StopWhen: ai.StepCountIs(5),
		Observer: aiotel.NewObserver(&aiotel.Options{TracerProvider: tp}),
	})
	require.NoError(t, err)
	require.Equal(t, "Rain in Paris.", res.Text)
	require.NoError(t, tp.Shutdown(ctx), "flush to the collector")

	col.mu.Lock()
	defer col.mu.Unlock()
	require.Empty(t, col.errs)
	byName := map[string][]*tracepb.Span{}
	byID := map[string]*tracepb.Span{}
	for _, s := range col.spans {
		byName[s.Name] = append(byName[s.Name], s)
		byID[string(s.SpanId)] = s
	}
	assert.Len(t, col.spans, 10)
	assert.Len(t, byName["chat scripted"], 3)
	require.Len(t, byName["invoke_agent scripted"], 1)
	require.Len(t, byName["execute_tool getForecast"], 1)
	root := byName["invoke_agent scripted"][0]
	assert.Empty(t, root.ParentSpanId)
	op, _ := stringAttr(root, "gen_ai.operation.name")
	assert.Equal(t, "invoke_agent", op)
	tool := byName["execute_tool getForecast"][0]
	assert.Equal(t, tracepb.Span_SPAN_KIND_INTERNAL, tool.Kind)
	name, _ := stringAttr(tool, "gen_ai.tool.name")
	assert.Equal(t, "getForecast", name)
	step := byID[string(tool.ParentSpanId)]
	require.NotNil(t, step)
	assert.Equal(t, "step 1", step.Name)
	assert.Equal(t, root.SpanId, step.ParentSpanId)
	assert.Equal(t, tracepb.Span_SPAN_KIND_CLIENT, byName["chat scripted"][0].Kind)
	lookup := byName["forecast.lookup"]
	require.Len(t, lookup, 1)
	assert.Equal(t, tool.SpanId, lookup[0].ParentSpanId)
	for _, s := range col.spans {
		assert.Equal(t, root.TraceId, s.TraceId)
	}
}
