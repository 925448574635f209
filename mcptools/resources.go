package mcptools

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"mime"
	"path"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/aisdkgo/ai"
	"github.com/aisdkgo/ai/provider"
)

// maxPages bounds how many pages one listing follows, so that a server
// whose cursors never end cannot keep a client listing forever.
const maxPages = 1000

// errTooManyPages reports a listing longer than maxPages pages.
var errTooManyPages = fmt.Errorf("mcptools: the server's listing has more than %d pages", maxPages)

// listAll follows the pages of a listing: page fetches one page for a
// cursor and returns its items and the next cursor. It stops with an error
// when a cursor comes back or the pages exceed maxPages.
func listAll[T any](what string, page func(cursor string) ([]*T, string, error)) ([]*T, error) {
	var all []*T
	seen := map[string]bool{}
	cursor := ""
	for range maxPages {
		items, next, err := page(cursor)
		if err != nil {
			return nil, fmt.Errorf("mcptools: listing %s: %w", what, err)
		}
		for _, it := range items {
			if it != nil {
				all = append(all, it)
			}
		}
		if next == "" {
			return all, nil
		}
		if seen[next] {
			return nil, errRepeatedCursor
		}
		seen[next] = true
		cursor = next
	}
	return nil, errTooManyPages
}

// ListResources lists every resource of the server, following every page.
func ListResources(ctx context.Context, session *mcp.ClientSession) ([]*mcp.Resource, error) {
	return listAll("resources", func(cursor string) ([]*mcp.Resource, string, error) {
		res, err := session.ListResources(ctx, &mcp.ListResourcesParams{Cursor: cursor})
		if err != nil {
			return nil, "", err
		}
		return res.Resources, res.NextCursor, nil
	})
}

// ListResourceTemplates lists every resource template of the server
// (resources addressed by a URI template such as
// "file:///logs/{date}"), following every page.
func ListResourceTemplates(ctx context.Context, session *mcp.ClientSession) ([]*mcp.ResourceTemplate, error) {
	return listAll("resource templates", func(cursor string) ([]*mcp.ResourceTemplate, string, error) {
		res, err := session.ListResourceTemplates(ctx, &mcp.ListResourceTemplatesParams{Cursor: cursor})
		if err != nil {
			return nil, "", err
		}
		return res.ResourceTemplates, res.NextCursor, nil
	})
}

// ReadResource reads the resource at uri. It fails when the server
// answers with an error or with no contents; [ResourceParts] turns the
// contents into message parts.
func ReadResource(ctx context.Context, session *mcp.ClientSession, uri string) (*mcp.ReadResourceResult, error) {
	res, err := session.ReadResource(ctx, &mcp.ReadResourceParams{URI: uri})
	if err != nil {
		return nil, fmt.Errorf("mcptools: reading %s: %w", uri, err)
	}
	if res == nil || len(res.Contents) == 0 {
		return nil, fmt.Errorf("mcptools: reading %s: the server sent no contents", uri)
	}
	return res, nil
}

// ResourceParts turns the contents of a resource into parts of a user
// message, in the server's order: text contents become [ai.TextPart]s and
// binary contents (blobs) [ai.FilePart]s with the content's media type
// (application/octet-stream when it has none) and the last segment of its
// URI as the file name. An application puts them into a message itself:
//
//	res, err := mcptools.ReadResource(ctx, session, "file:///notes.md")
//	...
//	parts, err := mcptools.ResourceParts(res.Contents)
//	...
//	messages = append(messages, ai.UserMessage{Content: parts})
//
// It fails on a nil content and on a blob that is empty or has an invalid
// media type, and never returns a partial list.
func ResourceParts(contents []*mcp.ResourceContents) ([]ai.UserPart, error) {
	parts := make([]ai.UserPart, 0, len(contents))
	for i, c := range contents {
		p, err := resourcePart(c)
		if err != nil {
			return nil, fmt.Errorf("mcptools: resource content %d: %w", i, err)
		}
		parts = append(parts, p)
	}
	return parts, nil
}

