package bm25

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"testing"

	"github.com/aisdkgo/ai"
)

var catalog = []ai.SearchCandidate{
	{Name: "getWeatherForecast", Description: "Get the weather forecast for a city"},
	{Name: "bookHotel", Description: "Book a hotel room for given dates"},
	{Name: "listBookings", Description: "List the bookings of the current user"},
	{Name: "getGeneInfo", Description: "Retrieve information about a gene"},
	{Name: "getExpressionPattern", Description: "Retrieve the gene expression pattern during development"},
	{Name: "evaluateExpression", Description: "Evaluate a mathematical expression"},
	{Name: "SEOTool", Description: "Tool that provides analytics content"},
	{Name: "FinanceTool", Description: "Stock quotes and market news"},
}

func TestQuery(t *testing.T) {
	x := New(catalog, nil)
	for _, tc := range []struct {
		query string
		k     int
		want  []string
	}{
		// Stems: "bookings" and "booked" meet "book" and "bookings".
		{"which rooms have I booked?", 2, []string{"bookHotel", "listBookings"}},
		// Neighbouring words: the pair "gene expression" decides.
		{"gene expression during embryo growth", 1, []string{"getExpressionPattern"}},
		// Acronyms are parted from the next word.
		{"seo report", 1, []string{"SEOTool"}},
		// Prefixes: "financial" stems to "financi", which starts with "financ".
		{"financial news", 1, []string{"FinanceTool"}},
		// Stop words alone match nothing.
		{"what is the of", 5, nil},
		{"", 5, nil},
	} {
		if got := x.Query(tc.query, tc.k); !slices.Equal(got, tc.want) {
			t.Errorf("Query(%q, %d) = %q, want %q", tc.query, tc.k, got, tc.want)
		}
	}
}

func TestQueryLimits(t *testing.T) {
	x := New(catalog, nil)
	all := x.Query("retrieve gene expression", 0)
	if len(all) != 3 {
		t.Fatalf("k=0 returned %q, want the 3 matching tools", all)
	}
	for k := 1; k <= 4; k++ {
		if got := x.Query("retrieve gene expression", k); !slices.Equal(got, all[:min(k, len(all))]) {
			t.Errorf("k=%d: got %q, want a prefix of %q", k, got, all)
		}
	}
}

func TestTiesKeepCatalogOrder(t *testing.T) {
	var cands []ai.SearchCandidate
	for i := range 40 {
		cands = append(cands, ai.SearchCandidate{Name: fmt.Sprintf("tool%02d", i), Description: "send a message"})
	}
	x := New(cands, nil)
	got := x.Query("message", 3)
	if want := []string{"tool00", "tool01", "tool02"}; !slices.Equal(got, want) {
		t.Errorf("got %q, want %q", got, want)
	}
	if got := x.Query("message", 0); len(got) != 40 || got[39] != "tool39" {
		t.Errorf("k=0 got %d names ending %q", len(got), got[len(got)-1])
	}
}

func TestNameWeight(t *testing.T) {
	cands := []ai.SearchCandidate{
		{Name: "lookup", Description: "translate text"},
		{Name: "translate", Description: "look up text"},
	}
	if got := New(cands, nil).Query("translate", 1); !slices.Equal(got, []string{"translate"}) {
		t.Errorf("name match ranked below description match: %q", got)
	}
	// With the name counting less than the description, the order flips.
	if got := New(cands, &Options{NameWeight: 0.1}).Query("translate", 1); !slices.Equal(got, []string{"lookup"}) {
		t.Errorf("NameWeight 0.1: got %q", got)
	}
}

func TestStopWordsOption(t *testing.T) {
	cands := []ai.SearchCandidate{{Name: "whoAmI", Description: "Tell who the user is"}}
	if got := New(cands, nil).Query("who", 5); got != nil {
		t.Errorf("default stop words: got %q", got)
	}
	if got := New(cands, &Options{StopWords: []string{}}).Query("who", 5); !slices.Equal(got, []string{"whoAmI"}) {
		t.Errorf("no stop words: got %q", got)
	}
	if got := New(cands, &Options{StopWords: []string{"User"}}).Query("user", 5); got != nil {
		t.Errorf("custom stop words: got %q", got)
	}
}

