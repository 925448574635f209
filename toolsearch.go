package ai

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"github.com/google/jsonschema-go/jsonschema"
	"golang.org/x/text/cases"
	"golang.org/x/text/language"
)

// DefaultMaxResults is how many tools a search returns at most unless
// [ToolSearchOptions.MaxResults] says otherwise.
const DefaultMaxResults = 5

// maxSafeInteger is the largest integer every JSON consumer represents
// exactly (2^53-1).
const maxSafeInteger = 1<<53 - 1

// SearchCandidate is a deferred tool a search may return: its name, its
// description as resolved for the current step ("" when it has none), and
// its group ("" when it has none, see [WithGroup]).
type SearchCandidate struct {
	Name        string `json:"name"`
	Description string `json:"description,omitempty"`
	Group       string `json:"group,omitempty"`
	// Parameters are the tool's top-level input parameters, one a line as
	// "name: description" (or just "name"), in the schema's order, for
	// rankings that search them; the built-in ranking does not. They are
	// not part of the result the model sees.
	Parameters string `json:"-"`
}

// maxParameterText bounds the parameter text of one candidate.
const maxParameterText = 4096

// parameterText returns the "name: description" lines of the top-level
// properties of an input schema, in the order they appear, at most
// maxParameterText bytes; "" when the schema has none or is not an object.
func parameterText(schema json.RawMessage) string {
	if len(schema) == 0 {
		return ""
	}
	dec := json.NewDecoder(bytes.NewReader(schema))
	// Find "properties" at the top level.
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return ""
	}
	var b strings.Builder
	for dec.More() {
		key, err := dec.Token()
		if err != nil {
			return ""
		}
		if key != "properties" {
			var skip json.RawMessage
			if dec.Decode(&skip) != nil {
				return ""
			}
			continue
		}
		if t, err := dec.Token(); err != nil || t != json.Delim('{') {
			return ""
		}
		for dec.More() {
			name, err := dec.Token()
			if err != nil {
				return b.String()
			}
			var prop struct {
				Description string `json:"description"`
			}
			if dec.Decode(&prop) != nil {
				return b.String()
			}
			n, _ := name.(string)
			line := n
			if prop.Description != "" {
				line += ": " + prop.Description
			}
			if b.Len()+len(line)+1 > maxParameterText {
				return b.String()
			}
			if b.Len() > 0 {
				b.WriteByte('\n')
			}
			b.WriteString(line)
		}
		return b.String()
	}
	return b.String()
}

// SearchFunc is an application's own search. It gets the model's query and
// the candidates in registration order, and returns the names of the
// matching tools, best first. It may block (it gets the generation's ctx),
// and it may return unknown names and duplicates, which are dropped. An
// error becomes a tool error the model sees.
type SearchFunc func(ctx context.Context, query string, candidates []SearchCandidate) ([]string, error)

// ToolSearchOptions configure [NewToolSearch].
type ToolSearchOptions struct {
	// Search replaces the built-in keyword ranking.
	Search SearchFunc
	// MaxResults caps how many tools one search returns: nil means
	// [DefaultMaxResults]; otherwise it must be a positive integer.
	MaxResults *int
	// Groups adds an optional "group" to the search input: when the model
	// sets it, only the deferred tools of that group (see [WithGroup];
	// MCP tools carry their server's name) are searched, and a group no
	// candidate has is a tool error that lists the groups there are.
	Groups bool
	// SelectByName makes a query of the form "select:name1,name2" return
	// exactly the deferred tools of those names, in that order (unknown
	// names are left out, and names after the 64th ignored), instead of
	// ranking. Without it such a query is
	// ranked like any other, as in the TypeScript AI SDK.
	SelectByName bool
	// DeferOver makes deferral automatic: the tools with DeferLoading are
	// deferred only in steps where the definitions of all the tools the
	// step would otherwise send exceed the budget. Below it every tool is
	// sent and this search tool is not. Nil always defers.
	DeferOver *DeferralBudget
}

