package ai

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"
	"unicode/utf16"

	"github.com/aisdkgo/ai/provider"
)

// discovery is one generation's tool-search state: which deferred tools
// were found. It lives for one GenerateText or StreamText call and is never
// shared or stored in a tool.
type discovery struct {
	mu    sync.Mutex
	found map[string]struct{}
	// searches records every search of the generation, as it finished.
	searches []SearchRecord
}

// record keeps a finished search for the generation's summary.
func (d *discovery) record(rec SearchRecord) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.searches = append(d.searches, rec)
}

// records returns a copy of the searches so far.
func (d *discovery) records() []SearchRecord {
	d.mu.Lock()
	defer d.mu.Unlock()
	return slices.Clone(d.searches)
}

func (d *discovery) add(names []string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.found == nil {
		d.found = make(map[string]struct{}, len(names))
	}
	for _, n := range names {
		d.found[n] = struct{}{}
	}
}

// snapshot returns a copy of the found set, read once when a step is
// prepared so that finds during the step take effect in the next one.
func (d *discovery) snapshot() map[string]struct{} {
	d.mu.Lock()
	defer d.mu.Unlock()
	if len(d.found) == 0 {
		return nil
	}
	m := make(map[string]struct{}, len(d.found))
	for k := range d.found {
		m[k] = struct{}{}
	}
	return m
}

// checkSearchEligibility rejects search setups that cannot work: a deferred
// search tool, and deferred or search tools reachable other than directly or
// through a caller that announces tools in the conversation.
func checkSearchEligibility(idx *toolIndex, r *routing) (relevant bool, err error) {
	check := func(i int) error {
		nt := idx.tools[i]
		c := nt.Tool.core()
		bad := c.search != nil && c.deferLoading
		if callers, ok := r.callersOf(nt.Name); ok {
			for _, name := range callers {
				if name == DirectCall {
					continue
				}
				t, _ := idx.get(name)
				if t == nil || t.core().caller == nil || t.core().caller.modelMessage == nil {
					bad = true
				}
			}
		}
		if bad {
			return &InvalidArgumentError{Parameter: "Tools", Message: fmt.Sprintf(
				"tool %q must be callable directly or through a code mode tool that announces tools in the conversation, and a search tool cannot itself defer loading", nt.Name)}
		}
		return nil
	}
	for _, i := range idx.searches {
		if err := check(i); err != nil {
			return true, err
		}
	}
	if r != nil {
		for _, i := range idx.deferred {
			if err := check(i); err != nil {
				return true, err
			}
		}
	}
	return idx.relevant, nil
}

// stepEntry is one tool of a step.
type stepEntry struct {
	name string
	tool Tool // as registered
	// model is true when the model sees the tool.
	model bool
}

// stepTools is the tool setup of one step.
type stepTools struct {
	entries []stepEntry
	// active is the step's active-tools filter (nil: all tools).
	active map[string]bool
	// activeSet records whether an active filter applies at all.
	activeSet bool
	defs      []provider.Tool
	choice    ToolChoice
	// exec is false when the tool choice is none: nothing executes.
	exec           bool
	toolsContext   map[string]any
	sandbox        Sandbox
	callerMessages []string
	// callees are the tools routed to each caller tool, by caller.
	callees map[string]Tools
	// none is true when the generation has no tool set at all.
	none bool
	// undeferred is true when the step's tools fit the budget of a search
	// tool that defers automatically: every tool is sent, that search
	// tool is not.
	undeferred bool
}

// modelTool returns the tool the model may call by name.
func (st *stepTools) modelTool(name string) (*stepEntry, bool) {
	for i := range st.entries {
		if st.entries[i].model && st.entries[i].name == name {
			return &st.entries[i], true
		}
	}
	return nil, false
}