// resourcePart converts one resource content; the result is a TextPart or
// a FilePart, which are both user and assistant parts.
func resourcePart(c *mcp.ResourceContents) (provider.UserPart, error) {
	if c == nil {
		return nil, errors.New("empty contents")
	}
	if c.Blob == nil {
		return ai.TextPart{Text: c.Text}, nil
	}
	if len(c.Blob) == 0 {
		return nil, fmt.Errorf("%s: a blob without data", c.URI)
	}
	mt := c.MIMEType
	if mt == "" {
		mt = "application/octet-stream"
	}
	if !validMediaType(mt) {
		return nil, fmt.Errorf("%s: the invalid media type %q", c.URI, mt)
	}
	return ai.FilePart{Data: provider.FileBytes{Data: c.Blob}, MediaType: mt, Filename: fileName(c.URI)}, nil
}

// fileName is the last segment of a URI's path, or "" when there is none.
func fileName(uri string) string {
	if i := strings.IndexAny(uri, "?#"); i >= 0 {
		uri = uri[:i]
	}
	name := path.Base(uri)
	if name == "." || name == "/" || strings.HasSuffix(uri, "/") || !strings.Contains(uri, "/") {
		return ""
	}
	return name
}

// ResourceUpdates delivers the resource-updated notifications a client
// receives to the [ResourceUpdates.Watch] loops of its sessions. Its zero
// value is ready to use, and it is safe for concurrent use.
//
// As with [ListChanged], the handler must be installed on the client
// before it connects:
//
//	updates := new(mcptools.ResourceUpdates)
//	client := mcp.NewClient(impl, updates.ClientOptions(nil))
//	session, err := client.Connect(ctx, transport, nil)
//	...
//	for uri, err := range updates.Watch(ctx, session, "file:///notes.md") {
//		if err != nil { ... } // the subscription failed, or ctx ended
//		res, err := mcptools.ReadResource(ctx, session, uri)
//		...
//	}
type ResourceUpdates struct {
	rpc      sync.Mutex
	mu       sync.Mutex
	watchers map[*watcher]struct{}
	// subs counts the watchers of each session and URI, so that the
	// server is unsubscribed only when the last one ends.
	subs map[subKey]int
}

type subKey struct {
	session *mcp.ClientSession
	uri     string
}

// watcher is one Watch loop. pending holds the updated URIs not yet
// yielded (a set, so that a burst of updates cannot grow it beyond the
// URIs that exist), and wake is signalled when it gains one.
type watcher struct {
	session *mcp.ClientSession
	uri     string
	pending map[string]bool
	order   []string
	wake    chan struct{}
}

// maxPending bounds the updated URIs one watcher holds before its loop
// takes them; further URIs (sub-resources a server invents) are dropped.
const maxPending = 1024

// Handle records a notification. It has the type of
// [mcp.ClientOptions.ResourceUpdatedHandler], so it can be installed
// directly.
func (u *ResourceUpdates) Handle(_ context.Context, req *mcp.ResourceUpdatedNotificationRequest) {
	if req == nil || req.Params == nil {
		return
	}
	uri := req.Params.URI
	u.mu.Lock()
	defer u.mu.Unlock()
	for w := range u.watchers {
		if w.session != req.Session || !covers(w.uri, uri) || w.pending[uri] || len(w.pending) >= maxPending {
			continue
		}
		w.pending[uri] = true
		w.order = append(w.order, uri)
		select {
		case w.wake <- struct{}{}:
		default:
		}
	}
}

// covers reports whether an update of uri concerns a subscription to sub:
// the same resource or, as MCP allows, one of its sub-resources.
func covers(sub, uri string) bool {
	return uri == sub || strings.HasPrefix(uri, strings.TrimSuffix(sub, "/")+"/")
}

// ClientOptions returns a copy of base (which may be nil) whose
// resource-updated handler records notifications in u before calling
// base's own handler, if any.
func (u *ResourceUpdates) ClientOptions(base *mcp.ClientOptions) *mcp.ClientOptions {
	var o mcp.ClientOptions
	if base != nil {
		o = *base
	}
	next := o.ResourceUpdatedHandler
	o.ResourceUpdatedHandler = func(ctx context.Context, req *mcp.ResourceUpdatedNotificationRequest) {
		u.Handle(ctx, req)
		if next != nil {
			next(ctx, req)
		}
	}
	return &o
}