func TestSplitAcronyms(t *testing.T) {
	for in, want := range map[string][]string{
		"SEOTool":             {"seo", "tool"},
		"getHTTPResponseCode": {"get", "http", "response", "code"},
		"get3PLTrackingInfo":  {"get3", "pl", "tracking", "info"},
		"NASA":                {"nasa"},
		"Ünïcode SEOTool":     {"ünïcode", "seo", "tool"},
	} {
		if got := words(in); !slices.Equal(got, want) {
			t.Errorf("words(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestEmptyCatalog(t *testing.T) {
	x := New(nil, nil)
	if got := x.Query("anything", 5); got != nil {
		t.Errorf("got %q", got)
	}
	got, err := Search(nil)(context.Background(), "anything", nil)
	if err != nil || got != nil {
		t.Errorf("Search over no tools: %q, %v", got, err)
	}
}

func TestCache(t *testing.T) {
	cat := func(desc string) []ai.SearchCandidate {
		return []ai.SearchCandidate{{Name: "a", Description: desc}, {Name: "b", Description: "other"}}
	}
	c := &cache{p: resolve(nil)}
	first := c.index(cat("weather"))
	if again := c.index(slices.Clone(cat("weather"))); again != first {
		t.Error("an equal catalog was indexed again")
	}
	if other := c.index(cat("forecast")); other == first {
		t.Error("a catalog with another description reused the index")
	}
	for i := range 10 {
		c.index(cat(fmt.Sprint("d", i)))
	}
	if len(c.indexes) != maxCachedIndexes {
		t.Errorf("%d indexes cached, want %d", len(c.indexes), maxCachedIndexes)
	}
	if c.indexes[0].catalog[0].Description != "d9" {
		t.Errorf("most recent catalog is not first")
	}
}

func TestSearch(t *testing.T) {
	fn := Search(&Options{Limit: 1})
	got, err := fn(context.Background(), "hotel bookings", catalog)
	if err != nil || !slices.Equal(got, []string{"bookHotel"}) {
		t.Errorf("Search: %q, %v", got, err)
	}
}

func TestSearchConcurrent(t *testing.T) {
	fn := Search(&Options{Limit: 2})
	catalogs := [][]ai.SearchCandidate{catalog, catalog[:4], catalog[2:]}
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			for i := range 50 {
				cat := catalogs[(g+i)%len(catalogs)]
				got, err := fn(context.Background(), "book a hotel room", cat)
				if err != nil || len(got) > 2 {
					t.Errorf("got %q, %v", got, err)
					return
				}
				if slices.Contains(cat, catalog[1]) && (len(got) == 0 || got[0] != "bookHotel") {
					t.Errorf("got %q, want bookHotel first", got)
					return
				}
			}
		})
	}
	wg.Wait()
}

// A request of several sentences asks for several things: after the best
// tool for the energy demand, the tool for the other request comes before
// more tools for the energy demand.
func TestQueryCoverage(t *testing.T) {
	cands := []ai.SearchCandidate{
		{Name: "getEnergyDemand", Description: "Retrieve the energy demand of a region"},
		{Name: "getEnergyDemandProjection", Description: "Retrieve the projected energy demand of a region"},
		{Name: "getEnergyDemandHistory", Description: "Retrieve the past energy demand of a region"},
		{Name: "getClubMembership", Description: "Retrieve information about club membership"},
		{Name: "getWeather", Description: "Retrieve the weather"},
	}
	x := New(cands, nil)
	one := "Retrieve the energy demand of the region, and the club"
	if got := x.Query(one, 2); !slices.Equal(got, []string{"getEnergyDemand", "getEnergyDemandProjection"}) {
		t.Errorf("one sentence: got %q", got)
	}
	three := "Retrieve the energy demand of the region. Then the club. Thanks."
	if got := x.Query(three, 2); !slices.Equal(got, []string{"getEnergyDemand", "getClubMembership"}) {
		t.Errorf("three sentences: got %q", got)
	}
	// The whole list is the same set of tools either way.
	a, b := x.Query(one, 0), x.Query(three, 0)
	slices.Sort(a)
	slices.Sort(b)
	if !slices.Equal(a, b) {
		t.Errorf("coverage changed the set of tools: %q vs %q", a, b)
	}
}

// The words of a tool's parameters count, at a lower weight than its
// description's.
func TestQueryParameters(t *testing.T) {
	cands := []ai.SearchCandidate{
		{Name: "lookup", Description: "Look up a record.", Parameters: "isbn: The book's ISBN."},
		{Name: "catalog", Description: "Search the ISBN catalog."},
		{Name: "other", Description: "Something else."},
	}
	if got := New(cands, nil).Query("isbn", 5); !slices.Equal(got, []string{"catalog", "lookup"}) {
		t.Errorf("got %q", got)
	}
	if got := New(cands, &Options{ParameterWeight: 1e-9}).Query("book", 5); len(got) != 1 || got[0] != "lookup" {
		t.Errorf("a tiny weight still matches, last: got %q", got)
	}
	if got := New(cands, &Options{ParameterWeight: 4}).Query("isbn", 5); !slices.Equal(got, []string{"lookup", "catalog"}) {
		t.Errorf("a high weight ranks the parameter first: got %q", got)
	}
}

// A tool most of whose words the request mentions ranks above one that
// matches as many of the request's words but is mostly about what the
// request does not ask for ("diseases and pests"), even when a pair of
// neighbouring words ("information plant") favours the latter; for a
// request of three sentences too, whose results are ordered for coverage.
func TestQueryToolCoverage(t *testing.T) {
	cands := []ai.SearchCandidate{
		{Name: "getPlantDiseases", Description: "Retrieve information about plant diseases and pests"},
		{Name: "getPlantInformation", Description: "Retrieve information related to plants"},
		{Name: "waterPlant", Description: "Schedule watering for a plant"},
		{Name: "getWeather", Description: "Retrieve the weather for a city"},
		{Name: "getCityInfo", Description: "Retrieve information about a city"},
		{Name: "getSoilType", Description: "Retrieve the soil type of a garden"},
	}
	x := New(cands, nil)
	for _, q := range []string{
		"Give me information about a plant.",
		"I have a garden. Give me information about a plant. Then tell me the weather in Paris.",
	} {
		got := x.Query(q, 0)
		if i, j := slices.Index(got, "getPlantInformation"), slices.Index(got, "getPlantDiseases"); i < 0 || j < 0 || i > j {
			t.Errorf("Query(%q) = %q, want getPlantInformation above getPlantDiseases", q, got)
		}
	}
}