// execTool returns the tool that executes calls of name.
func (st *stepTools) execTool(name string) (*stepEntry, bool) {
	if !st.exec {
		return nil, false
	}
	for i := range st.entries {
		if st.entries[i].name == name {
			return &st.entries[i], true
		}
	}
	return nil, false
}

// modelToolNames lists the tools the model may call, in step order.
func (st *stepTools) modelToolNames() []string {
	names := []string{}
	for _, e := range st.entries {
		if e.model {
			names = append(names, e.name)
		}
	}
	return names
}

func (st *stepTools) modelTools() Tools {
	var ts Tools
	for _, e := range st.entries {
		if e.model {
			ts = append(ts, NamedTool{Name: e.name, Tool: e.tool})
		}
	}
	return ts
}

// prepareTools builds a step's tools: active filter, then deferred tools
// hidden until found, then caller routing, then the provider definitions in
// tool order.
func (r *run) prepareTools(s *step, activeNames []string, activeSet bool, order []string, choice ToolChoice, toolsContext map[string]any, sandbox Sandbox) error {
	st := s.tools
	*st = stepTools{
		choice:       choice.Normalized(),
		toolsContext: toolsContext,
		sandbox:      sandbox,
		activeSet:    activeSet,
	}
	st.exec = st.choice.Type != ToolChoiceNone
	if r.opts.Tools == nil {
		st.none = true
		return nil
	}
	if activeSet {
		st.active = make(map[string]bool, len(activeNames))
		for _, n := range activeNames {
			st.active[n] = true
		}
	}
	if !r.searchRelevant && r.routing == nil && !activeSet {
		// Every tool, as registered: the index keeps these entries, and
		// their provider list when no description depends on the step.
		st.entries = r.idx.staticEntries()
		if order == nil {
			if defs := r.idx.staticDefs(); defs != nil {
				st.defs = defs
				return nil
			}
		}
		defs, err := r.definitions(st, order)
		st.defs = defs
		return err
	}
	add := func(i int) {
		nt := r.idx.tools[i]
		if activeSet && !st.active[nt.Name] {
			return
		}
		st.entries = append(st.entries, stepEntry{name: nt.Name, tool: nt.Tool, model: true})
	}
	if !r.searchRelevant {
		for i := range r.idx.tools {
			add(i)
		}
	} else if b := r.idx.deferralBudget(); b != nil && r.fitsBudget(st, b) {
		st.undeferred = true
		for i, nt := range r.idx.tools {
			if sc := nt.Tool.core().search; sc == nil || sc.budget == nil {
				add(i)
			}
		}
	} else {
		// The tools that are not deferred, merged in set order with the
		// deferred tools found before this step.
		var found []int
		for name := range r.discovery.snapshot() {
			if i, ok := r.idx.byName[name]; ok {
				found = append(found, i)
			}
		}
		slices.Sort(found)
		eager := r.idx.eager
		for len(eager) > 0 || len(found) > 0 {
			if len(found) == 0 || len(eager) > 0 && eager[0] < found[0] {
				add(eager[0])
				eager = eager[1:]
			} else {
				add(found[0])
				found = found[1:]
			}
		}
	}
	if r.routing != nil {
		r.routeCallers(s)
	}
	defs, err := r.definitions(st, order)
	if err != nil {
		return err
	}
	st.defs = defs
	return nil
}

