package ai

import (
	"fmt"
	"slices"
	"sync"

	"github.com/aisdkgo/ai/provider"
)

// NamedTool is a tool registered under a name.
type NamedTool struct {
	Name string
	Tool Tool
}

// Tools is an ordered set of tools. The order is observable: tools are sent
// to the model in this order (unless ToolOrder says otherwise), and tool
// search ranks equal matches in this order. Names must be unique.
type Tools []NamedTool

// Get returns the tool registered under name.
func (ts Tools) Get(name string) (Tool, bool) {
	for _, t := range ts {
		if t.Name == name {
			return t.Tool, true
		}
	}
	return nil, false
}

// Names returns the tool names in order.
func (ts Tools) Names() []string {
	names := make([]string, len(ts))
	for i, t := range ts {
		names[i] = t.Name
	}
	return names
}

// toolIndex is what the loop derives from a tool set: name lookup, the
// non-deferred tools, the deferred ones, and the static part of the search
// catalog. Generations over the same tool set (the same slice, unchanged)
// share one index, so a set of thousands of tools is not re-scanned on every
// call and step.
type toolIndex struct {
	tools  Tools // a copy, to detect changes to the caller's slice
	byName map[string]int
	// eager lists the tools that are not deferred, in set order.
	eager []int
	// deferred lists the deferred tools (search tools excluded).
	deferred []int
	// searches lists the search tools.
	searches []int
	// relevant is true when the set has a deferred or a search tool.
	relevant bool
	// dynamicDescriptions is true when a deferred tool's description is a
	// function (its catalog entry must be resolved per step).
	dynamicDescriptions bool
	// deferredResults is true when a provider tool of the set delivers
	// its results in a later step.
	deferredResults bool
	// callers lists the tools that call other tools (code mode).
	callers []int
	err     error

	catalogOnce sync.Once
	catalog     []SearchCandidate // deferred tools with static descriptions

	// The step entries and provider definitions of a step that sees every
	// tool as registered; defs is nil when a description is a function.
	staticOnce sync.Once
	entries    []stepEntry
	defs       []provider.Tool
}

// staticEntries returns the step entries of all tools; steps share them and
// must not modify them.
func (x *toolIndex) staticEntries() []stepEntry {
	x.buildStatic()
	return x.entries
}

// staticDefs returns the provider definitions of all tools in set order,
// or nil when some description depends on the step.
func (x *toolIndex) staticDefs() []provider.Tool {
	x.buildStatic()
	return x.defs
}

func (x *toolIndex) buildStatic() {
	x.staticOnce.Do(func() {
		x.entries = make([]stepEntry, len(x.tools))
		for i, nt := range x.tools {
			x.entries[i] = stepEntry{name: nt.Name, tool: nt.Tool, model: true}
		}
		defs := make([]provider.Tool, 0, len(x.tools))
		for _, nt := range x.tools {
			if ft, ok := nt.Tool.(*FunctionTool); ok && ft.describe != nil {
				return // a description depends on the step
			}
			d, err := toolDefinition(nt.Name, nt.Tool, nil)
			if err != nil {
				return
			}
			defs = append(defs, d)
		}
		if len(defs) > 0 {
			x.defs = defs
		}
	})
}

// indexCache keeps the indexes of recently used tool sets.
var indexCache struct {
	sync.Mutex
	entries []*toolIndex // most recent first
}

const indexCacheSize = 16

// indexOf returns the index of a tool set, building it when the set is new
// or was changed.
func indexOf(tools Tools) *toolIndex {
	if len(tools) == 0 {
		return buildIndex(tools)
	}
	indexCache.Lock()
	for i, x := range indexCache.entries {
		if sameTools(x.tools, tools) {
			if i > 0 {
				copy(indexCache.entries[1:i+1], indexCache.entries[:i])
				indexCache.entries[0] = x
			}
			indexCache.Unlock()
			return x
		}
	}
	indexCache.Unlock()
	x := buildIndex(tools)
	indexCache.Lock()
	indexCache.entries = append([]*toolIndex{x}, indexCache.entries...)
	if len(indexCache.entries) > indexCacheSize {
		indexCache.entries = indexCache.entries[:indexCacheSize]
	}
	indexCache.Unlock()
	return x
}

// sameTools reports whether b has the same names and tools as the cached
// copy a. Identical strings and tool pointers compare in constant time, so
// this is cheap even for large sets.
func sameTools(a, b Tools) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i].Name != b[i].Name || !sameTool(a[i].Tool, b[i].Tool) {
			return false
		}
	}
	return true
}

// sameTool reports whether a and b are the same tool. Most tools are
// function tools, and comparing their pointers after a type assertion
// spares the general interface comparison, a third of the cost of checking
// a large set.
func sameTool(a, b Tool) bool {
	if fa, ok := a.(*FunctionTool); ok {
		fb, ok := b.(*FunctionTool)
		return ok && fa == fb
	}
	return a == b
}

func buildIndex(tools Tools) *toolIndex {
	x := &toolIndex{tools: slices.Clone(tools), byName: make(map[string]int, len(tools))}
	for i, nt := range tools {
		if nt.Tool == nil {
			x.err = &InvalidArgumentError{Parameter: "Tools", Message: fmt.Sprintf("tool %d (%q) is nil", i, nt.Name)}
			return x
		}
		if nt.Name == "" {
			x.err = &InvalidArgumentError{Parameter: "Tools", Message: fmt.Sprintf("tool %d has no name", i)}
			return x
		}
		if _, dup := x.byName[nt.Name]; dup {
			x.err = &InvalidArgumentError{Parameter: "Tools", Message: fmt.Sprintf("tool name %q is used twice", nt.Name)}
			return x
		}
		x.byName[nt.Name] = i
		if pt, ok := nt.Tool.(*ProviderTool); ok && pt.supportsDeferredResults {
			x.deferredResults = true
		}
		c := nt.Tool.core()
		if c.caller != nil {
			x.callers = append(x.callers, i)
		}
		if c.deferLoading || c.search != nil {
			x.relevant = true
		}
		if c.search != nil && !c.deferLoading {
			x.searches = append(x.searches, i)
		}
		if !c.deferLoading {
			x.eager = append(x.eager, i)
			continue
		}
		if c.search != nil {
			x.searches = append(x.searches, i)
		} else {
			x.deferred = append(x.deferred, i)
			if ft, ok := nt.Tool.(*FunctionTool); ok && ft.describe != nil {
				x.dynamicDescriptions = true
			}
		}
	}
	return x
}

// get returns the tool registered under name.
func (x *toolIndex) get(name string) (Tool, bool) {
	i, ok := x.byName[name]
	if !ok {
		return nil, false
	}
	return x.tools[i].Tool, true
}

// staticCatalog returns the search catalog of all deferred tools when no
// description depends on the step; callers must not modify it.
func (x *toolIndex) staticCatalog() []SearchCandidate {
	x.catalogOnce.Do(func() {
		x.catalog = make([]SearchCandidate, 0, len(x.deferred))
		for _, i := range x.deferred {
			nt := x.tools[i]
			c := SearchCandidate{Name: nt.Name, Group: nt.Tool.core().group, Parameters: toolParameters(nt.Tool)}
			if ft, ok := nt.Tool.(*FunctionTool); ok {
				c.Description = ft.description
			}
			x.catalog = append(x.catalog, c)
		}
	})
	return x.catalog
}