// DeferralBudget is the size of a step's tool definitions above which
// [ToolSearchOptions.DeferOver] defers tools. A zero field sets no limit.
type DeferralBudget struct {
	// Tokens is the most tokens the definitions may take, estimated as
	// one token per four bytes of each tool's name, description, input
	// schema and input examples (for provider tools, its id and
	// arguments) as JSON.
	Tokens int
	// Tools is the most tools that may be sent.
	Tools int
}

// SearchGroupError is the error of a search for a group that none of the
// searchable tools has.
type SearchGroupError struct {
	Group string
	// Groups are the groups there are, sorted.
	Groups []string
}

// Error implements the error interface.
func (e *SearchGroupError) Error() string {
	if len(e.Groups) == 0 {
		return fmt.Sprintf("no tool group %q: the tools have no groups; search without one", e.Group)
	}
	return fmt.Sprintf("no tool group %q; the groups are: %s", e.Group, strings.Join(e.Groups, ", "))
}

// ToolSearchResult is the output of a search tool: the matching tools, best
// first. Each becomes callable from the next step of the generation.
type ToolSearchResult struct {
	Tools []SearchCandidate `json:"tools"`
}

// ToolSearch returns a search tool with the built-in keyword ranking and at
// most [DefaultMaxResults] results. See [NewToolSearch].
func ToolSearch() *FunctionTool {
	t, err := NewToolSearch(ToolSearchOptions{})
	if err != nil {
		panic(err) // unreachable: the defaults are valid
	}
	return t
}

// NewToolSearch returns a tool the model calls with {"query": "..."} to
// discover the generation's deferred tools (those with DeferLoading) by name
// and description. The tools it returns are sent to the model from the next
// step on; a call of one of them in the same step as the search fails as a
// call of an unavailable tool.
//
// The built-in ranking splits camelCase names, lower-cases, and matches
// whole words: a query word found in a tool's name scores 2, found in its
// description 1; tools scoring 0 are dropped and equal scores keep
// registration order. [ToolSearchOptions.Search] replaces it.
//
// Discovery state belongs to each generation, never to the tool: the same
// search tool can serve any number of generations at once. It returns an
// *InvalidArgumentError when MaxResults is not a positive integer.
func NewToolSearch(opts ToolSearchOptions) (*FunctionTool, error) {
	max := DefaultMaxResults
	if opts.MaxResults != nil {
		max = *opts.MaxResults
		if max < 1 || max > maxSafeInteger {
			return nil, &InvalidArgumentError{Parameter: "MaxResults", Message: "must be a positive integer"}
		}
	}
	if b := opts.DeferOver; b != nil && (b.Tokens < 0 || b.Tools < 0 || b.Tokens == 0 && b.Tools == 0) {
		return nil, &InvalidArgumentError{Parameter: "DeferOver", Message: "needs a positive Tokens or Tools, and neither negative"}
	}
	desc := searchDescription(opts.Search != nil, max)
	if opts.Groups {
		desc += ` Set "group" to search only the tools of that group.`
	}
	if opts.SelectByName {
		desc += ` To load tools whose exact names you know, search for "select:" followed by the names, separated by commas.`
	}
	cfg := &searchConfig{fn: opts.Search, max: max, selectByName: opts.SelectByName}
	if opts.DeferOver != nil {
		b := *opts.DeferOver
		cfg.budget = &b
	}
	// An ordinary tool: it reaches the generation's discovery through its
	// execution options.
	t := NewTool(ToolDef[searchInput, ToolSearchResult]{
		Description: desc,
		InputSchema: searchInputSchema(opts.Groups),
		Execute: func(ctx context.Context, in searchInput, eo ToolExecutionOptions) (ToolSearchResult, error) {
			return cfg.search(ctx, eo.Discovery, in)
		},
	})
	t.c.search = cfg
	// It only reads and changes the generation's own state, so it runs in
	// the engine's process even when the effects run tools elsewhere.
	t.c.inEngine = true
	return t, nil
}

