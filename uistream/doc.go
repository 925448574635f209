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
//	func chat(w http.ResponseWriter, r *http.Request) {
//		req, err := uistream.DecodeRequest(r, nil)
//		if err != nil {
//			uistream.WriteError(w, err) // 400 with a JSON body
//			return
//		}
//		msgs, err := uistream.ConvertMessages(r.Context(), req.Messages, &uistream.ConvertOptions{Tools: tools})
//		if err != nil {
//			uistream.WriteError(w, &uistream.RequestError{Status: 400, Message: err.Error()})
//			return
//		}
//		res, err := ai.StreamText(r.Context(), ai.StreamTextOptions{Model: model, Tools: tools, Messages: msgs})
//		if err != nil {
//			uistream.WriteError(w, err)
//			return
//		}
//		uistream.Write(w, res.Parts(), &uistream.Options{
//			MessageID: uistream.NewID(), OriginalMessages: req.Messages, Tools: tools,
//		})
//	}
//
// A client that goes away cancels the request's context, and with it the
// model call and the running tools. Stream-level errors reach the client
// masked unless [Options.OnError] says otherwise.
//
// Tool approvals need nothing more: the client posts the conversation with
// the user's answers, [ConvertMessages] turns them into approval responses,
// and the generation runs the approved calls (and reports the denied ones)
// before it calls the model again, continuing the same assistant message.
//
// [Chunks] gives the chunks as an iterator for other transports, and
// [Writer] writes streams that an application assembles itself, for
// example with its own data parts ([Data]).
package uistream
