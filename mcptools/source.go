package mcptools

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"sync/atomic"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/aisdkgo/ai"
)

// Options configure a [Source]. The zero value lists every tool of the
// server under its own name, loaded up front.
type Options struct {
	// Prefix is put before every tool name, for example "github_", so that
	// the tools of several servers cannot collide. The server is always
	// called with the tool's own name.
	Prefix string
	// DeferLoading defers every tool: it stays hidden from the model until
	// a search tool ([ai.ToolSearch]) of the generation finds it.
	DeferLoading bool
	// Defer, when set, decides for each tool whether it is deferred, in
	// place of DeferLoading.
	Defer func(*mcp.Tool) bool
	// Group is the group of every tool ([ai.ToolDef.Group]), which a
	// search tool with groups can search alone. Empty means the server's
	// name, as it gave it when the session started.
	Group string
	// Include, when set, keeps only the tools for which it returns true.
	Include func(*mcp.Tool) bool
	// ListChanged, when set, marks the source stale whenever the client
	// receives a tool-list-changed notification, so that the next call of
	// [Source.Tools] lists the tools again.
	ListChanged *ListChanged
}

// Source turns the tools of one MCP client session into tools of package
// ai. Keep one Source per session for as long as the session lives, and
// call [Source.Tools] once before each generation:
//
//	src := mcptools.NewSource(session, &mcptools.Options{Prefix: "github_", DeferLoading: true, ListChanged: changes})
//	for {
//		tools, err := src.Tools(ctx)
//		...
//		res, err := ai.GenerateText(ctx, ai.GenerateTextOptions{Tools: append(tools, ai.NamedTool{Name: "search", Tool: ai.ToolSearch()}), ...})
//	}
//
// A Source is safe for concurrent use. It never closes the session: that
// stays the caller's job, after the last generation that uses its tools.
type Source struct {
	session *mcp.ClientSession
	opts    Options
	server  *mcp.Implementation

	// lock is held while the tools are listed; a channel rather than a
	// mutex so that a waiting caller can give up when its ctx ends.
	lock chan struct{}
	// tools is the current snapshot, listed tells whether there is one,
	// and version is the change count it was listed at. All three are
	// guarded by lock.
	tools   ai.Tools
	listed  bool
	version uint64
	// converted holds the tools of the snapshot by the digest of their
	// definition, so that a new listing converts only the tools that
	// changed. Guarded by lock.
	converted map[toolKey]*ai.FunctionTool

	// invalidated counts calls of Invalidate.
	invalidated atomic.Uint64
}

// NewSource returns a source for the tools of session. opts may be nil.
// Nothing is listed before the first call of [Source.Tools].
func NewSource(session *mcp.ClientSession, opts *Options) *Source {
	s := &Source{session: session, lock: make(chan struct{}, 1)}
	if opts != nil {
		s.opts = *opts
	}
	if res := session.InitializeResult(); res != nil {
		s.server = res.ServerInfo
	}
	return s
}

