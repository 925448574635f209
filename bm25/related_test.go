package bm25

import (
	"slices"
	"testing"

	"github.com/aisdkgo/ai"
)

// TestRelatedTable checks that the embedded WordNet table loads and relates
// synonyms both ways.
func TestRelatedTable(t *testing.T) {
	m := relatedTable()
	if len(m) < 10000 {
		t.Fatalf("%d stems in the table, want over 10,000", len(m))
	}
	for _, pair := range [][2]string{{"buy", "purchas"}, {"purchas", "buy"}, {"physician", "doctor"}, {"car", "automobil"}} {
		if !slices.Contains(m[pair[0]], pair[1]) {
			t.Errorf("%s relates to %v, want %s among them", pair[0], m[pair[0]], pair[1])
		}
	}
	for st, rel := range m {
		if st == "" || slices.Contains(rel, st) || !slices.IsSorted(rel) {
			t.Fatalf("bad line for %q: %v", st, rel)
		}
	}
	if _, err := parseRelated([]byte("not gzip")); err == nil {
		t.Error("parseRelated accepted data that is not gzip-compressed")
	}
}

// TestSynonyms finds, with Options.Synonyms only, tools that share no word
// with the request, and keeps an exact match above a related one.
func TestSynonyms(t *testing.T) {
	cat := []ai.SearchCandidate{
		{Name: "orderMeal", Description: "Order a meal from a restaurant"},
		{Name: "buyTicket", Description: "Buy tickets for concerts"},
		{Name: "findDoctor", Description: "Find a doctor near you"},
		{Name: "findPhysician", Description: "Find a physician near you"},
	}
	if got := New(cat, nil).Query("purchase seats", 5); len(got) != 0 {
		t.Fatalf("without Synonyms: %v, want nothing", got)
	}
	x := New(cat, &Options{Synonyms: true})
	if got := x.Query("purchase seats", 5); !slices.Equal(got, []string{"buyTicket"}) {
		t.Errorf("purchase seats: %v, want [buyTicket]", got)
	}
	if got := x.Query("physician", 5); !slices.Equal(got, []string{"findPhysician", "findDoctor"}) {
		t.Errorf("physician: %v, want [findPhysician findDoctor]", got)
	}
}