var errUnboundSearch = errors.New("a search tool only works inside a generation")

type searchInput struct {
	Query string `json:"query"`
	Group string `json:"group,omitempty"`
}

// maxGroupLen bounds the group a search input may name.
const maxGroupLen = 256

func searchInputSchema(groups bool) *jsonschema.Schema {
	s := &jsonschema.Schema{
		Type: "object",
		Properties: map[string]*jsonschema.Schema{
			"query": {Type: "string", MinLength: jsonschema.Ptr(1)},
		},
		Required:             []string{"query"},
		AdditionalProperties: &jsonschema.Schema{Not: &jsonschema.Schema{}},
	}
	if groups {
		s.Properties["group"] = &jsonschema.Schema{Type: "string", MaxLength: jsonschema.Ptr(maxGroupLen),
			Description: "Search only the tools of this group."}
	}
	return s
}

func searchDescription(custom bool, max int) string {
	first := "Find tools by keywords that appear in their names and descriptions."
	if custom {
		first = "Find tools that match a query."
	}
	n := strconv.Itoa(max)
	if max == DefaultMaxResults {
		n = "five"
	}
	return first + " Returns at most " + n + " tools. The tools found can be called from your next step, " +
		"once this call has finished and their definitions have been sent to you; do not call them before. " +
		"If nothing matches, search again with other keywords."
}

// IsToolSearch reports whether t was made by [ToolSearch] or
// [NewToolSearch].
func IsToolSearch(t Tool) bool { return t != nil && t.core().search != nil }

// searchConfig is the hidden part of a search tool.
type searchConfig struct {
	fn           SearchFunc
	max          int
	selectByName bool
	budget       *DeferralBudget

	mu      sync.Mutex
	indexes []*rankIndex // most recently used first
}

// maxCachedIndexes bounds the ranking indexes a search tool keeps, one per
// distinct candidate catalog.
const maxCachedIndexes = 4

// rank returns the names of the best candidates, at most max of them, using
// the cached index for this catalog when there is one.
func (c *searchConfig) rank(query string, catalog []SearchCandidate) []string {
	idx := c.index(catalog)
	return idx.query(query, c.max)
}

func (c *searchConfig) index(catalog []SearchCandidate) *rankIndex {
	c.mu.Lock()
	for i, idx := range c.indexes {
		if idx.matches(catalog) {
			if i > 0 {
				copy(c.indexes[1:i+1], c.indexes[:i])
				c.indexes[0] = idx
			}
			c.mu.Unlock()
			return idx
		}
	}
	c.mu.Unlock()
	idx := buildRankIndex(catalog)
	c.mu.Lock()
	c.indexes = append([]*rankIndex{idx}, c.indexes...)
	if len(c.indexes) > maxCachedIndexes {
		c.indexes = c.indexes[:maxCachedIndexes]
	}
	c.mu.Unlock()
	return idx
}

// rankIndex is an inverted index of one catalog: for every word, the
// candidates whose name (weight 2) or description (weight 1) contains it.
type rankIndex struct {
	catalog []SearchCandidate
	src     *SearchCandidate // the first element of the catalog it was built from
	// postings maps a word to entries candidate<<2 | weight.
	postings map[string][]uint32
}

func (x *rankIndex) matches(catalog []SearchCandidate) bool {
	if len(x.catalog) != len(catalog) {
		return false
	}
	if len(catalog) > 0 && &catalog[0] == x.src {
		// The catalog the index was built from, which is never modified.
		return true
	}
	for i := range catalog {
		if x.catalog[i] != catalog[i] {
			return false
		}
	}
	return true
}

