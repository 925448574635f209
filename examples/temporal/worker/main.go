// Command worker runs the example's durable agent on a Temporal task
// queue. Start as many as you like; kill one while a tool runs and another
// finishes the run.
//
//	temporal server start-dev --headless
//	go run ./examples/temporal/worker
//	go run ./examples/temporal/worker -provider openai -model gpt-5-mini
package main

import (
	"flag"
	"log"
	"time"

	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/worker"

	"github.com/aisdkgo/ai/aitemporal"
	"github.com/aisdkgo/ai/examples/temporal/agent"
	"github.com/aisdkgo/ai/provider"
	"github.com/aisdkgo/ai/providers/openai"
)

func main() {
	address := flag.String("address", client.DefaultHostPort, "Temporal server address")
	queue := flag.String("task-queue", agent.TaskQueue, "task queue")
	prov := flag.String("provider", "scripted", "scripted, or openai (key from OPENAI_API_KEY)")
	modelID := flag.String("model", "gpt-5-mini", "model id for -provider openai")
	slow := flag.Duration("slow", 10*time.Second, "how long the weather tool takes")
	flag.Parse()

	var model provider.LanguageModel
	switch *prov {
	case "scripted":
		model = agent.ScriptedModel()
	case "openai":
		model = openai.New().Responses(*modelID)
	default:
		log.Fatalf("unknown provider %q", *prov)
	}

	c, err := client.Dial(client.Options{HostPort: *address})
	if err != nil {
		log.Fatal(err)
	}
	defer c.Close()
	w := worker.New(c, *queue, worker.Options{})
	if err := aitemporal.Register(w, agent.Config(model, *slow)); err != nil {
		log.Fatal(err)
	}
	if err := w.Run(worker.InterruptCh()); err != nil {
		log.Fatal(err)
	}
}
