// Package uistream serves chat front ends built on the AI SDK's UI message
// stream protocol (the useChat hook of @ai-sdk/react and the clients that
// speak the same protocol) from a Go backend.
//
// One turn of a chat is one POST: the client sends the whole conversation
// as UI messages ([Message]); the server answers with a stream of chunks
// ([Chunk]) as server-sent events, from which the client builds the
// assistant message as it arrives. A handler decodes the request, converts
// the messages for the model, starts the generation with the request's
// context and streams it:
//
//	// secrets sign the approval requests the server sends and check the
//	// answers the client posts back (keep them out of the code, for
//	// example in an environment variable; list an old one second while
//	// rotating).
//	var secrets = [][]byte{[]byte(os.Getenv("CHAT_APPROVAL_SECRET"))}
//
//	func chat(w http.ResponseWriter, r *http.Request) {
//		req, err := uistream.DecodeRequest(r, &uistream.DecodeOptions{ToolApprovalSecrets: secrets})
//		if err != nil {
//			uistream.WriteError(w, err) // 400 with a JSON body
//			return
//		}
//		msgs, err := uistream.ConvertMessages(r.Context(), req.Messages, &uistream.ConvertOptions{Tools: tools})
//		if err != nil {
//			uistream.WriteError(w, &uistream.RequestError{Status: 400, Message: err.Error()})
//			return
//		}
//		res, err := ai.StreamText(r.Context(), ai.StreamTextOptions{
//			Model: model, Tools: tools, Messages: msgs,
//			ToolApproval: approval, ToolApprovalSecrets: secrets,
//		})
//		if err != nil {
//			uistream.WriteError(w, err)
//			return
//		}
//		uistream.Write(w, res.Parts(), &uistream.Options{
//			MessageID: uistream.NewID(), OriginalMessages: req.Messages, Tools: tools,
//		})
//	}
//
// [NewChatHandler] does all of this for an [ai.Agent], whose tools and
// approval secrets it uses throughout, keeps the chats in a [ChatStore]
// (in memory by default), and with a [Resumer] lets a reloaded page resume
// an answer that is still streaming and a stop button end it:
//
//	chat := uistream.NewChatHandler(uistream.ChatOptions{
//		Agent:   agent, // its Settings.ToolApprovalSecrets sign and check approvals
//		Store:   chats, // a ChatStore: the history with the response message last
//		Resumer: &uistream.Resumer{Store: streams}, // optional
//	})
//	http.Handle("/api/chat", chat)  // POST: a turn
//	http.Handle("/api/chat/", chat) // {id}/stream, {id}/stop, {id}/messages
//
// A client that goes away cancels the request's context, and with it the
// model call and the running tools. Stream-level errors reach the client
// masked unless [Options.OnError] says otherwise.
//
// # Approvals
//
// Everything a client posts is untrusted, its approvals included: a client
// can post a tool part that says "approved" for any tool of the server,
// with any input. The generation therefore signs each approval request it
// makes ([ai.GenerateTextOptions.ToolApprovalSecrets]); [Write] puts the
// signature into the tool-approval-request chunk, the client keeps it with
// the tool part and sends it back with the user's answer, and
// [ConvertMessages] carries it into the conversation. An approved call runs
// only when its signature matches the call the server asked about (its
// approval id, tool call id, tool name and input): [DecodeRequest] refuses
// anything else with a 400, and the generation checks again before the
// call runs. The signatures are those of the TypeScript AI SDK, so a Go
// and a TypeScript server that share a secret accept each other's
// approvals.
//
// A signature does not stop a client from posting the same genuine
// approval twice: give the generation an [ai.ApprovalLedger] (in memory with
// [ai.NewApprovalLedger], or one shared by the servers) and a replayed
// approval does not run its call again.
//
// A request that answers an approval is refused unless the secrets are set
// in [DecodeOptions] (the safe default), or the server chose to trust its
// clients with [DecodeOptions.InsecureAcceptUnsignedApprovals].
//
// Tool results come back from the client too. With the same secrets in
// [Options.ResultSecrets] and [ConvertOptions.ResultSecrets], [Write] signs
// each result it streams and [ConvertMessages] lets a result of a server
// or provider tool reach the model only with that signature; one a client
// invented is replaced by an error text and reported to
// [ConvertOptions.OnForgedResult].
//
// # Resumable streams
//
// With a [Resumer], an answer outlives the request that asked for it: its
// chunks go into a [StreamStore] ([MemoryStore], or the redisstore package
// for several servers), the generation goes on when the client goes away,
// and a client that comes back (useChat with `resume: true` asks GET
// {api}/{chatId}/stream) gets the stream replayed from the start, then
// live ([Resumer.Serve]; 204 when there is nothing to resume).
// [Resumer.Stop] ends a generation wherever it runs. The application
// records the id of each chat's active stream.
//
// # The end of a turn
//
// [Options.OnFinish] receives the conversation when a stream ends, however
// it ends: the original messages with the response message last (a
// resumed message merged in place). [ReadMessage] folds a stream into the
// message a client builds, for Go clients and tests.
//
// [Chunks] gives the chunks as an iterator for other transports, and
// [Writer] writes streams that an application assembles itself, for
// example with its own data parts ([Data]).
package uistream