func buildRankIndex(catalog []SearchCandidate) *rankIndex {
	x := &rankIndex{catalog: slices.Clone(catalog), postings: map[string][]uint32{}}
	if len(catalog) > 0 {
		x.src = &catalog[0]
	}
	var words []string
	for i, c := range catalog {
		weights := map[string]uint32{}
		words = tokenize(c.Name, words[:0])
		for _, w := range words {
			weights[w] |= 2
		}
		words = tokenize(c.Description, words[:0])
		for _, w := range words {
			weights[w] |= 1
		}
		for w, wt := range weights {
			x.postings[w] = append(x.postings[w], uint32(i)<<2|wt)
		}
	}
	return x
}

// maxScoredWords bounds the distinct query words that count, so that a
// candidate's score (at most 3 per word) fits in 16 bits whatever the
// query.
const maxScoredWords = math.MaxUint16 / 3

// query ranks the catalog for query: per distinct query word, 2 points if a
// candidate's name has it plus 1 if its description has it; zero scores are
// dropped; ties keep catalog order. Of a query with more than
// maxScoredWords distinct words found in the catalog, the first ones in
// sorted order count.
func (x *rankIndex) query(query string, max int) []string {
	if max <= 0 {
		return nil
	}
	terms := tokenize(query, nil)
	slices.Sort(terms)
	terms = slices.Compact(terms)
	var lists [][]uint32
	for _, t := range terms {
		if p := x.postings[t]; len(p) > 0 && len(lists) < maxScoredWords {
			lists = append(lists, p)
		}
	}
	if len(lists) == 0 {
		return nil
	}
	scores := make([]uint16, len(x.catalog))
	for _, postings := range lists {
		for _, p := range postings {
			scores[p>>2] += uint16(p&2) + uint16(p&1)
		}
	}
	// byScore[s] holds the first max candidates that scored s, in catalog
	// order.
	byScore := make([][]int32, 3*len(lists)+1)
	for i, s := range scores {
		if s == 0 || len(byScore[s]) == max {
			continue
		}
		if byScore[s] == nil {
			byScore[s] = make([]int32, 0, min(max, 16))
		}
		byScore[s] = append(byScore[s], int32(i))
	}
	kept := 0
	for _, b := range byScore {
		kept += len(b)
	}
	names := make([]string, 0, min(kept, max))
	for s := len(byScore) - 1; s > 0 && len(names) < max; s-- {
		for _, i := range byScore[s][:min(len(byScore[s]), max-len(names))] {
			names = append(names, x.catalog[i].Name)
		}
	}
	return names
}

// Ranking exposes the built-in keyword ranking: it returns the names of the
// candidates ranked for query, best first, without a cap. Applications can
// use it inside their own [SearchFunc], for example to combine it with
// another signal.
func Ranking(query string, candidates []SearchCandidate) []string {
	return buildRankIndex(candidates).query(query, len(candidates))
}

// Tokenize splits text into the words the built-in ranking compares: a
// space is inserted between an ASCII lower-case letter or digit and a
// following ASCII upper-case letter, the text is lower-cased with full
// Unicode rules, and the words are the runs of Unicode letters and numbers.
func Tokenize(text string) []string { return tokenize(text, nil) }

// tokenize appends the words of text to dst.
func tokenize(text string, dst []string) []string {
	ascii := true
	for i := 0; i < len(text); i++ {
		if text[i] >= utf8.RuneSelf {
			ascii = false
			break
		}
	}
	if ascii {
		return tokenizeASCII(text, dst)
	}
	split := splitCamel(text)
	lower := cases.Lower(language.Und).String(split)
	start := -1
	for i, r := range lower {
		word := unicode.IsLetter(r) || unicode.IsNumber(r)
		switch {
		case word && start < 0:
			start = i
		case !word && start >= 0:
			dst = append(dst, lower[start:i])
			start = -1
		}
	}
	if start >= 0 {
		dst = append(dst, lower[start:])
	}
	return dst
}