// Tools returns the server's tools as an immutable snapshot: give it to one
// generation and it stays the same for the whole of it, whatever the server
// does meanwhile. As long as the source is not stale, every call returns
// the same snapshot; once a tool-list-changed notification has arrived (see
// [Options.ListChanged]) or [Source.Invalidate] was called, the next call
// lists the tools again, following every page, and returns a new snapshot.
// Generations running with an older snapshot are not affected.
//
// The returned slice must not be modified, but appending to it is safe: it
// has no spare capacity, so append copies it.
//
// Each tool's input schema is sent to models exactly as the server gives
// it, and compiled for local validation the first time the tool is called.
// Regular expressions Go cannot compile (look-arounds, for example, as in
// common e-mail patterns of JavaScript servers) are left out of the local
// validation only; the server still checks them.
//
// Tools returns an error when the listing fails (the source stays stale and
// the next call tries again), when two tools end up with the same name, or
// when a tool's input schema cannot be used.
func (s *Source) Tools(ctx context.Context) (ai.Tools, error) {
	select {
	case s.lock <- struct{}{}:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	defer func() { <-s.lock }()
	v := s.changes()
	if s.listed && v == s.version {
		return s.tools, nil
	}
	listed, err := listTools(ctx, s.session)
	if err != nil {
		return nil, err
	}
	tools, converted, err := s.convert(listed)
	if err != nil {
		return nil, err
	}
	s.converted = converted
	// A notification that arrives while listing moves the count past v, so
	// the next call lists again.
	s.tools, s.version, s.listed = tools, v, true
	return tools, nil
}

// Invalidate marks the source stale, so that the next call of
// [Source.Tools] lists the tools again. A tool-list-changed handler that an
// application writes itself can call it.
func (s *Source) Invalidate() { s.invalidated.Add(1) }

// changes sums the events that make a snapshot stale.
func (s *Source) changes() uint64 {
	n := s.invalidated.Load()
	if s.opts.ListChanged != nil {
		n += s.opts.ListChanged.count.Load()
	}
	return n
}

// toolKey identifies a tool definition: the digest of its JSON form and
// whether it is deferred.
type toolKey struct {
	digest   [sha256.Size]byte
	deferred bool
}

// convert turns a listing into a snapshot, reusing the converted tools of
// the previous snapshot whose definitions did not change. It also returns
// the tools by key, for the next listing.
func (s *Source) convert(listed []*mcp.Tool) (ai.Tools, map[toolKey]*ai.FunctionTool, error) {
	tools := make(ai.Tools, 0, len(listed))
	converted := make(map[toolKey]*ai.FunctionTool, len(listed))
	names := make(map[string]bool, len(listed))
	for _, t := range listed {
		if s.opts.Include != nil && !s.opts.Include(t) {
			continue
		}
		name := s.opts.Prefix + t.Name
		if names[name] {
			return nil, nil, fmt.Errorf("mcptools: two tools are named %q", name)
		}
		names[name] = true
		deferred := s.opts.DeferLoading
		if s.opts.Defer != nil {
			deferred = s.opts.Defer(t)
		}
		def, err := json.Marshal(t)
		if err != nil {
			return nil, nil, fmt.Errorf("mcptools: tool %q: %w", t.Name, err)
		}
		key := toolKey{sha256.Sum256(def), deferred}
		tool, ok := s.converted[key]
		if !ok {
			if tool, err = newTool(s.session, s.server, s.group(), t, deferred); err != nil {
				return nil, nil, fmt.Errorf("mcptools: tool %q: %w", t.Name, err)
			}
		}
		converted[key] = tool
		tools = append(tools, ai.NamedTool{Name: name, Tool: tool})
	}
	return tools[:len(tools):len(tools)], converted, nil
}

// errRepeatedCursor reports a server whose pages never end.
var errRepeatedCursor = errors.New("mcptools: the server returned a page cursor it had returned before")

// listTools lists every tool of the session, page by page. It stops with an
// error when a cursor comes back, so that a faulty server cannot keep it
// listing forever.
func listTools(ctx context.Context, session *mcp.ClientSession) ([]*mcp.Tool, error) {
	var tools []*mcp.Tool
	params := &mcp.ListToolsParams{}
	seen := map[string]bool{}
	for {
		res, err := session.ListTools(ctx, params)
		if err != nil {
			return nil, fmt.Errorf("mcptools: listing tools: %w", err)
		}
		for _, t := range res.Tools {
			if t != nil {
				tools = append(tools, t)
			}
		}
		if res.NextCursor == "" {
			return tools, nil
		}
		if seen[res.NextCursor] {
			return nil, errRepeatedCursor
		}
		seen[res.NextCursor] = true
		params = &mcp.ListToolsParams{Cursor: res.NextCursor}
	}
}

// ListChanged records the tool-list-changed notifications a client
// receives, for the sources that name it in [Options.ListChanged]. Its zero
// value is ready to use, and it is safe for concurrent use.
//
// The MCP client only asks a server for these notifications when a handler
// is set before it connects, so a ListChanged is made first, installed on
// the client, and handed to the sources once the session exists:
//
//	changes := new(mcptools.ListChanged)
//	client := mcp.NewClient(&mcp.Implementation{Name: "app", Version: "v1"}, changes.ClientOptions(nil))
//	session, err := client.Connect(ctx, transport, nil)
//	if err != nil { ... }
//	defer session.Close()
//	src := mcptools.NewSource(session, &mcptools.Options{ListChanged: changes})
//
// A notification from any session of the client marks every source that
// names this ListChanged stale. A client connected to several servers can
// use one ListChanged for all of them (a change then lists every server
// again) or create one client, with its own ListChanged, per server.
type ListChanged struct {
	count atomic.Uint64
}

// Handle records a notification. It has the type of
// [mcp.ClientOptions.ToolListChangedHandler], so it can be installed
// directly:
//
//	client := mcp.NewClient(impl, &mcp.ClientOptions{ToolListChangedHandler: changes.Handle})
func (l *ListChanged) Handle(context.Context, *mcp.ToolListChangedRequest) {
	l.count.Add(1)
}

// ClientOptions returns a copy of base (which may be nil) whose tool-list-
// changed handler records notifications in l before calling base's own
// handler, if any.
func (l *ListChanged) ClientOptions(base *mcp.ClientOptions) *mcp.ClientOptions {
	var o mcp.ClientOptions
	if base != nil {
		o = *base
	}
	next := o.ToolListChangedHandler
	o.ToolListChangedHandler = func(ctx context.Context, req *mcp.ToolListChangedRequest) {
		l.Handle(ctx, req)
		if next != nil {
			next(ctx, req)
		}
	}
	return &o
}

// group is the group of the source's tools.
func (s *Source) group() string {
	if s.opts.Group != "" || s.server == nil {
		return s.opts.Group
	}
	return s.server.Name
}
