// Command conform plays a scenario file through the library and prints its
// trace.
//
//	go run ./internal/conformance/cmd/conform SCENARIO.json
//	go run ./internal/conformance/cmd/conform -compare EXPECTED.trace.json SCENARIO.json
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"

	"github.com/aisdkgo/ai/internal/conformance"
)

func main() {
	compare := flag.String("compare", "", "compare the trace with this expected trace instead of printing it")
	flag.Parse()
	if flag.NArg() != 1 {
		fmt.Fprintln(os.Stderr, "usage: conform [-compare EXPECTED.trace.json] SCENARIO.json")
		os.Exit(2)
	}
	data, err := os.ReadFile(flag.Arg(0))
	if err != nil {
		fail(err)
	}
	s, err := conformance.ParseScenario(data)
	if err != nil {
		fail(err)
	}
	trace, err := conformance.RunScenario(context.Background(), s)
	if err != nil {
		fail(err)
	}
	out, err := conformance.MarshalTrace(trace)
	if err != nil {
		fail(err)
	}
	if *compare == "" {
		os.Stdout.Write(out)
		return
	}
	expData, err := os.ReadFile(*compare)
	if err != nil {
		fail(err)
	}
	var expected, actual any
	if err := json.Unmarshal(expData, &expected); err != nil {
		fail(err)
	}
	if err := json.Unmarshal(out, &actual); err != nil {
		fail(err)
	}
	diffs := conformance.Compare(expected, actual)
	if len(diffs) == 0 {
		return
	}
	fmt.Printf("%d difference(s):\n", len(diffs))
	for _, d := range diffs {
		fmt.Println("  " + d)
	}
	os.Exit(1)
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "conform:", err)
	os.Exit(2)
}
