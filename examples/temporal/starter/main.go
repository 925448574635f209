// Command starter starts a run of the example's durable agent, reports its
// progress, answers its approval requests and prints its result.
//
//	go run ./examples/temporal/starter -prompt "Mail Ana the weather in Lisbon."
//	go run ./examples/temporal/starter -approve=false   # deny every request
package main

import (
	"context"
	"flag"
	"fmt"
	"log"
	"time"

	"go.temporal.io/sdk/client"

	"github.com/aisdkgo/ai/aitemporal"
	"github.com/aisdkgo/ai/examples/temporal/agent"
)

func main() {
	address := flag.String("address", client.DefaultHostPort, "Temporal server address")
	queue := flag.String("task-queue", agent.TaskQueue, "task queue")
	prompt := flag.String("prompt", "Mail Ana the weather in Lisbon.", "prompt")
	approve := flag.Bool("approve", true, "approve (or deny) the run's approval requests")
	flag.Parse()

	c, err := client.Dial(client.Options{HostPort: *address})
	if err != nil {
		log.Fatal(err)
	}
	defer c.Close()
	ctx := context.Background()
	id := fmt.Sprintf("assistant-%d", time.Now().UnixNano())
	run, err := aitemporal.Start(ctx, c, client.StartWorkflowOptions{ID: id, TaskQueue: *queue},
		aitemporal.Input{Agent: agent.Name, Prompt: *prompt})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("started", id)

	// Follow the run and answer its approval requests.
	done := make(chan error, 1)
	var res aitemporal.Result
	go func() { done <- run.Get(ctx, &res) }()
	seen, answered := 0, map[string]bool{}
	tick := time.NewTicker(500 * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case err := <-done:
			if err != nil {
				log.Fatal(err)
			}
			fmt.Printf("result after %d steps (found %v): %s\n", len(res.Steps), res.Discovered, res.Text)
			return
		case <-tick.C:
		}
		p, err := aitemporal.QueryProgress(ctx, c, id, run.GetRunID())
		if err != nil {
			continue // the first workflow task may not have run yet
		}
		for ; seen < len(p.Steps); seen++ {
			s := p.Steps[seen]
			fmt.Printf("step %d: %d tool calls %s\n", s.Number, len(s.ToolCalls), s.Text)
		}
		for _, a := range p.PendingApprovals {
			if answered[a.ApprovalID] {
				continue
			}
			answered[a.ApprovalID] = true
			fmt.Printf("%s(%s) waits for approval: answering %v\n", a.ToolName, a.Input, *approve)
			if err := aitemporal.Approve(ctx, c, id, run.GetRunID(), aitemporal.Approval{ApprovalID: a.ApprovalID, Approved: *approve}); err != nil {
				log.Fatal(err)
			}
		}
	}
}