// definitions builds the provider tool list of a step.
func (r *run) definitions(st *stepTools, order []string) ([]provider.Tool, error) {
	var visible []*stepEntry
	for i := range st.entries {
		if st.entries[i].model {
			visible = append(visible, &st.entries[i])
		}
	}
	if len(visible) == 0 {
		return nil, nil
	}
	if order != nil {
		rank := make(map[string]int, len(order))
		for i, n := range order {
			if _, ok := rank[n]; !ok {
				rank[n] = i
			}
		}
		slices.SortStableFunc(visible, func(a, b *stepEntry) int {
			ra, oka := rank[a.name]
			rb, okb := rank[b.name]
			switch {
			case oka && okb:
				return cmp.Compare(ra, rb)
			case oka:
				return -1
			case okb:
				return 1
			}
			return compareUTF16(a.name, b.name)
		})
	}
	// The previous step's list is reused when it is the same.
	if prev := r.lastDefs; len(prev) == len(visible) {
		same := true
		for i, e := range visible {
			d, ok := r.definitionIfStatic(e.name, e.tool)
			if !ok || d != prev[i] {
				same = false
				break
			}
		}
		if same {
			return prev, nil
		}
	}
	defs := make([]provider.Tool, 0, len(visible))
	for _, e := range visible {
		d, err := toolDefinition(e.name, e.tool, st)
		if err != nil {
			return nil, err
		}
		defs = append(defs, d)
	}
	r.lastDefs = defs
	return defs, nil
}

// definitionIfStatic returns a tool's cached definition when it does not
// depend on the step.
func (r *run) definitionIfStatic(name string, t Tool) (provider.Tool, bool) {
	if ft, ok := t.(*FunctionTool); ok && ft.describe == nil {
		if d := ft.cache.def.Load(); d != nil && d.Name == name {
			return d, true
		}
	}
	return nil, false
}

// toolDefinition returns the provider definition of one tool; st gives the
// context of description functions (nil for tools without one).
func toolDefinition(name string, t Tool, st *stepTools) (provider.Tool, error) {
	switch t := t.(type) {
	case *ProviderTool:
		return &provider.ProviderTool{ID: t.id, Name: name, Args: t.args}, nil
	case *FunctionTool:
		if t.describe == nil {
			if d := t.cache.def.Load(); d != nil && d.Name == name {
				return d, nil
			}
		}
		desc, err := describe(t, name, st)
		if err != nil {
			return nil, err
		}
		d := &provider.FunctionTool{
			Name:            name,
			Description:     desc,
			InputSchema:     t.c.input.raw,
			InputExamples:   t.inputExamples,
			Strict:          t.strict,
			ProviderOptions: t.c.providerOptions,
		}
		if t.describe == nil {
			t.cache.def.Store(d)
		}
		return d, nil
	}
	return nil, fmt.Errorf("unknown tool type %T", t)
}

// describe resolves a function tool's description for a step.
func describe(t *FunctionTool, name string, st *stepTools) (desc string, err error) {
	if t.describe == nil {
		return t.description, nil
	}
	defer func() {
		if p := recover(); p != nil {
			err = &CallbackPanicError{Callback: "the description function of tool " + name, Panic: p}
		}
	}()
	if st == nil {
		return t.describe(DescriptionOptions{}), nil
	}
	return t.describe(DescriptionOptions{Context: st.toolsContext[name], Sandbox: st.sandbox,
		Callees: Callees{tools: st.callees[name], st: st}}), nil
}

// Discovery is a generation's tool discovery as a running tool sees it, in
// [ToolExecutionOptions]: the deferred tools a search may find in the
// step, and the way to make the tools found callable from the next step.
// The search tool of [ToolSearch] is an ordinary tool built on it; any tool
// can search and load deferred tools the same way. The zero Discovery (a
// tool run outside a generation) has nothing to search.
type Discovery struct {
	r *run
	s *step
	// tool and callID are the running call's.
	tool, callID string
}

// Available reports whether a generation is behind d.
func (d Discovery) Available() bool { return d.r != nil }

// Candidates returns the tools a search by the running tool may find in
// this step: the generation's deferred tools its callers may reach, with
// their descriptions resolved for the step, in registration order. Tools
// found before are included: finding them again is harmless.
func (d Discovery) Candidates() ([]SearchCandidate, error) {
	if d.r == nil {
		return nil, errUnboundSearch
	}
	return d.r.catalog(d.s.tools, d.tool)
}