// splitCamel inserts a space between [a-z0-9] and a following [A-Z], left to
// right without overlapping (like a global regular expression replace).
func splitCamel(s string) string {
	n := 0
	for i := 0; i+1 < len(s); i++ {
		if isLowerOrDigit(s[i]) && isUpper(s[i+1]) {
			n++
			i++
		}
	}
	if n == 0 {
		return s
	}
	b := make([]byte, 0, len(s)+n)
	for i := 0; i < len(s); i++ {
		b = append(b, s[i])
		if i+1 < len(s) && isLowerOrDigit(s[i]) && isUpper(s[i+1]) {
			b = append(b, ' ', s[i+1])
			i++
		}
	}
	return string(b)
}

func isLowerOrDigit(c byte) bool { return c >= 'a' && c <= 'z' || c >= '0' && c <= '9' }
func isUpper(c byte) bool        { return c >= 'A' && c <= 'Z' }

// tokenizeASCII is tokenize for ASCII text, with one allocation per word at
// most (none for words that need no lower-casing). A camelCase boundary
// ends a word because splitCamel would put a space there.
func tokenizeASCII(text string, dst []string) []string {
	start := -1
	flush := func(end int) {
		w := text[start:end]
		for j := 0; j < len(w); j++ {
			if isUpper(w[j]) {
				b := []byte(w)
				for k, c := range b {
					if isUpper(c) {
						b[k] = c + 'a' - 'A'
					}
				}
				w = string(b)
				break
			}
		}
		dst = append(dst, w)
	}
	for i := 0; i < len(text); i++ {
		c := text[i]
		if !(isLowerOrDigit(c) || isUpper(c)) {
			if start >= 0 {
				flush(i)
				start = -1
			}
			continue
		}
		if start < 0 {
			start = i
			continue
		}
		if isUpper(c) && isLowerOrDigit(text[i-1]) {
			flush(i)
			start = i
		}
	}
	if start >= 0 {
		flush(len(text))
	}
	return dst
}

// SearchRecord is one search of a generation, as the observer and the
// result's [SearchSummary] see it.
type SearchRecord struct {
	// StepNumber is the step whose tool call ran the search.
	StepNumber int
	ToolCallID string
	// ToolName is the search tool's name.
	ToolName string
	Query    string
	// Group is the group the search was limited to ("" for none).
	Group string
	// Results are the names of the tools returned, best first; empty when
	// nothing matched or the search failed.
	Results []string
	// Err is why the search failed (an unknown group, an error of the
	// search function); the model saw it as a tool error.
	Err error
}

// DeferredToolCall is a call of a deferred tool by the model, and whether a
// search had found the tool before.
type DeferredToolCall struct {
	StepNumber int
	ToolCallID string
	ToolName   string
	// Found is true when a search of an earlier step returned the tool.
	// A call of a tool not found is an unavailable tool's call.
	Found bool
	// Rank is the tool's place, from 1, in the first search that returned
	// it; 0 when not found.
	Rank int
	// Search is that search's index in [SearchSummary.Searches]; -1 when
	// not found.
	Search int
}

// SearchSummary is what a generation's tool searches did: every search,
// and for every call of a deferred tool by the model (code mode's nested
// calls aside) whether and where a search had found it.
type SearchSummary struct {
	// Searches are in step order, and within a step in call order.
	Searches []SearchRecord
	// NoResult counts the searches that succeeded but returned no tool.
	NoResult int
	// Failed counts the searches that failed.
	Failed int
	// Calls are the model's calls of deferred tools, in order.
	Calls []DeferredToolCall
	// FoundAndCalled counts the calls of tools a search had found, and
	// CalledNotFound those of tools no search had found before.
	FoundAndCalled, CalledNotFound int
}

// SearchObserver is implemented by an [Observer] that also watches tool
// searches: ObserveSearch is called when a search of a generation ends,
// with the search tool call's context (the one StartToolCall returned).
// It may be called concurrently. Package aiotel records searches as span
// events and aislog as log records.
type SearchObserver interface {
	ObserveSearch(ctx context.Context, rec SearchRecord)
}

// toolParameters is the parameter text of a tool's input schema.
func toolParameters(t Tool) string {
	if in := t.core().input; in != nil {
		return parameterText(in.raw)
	}
	return ""
}