// unsubscribeTimeout bounds the unsubscribe request a Watch sends when it
// ends, after its ctx may already have ended.
const unsubscribeTimeout = 5 * time.Second

// Watch subscribes to updates of the resource at uri and yields the URI
// of every update notification (the resource's own, or a sub-resource's)
// until ctx ends or the loop stops. Updates that arrive while the loop
// body runs are kept (each URI once) and yielded next. When ctx ends,
// Watch yields ctx's error last, so that a loop can tell a cancellation
// from a failure; when the subscription fails, it yields that error and
// stops. Either way, and when the loop breaks, it unsubscribes (once the
// last Watch of the same session and URI ends).
//
// The session's client must have u's handler installed (see
// [ResourceUpdates.ClientOptions]) and the server must support
// subscriptions; otherwise no update ever arrives or Subscribe fails.
func (u *ResourceUpdates) Watch(ctx context.Context, session *mcp.ClientSession, uri string) iter.Seq2[string, error] {
	return func(yield func(string, error) bool) {
		if err := ctx.Err(); err != nil {
			yield("", err)
			return
		}
		w := &watcher{session: session, uri: uri, pending: map[string]bool{}, wake: make(chan struct{}, 1)}
		if err := u.register(ctx, w); err != nil {
			yield("", err)
			return
		}
		defer u.unregister(ctx, w)
		for {
			select {
			case <-ctx.Done():
				yield("", ctx.Err())
				return
			case <-w.wake:
			}
			for _, updated := range u.take(w) {
				if !yield(updated, nil) {
					return
				}
			}
		}
	}
}

// register adds a watcher, subscribing when it is the first of its
// session and URI. The watcher is added first, so that no update sent
// right after the subscription is lost. On failure it is removed again.
func (u *ResourceUpdates) register(ctx context.Context, w *watcher) error {
	// rpc keeps the subscribe and unsubscribe requests of a session and
	// URI in the order of the counts that decided them.
	u.rpc.Lock()
	defer u.rpc.Unlock()
	k := subKey{w.session, w.uri}
	u.mu.Lock()
	if u.watchers == nil {
		u.watchers = map[*watcher]struct{}{}
		u.subs = map[subKey]int{}
	}
	u.watchers[w] = struct{}{}
	u.subs[k]++
	first := u.subs[k] == 1
	u.mu.Unlock()
	if !first {
		return nil
	}
	if err := w.session.Subscribe(ctx, &mcp.SubscribeParams{URI: w.uri}); err != nil {
		u.mu.Lock()
		delete(u.watchers, w)
		if u.subs[k]--; u.subs[k] == 0 {
			delete(u.subs, k)
		}
		u.mu.Unlock()
		return fmt.Errorf("mcptools: subscribing to %s: %w", w.uri, err)
	}
	return nil
}

// unregister removes a watcher and unsubscribes when it was the last of
// its session and URI.
func (u *ResourceUpdates) unregister(ctx context.Context, w *watcher) {
	u.rpc.Lock()
	defer u.rpc.Unlock()
	u.mu.Lock()
	delete(u.watchers, w)
	k := subKey{w.session, w.uri}
	u.subs[k]--
	last := u.subs[k] == 0
	if last {
		delete(u.subs, k)
	}
	u.mu.Unlock()
	if last {
		ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), unsubscribeTimeout)
		defer cancel()
		// A failure leaves the server sending updates that nobody reads;
		// Handle drops them, so there is nothing more to do.
		_ = w.session.Unsubscribe(ctx, &mcp.UnsubscribeParams{URI: w.uri})
	}
}

// take empties a watcher's pending updates.
func (u *ResourceUpdates) take(w *watcher) []string {
	u.mu.Lock()
	defer u.mu.Unlock()
	out := w.order
	w.order = nil
	clear(w.pending)
	return out
}

// validMediaType reports whether mt is a media type with a slash, such as
// "image/png".
func validMediaType(mt string) bool {
	_, _, err := mime.ParseMediaType(mt)
	return err == nil && strings.Contains(mt, "/")
}