// Load makes the named deferred tools callable from the next step of the
// generation on (a tool found in a step is not callable in that step).
func (d Discovery) Load(names ...string) {
	if d.r != nil {
		d.r.discovery.add(names)
	}
}

// Record reports a finished search for the generation's search telemetry:
// [GenerateTextResult.ToolSearch] and a [SearchObserver].
func (d Discovery) Record(ctx context.Context, query, group string, results []string, err error) {
	if d.r == nil {
		return
	}
	if results == nil {
		results = []string{}
	}
	rec := SearchRecord{StepNumber: d.s.number, ToolCallID: d.callID, ToolName: d.tool,
		Query: query, Group: group, Results: results, Err: err}
	d.r.discovery.record(rec)
	if so, ok := d.r.opts.Observer.(SearchObserver); ok {
		callback("Observer.ObserveSearch", func() { so.ObserveSearch(ctx, rec) })
	}
}

// search runs one call of a search tool through the generation's
// discovery: it ranks the candidates (or, for a "select:" query, looks the
// names up), loads the finds for the next step, and records the search.
func (cfg *searchConfig) search(ctx context.Context, d Discovery, in searchInput) (ToolSearchResult, error) {
	if !d.Available() {
		return ToolSearchResult{}, errUnboundSearch
	}
	res, err := cfg.find(ctx, d, in)
	var names []string
	for _, t := range res.Tools {
		names = append(names, t.Name)
	}
	d.Record(ctx, in.Query, in.Group, names, err)
	return res, err
}

func (cfg *searchConfig) find(ctx context.Context, d Discovery, in searchInput) (ToolSearchResult, error) {
	catalog, err := d.Candidates()
	if err != nil {
		return ToolSearchResult{}, err
	}
	if in.Group != "" {
		catalog, err = inGroup(catalog, in.Group)
		if err != nil {
			return ToolSearchResult{}, err
		}
	}
	limit := cfg.max
	var ranked []string
	var selected bool
	if cfg.selectByName {
		ranked, selected = selectedNames(in.Query)
	}
	if selected {
		// Exact names: as many as were asked for.
		limit = len(ranked)
	} else if cfg.fn != nil {
		ranked, err = cfg.fn(ctx, in.Query, slices.Clone(catalog))
		if err != nil {
			return ToolSearchResult{}, err
		}
	} else {
		ranked = cfg.rank(in.Query, catalog)
	}
	res := ToolSearchResult{Tools: []SearchCandidate{}}
	var names []string
	for _, name := range ranked {
		if len(res.Tools) >= limit {
			break
		}
		i := slices.IndexFunc(catalog, func(c SearchCandidate) bool { return c.Name == name })
		if i < 0 || slices.Contains(names, name) {
			continue
		}
		names = append(names, name)
		res.Tools = append(res.Tools, catalog[i])
	}
	d.Load(names...)
	return res, nil
}

// inGroup returns the candidates of group, or a *SearchGroupError when
// there are none.
func inGroup(catalog []SearchCandidate, group string) ([]SearchCandidate, error) {
	var out []SearchCandidate
	var groups []string
	for _, c := range catalog {
		if c.Group == group {
			out = append(out, c)
		} else if c.Group != "" {
			groups = append(groups, c.Group)
		}
	}
	if len(out) == 0 {
		slices.Sort(groups)
		return nil, &SearchGroupError{Group: group, Groups: slices.Compact(groups)}
	}
	return out, nil
}

// selectPrefix starts a query that names tools (see
// [ToolSearchOptions.SelectByName]).
const selectPrefix = "select:"

// maxSelectNames bounds the names one "select:" query loads.
const maxSelectNames = 64

