package bm25

// ParseRelatedForTest parses the built-in table of related stems.
func ParseRelatedForTest() {
	if _, err := parseRelated(relatedData); err != nil {
		panic(err)
	}
}
