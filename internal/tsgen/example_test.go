package tsgen_test

import (
	"encoding/json"
	"fmt"

	"github.com/aisdkgo/ai/internal/tsgen"
)

func ExampleCatalog() {
	tools := []tsgen.Tool{{
		Name:         "getWeather",
		Description:  "Current weather for a city.",
		InputSchema:  json.RawMessage(`{"type":"object","properties":{"city":{"type":"string"},"unit":{"enum":["C","F"]}},"required":["city"]}`),
		OutputSchema: json.RawMessage(`{"type":"object","properties":{"temperature":{"type":"number"}},"required":["temperature"]}`),
	}}
	fmt.Println(tsgen.Catalog(tools))
	// Output:
	// ```ts
	// declare const tools: {
	//   /** Current weather for a city. */
	//   getWeather: (input: { city: string; unit?: "C" | "F"; }) => Promise<{ temperature: number; }>;
	// };
	// ```
	//
	// Tool call examples:
	// ```ts
	// const result = await tools.getWeather({"city":"string","unit":"C"});
	// return { temperature: result.temperature };
	// ```
}

func ExampleTypeOf() {
	fmt.Println(tsgen.TypeOf(json.RawMessage(`{"type":"array","items":{"type":["string","null"]}}`)))
	// Output: Array<string | null>
}

func ExampleSample() {
	fmt.Println(string(tsgen.Sample(json.RawMessage(`{"type":"object","properties":{"day":{"type":"string","format":"date"},"count":{"type":"integer"}}}`))))
	// Output: {"day":"2026-01-01","count":1}
}