// selectedNames returns the names of a "select:a,b" query, trimmed, empty
// ones left out, the first maxSelectNames at most; ok is false for other
// queries.
func selectedNames(query string) (names []string, ok bool) {
	q := strings.TrimSpace(query)
	if len(q) < len(selectPrefix) || !strings.EqualFold(q[:len(selectPrefix)], selectPrefix) {
		return nil, false
	}
	for n := range strings.SplitSeq(q[len(selectPrefix):], ",") {
		if n = strings.TrimSpace(n); n != "" {
			names = append(names, n)
			if len(names) == maxSelectNames {
				break
			}
		}
	}
	return names, true
}

// deferralBudget returns the budget of the first search tool that defers
// automatically, nil when none does.
func (x *toolIndex) deferralBudget() *DeferralBudget {
	for _, i := range x.searches {
		if sc := x.tools[i].Tool.core().search; sc.budget != nil {
			return sc.budget
		}
	}
	return nil
}

// fitsBudget reports whether the definitions of the step's tools (active,
// search tools that defer automatically left out) fit b.
func (r *run) fitsBudget(st *stepTools, b *DeferralBudget) bool {
	tools, bytes := 0, 0
	for _, nt := range r.idx.tools {
		if st.activeSet && !st.active[nt.Name] {
			continue
		}
		if sc := nt.Tool.core().search; sc != nil && sc.budget != nil {
			continue
		}
		tools++
		if b.Tools > 0 && tools > b.Tools {
			return false
		}
		if b.Tokens > 0 {
			d, err := toolDefinition(nt.Name, nt.Tool, st)
			if err != nil {
				// The error surfaces when the step's definitions are built.
				return false
			}
			bytes += definitionSize(d)
			if EstimateTokens(bytes) > b.Tokens {
				return false
			}
		}
	}
	return true
}

// definitionSize is the size in bytes of what a tool definition sends: a
// function tool's name, description, input schema and examples; a
// provider tool's name, id and arguments as JSON.
func definitionSize(d provider.Tool) int {
	switch d := d.(type) {
	case *provider.FunctionTool:
		n := len(d.Name) + len(d.Description) + len(d.InputSchema)
		for _, ex := range d.InputExamples {
			n += len(ex)
		}
		return n
	case *provider.ProviderTool:
		args, _ := json.Marshal(d.Args)
		return len(d.Name) + len(d.ID) + len(args)
	}
	return 0
}

// EstimateTokens is the estimate [DeferralBudget] uses: one token per four
// bytes, rounded up.
func EstimateTokens(bytes int) int { return (bytes + 3) / 4 }

// DefinitionTokens estimates the tokens the definitions of tools take, as
// [DeferralBudget] counts them, with their static descriptions (a
// description function is called with no context). It helps choose a
// budget.
func DefinitionTokens(tools Tools) (int, error) {
	bytes := 0
	for _, nt := range tools {
		if nt.Tool == nil {
			return 0, &InvalidArgumentError{Parameter: "tools", Message: fmt.Sprintf("tool %q is nil", nt.Name)}
		}
		if IsToolSearch(nt.Tool) {
			continue
		}
		d, err := toolDefinition(nt.Name, nt.Tool, nil)
		if err != nil {
			return 0, err
		}
		bytes += definitionSize(d)
	}
	return EstimateTokens(bytes), nil
}

// searchSummary summarises the searches of the generation and the calls of
// deferred tools in its steps; nil when the generation has no tool search.
func (r *run) searchSummary() *SearchSummary {
	if !r.searchRelevant || len(r.idx.searches) == 0 {
		return nil
	}
	sum := &SearchSummary{Searches: r.discovery.records()}
	// Searches of one step may finish in any order: order them as their
	// calls are in the step.
	pos := map[string]int{}
	for _, st := range r.steps {
		for i, p := range st.Content {
			if c, ok := p.(ToolCall); ok {
				pos[c.ToolCallID] = i
			}
		}
	}
	slices.SortStableFunc(sum.Searches, func(a, b SearchRecord) int {
		return cmp.Or(cmp.Compare(a.StepNumber, b.StepNumber), cmp.Compare(pos[a.ToolCallID], pos[b.ToolCallID]))
	})
	for _, s := range sum.Searches {
		switch {
		case s.Err != nil:
			sum.Failed++
		case len(s.Results) == 0:
			sum.NoResult++
		}
	}
	for _, st := range r.steps {
		for _, p := range st.Content {
			c, ok := p.(ToolCall)
			if !ok || c.ProviderExecuted {
				continue
			}
			i, ok := r.idx.byName[c.ToolName]
			if !ok {
				continue
			}
			if core := r.idx.tools[i].Tool.core(); !core.deferLoading || core.search != nil {
				continue
			}
			use := DeferredToolCall{StepNumber: st.StepNumber, ToolCallID: c.ToolCallID, ToolName: c.ToolName, Search: -1}
			for j, s := range sum.Searches {
				if s.StepNumber >= st.StepNumber {
					break
				}
				if k := slices.Index(s.Results, c.ToolName); k >= 0 {
					use.Found, use.Rank, use.Search = true, k+1, j
					break
				}
			}
			if use.Found {
				sum.FoundAndCalled++
			} else {
				sum.CalledNotFound++
			}
			sum.Calls = append(sum.Calls, use)
		}
	}
	return sum
}

// catalog lists the deferred tools a search may return in a step: active,
// not search tools, and sharing a caller with the search tool; descriptions
// resolved with the step's context.
func (r *run) catalog(st *stepTools, searchName string) ([]SearchCandidate, error) {
	if !st.activeSet && r.routing == nil && !r.idx.dynamicDescriptions {
		return r.idx.staticCatalog(), nil
	}
	searchCallers := r.effectiveCallers(searchName, st)
	var out []SearchCandidate
	for _, i := range r.idx.deferred {
		nt := r.idx.tools[i]
		if st.activeSet && !st.active[nt.Name] {
			continue
		}
		if !sharesCaller(searchCallers, r.effectiveCallers(nt.Name, st)) {
			continue
		}
		cand := SearchCandidate{Name: nt.Name, Group: nt.Tool.core().group, Parameters: toolParameters(nt.Tool)}
		if ft, ok := nt.Tool.(*FunctionTool); ok {
			d, err := describe(ft, nt.Name, st)
			if err != nil {
				return nil, err
			}
			cand.Description = d
		}
		out = append(out, cand)
	}
	return out, nil
}

// effectiveCallers returns the callers of a tool that exist in the step:
// the direct marker and caller tools present in the active set.
func (r *run) effectiveCallers(name string, st *stepTools) []string {
	callers, ok := r.routing.callersOf(name)
	if !ok {
		return directOnly
	}
	var out []string
	for _, c := range callers {
		if c == DirectCall || !st.activeSet || st.active[c] {
			out = append(out, c)
		}
	}
	return out
}

var directOnly = []string{DirectCall}

func sharesCaller(a, b []string) bool {
	if len(a) == 1 && len(b) == 1 {
		return a[0] == b[0]
	}
	for _, x := range a {
		if slices.Contains(b, x) {
			return true
		}
	}
	return false
}

// searchOutput is the JSON form of a search result for the model.
func searchOutput(res ToolSearchResult) json.RawMessage {
	b, _ := json.Marshal(res)
	return b
}

// compareUTF16 orders strings by their UTF-16 code units, as JavaScript's <
// does. It differs from byte (and code point) order only where a character
// above U+FFFF meets one from U+E000 to U+FFFF.
func compareUTF16(a, b string) int {
	if !hasSupplementary(a) && !hasSupplementary(b) {
		return strings.Compare(a, b)
	}
	return slices.Compare(utf16.Encode([]rune(a)), utf16.Encode([]rune(b)))
}

// hasSupplementary reports whether s has a character above U+FFFF (a
// four-byte UTF-8 sequence).
func hasSupplementary(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0xF0 {
			return true
		}
	}
	return false
}
