import { useState } from 'react';
import { createRoot } from 'react-dom/client';
import { useChat } from '@ai-sdk/react';
import { DefaultChatTransport, lastAssistantMessageIsCompleteWithApprovalResponses } from 'ai';

const show = value => (value === undefined ? '' : JSON.stringify(value));

function ToolCall({ part, answer }) {
  const name = part.type === 'dynamic-tool' ? part.toolName : part.type.slice('tool-'.length);
  return (
    <div className="tool" data-tool={name} data-state={part.state} data-call={part.toolCallId}>
      <span className="name">{name}</span> <span className="state">[{part.state}]</span>
      {part.callProviderMetadata?.aisdkgo?.codeModeCall && ' (called by the program)'}
      {part.input !== undefined && `\ninput: ${show(part.input)}`}
      {part.output?.type === 'code-mode-interrupt'
        ? `\npaused: the program waits for ${part.output.toolName} (${part.output.payload?.kind === 'ai-sdk-code-mode/tool-approval' ? 'approval' : 'input'})`
        : part.output !== undefined && `\noutput: ${show(part.output)}`}
      {part.errorText && `\nerror: ${part.errorText}`}
      {part.state === 'approval-requested' && (
        <div className="approval">
          {part.approval.requestReason && <div className="reason">{part.approval.requestReason}</div>}
          <button className="approve" onClick={() => answer({ id: part.approval.id, approved: true })}>Approve</button>
          <button className="deny" onClick={() => answer({ id: part.approval.id, approved: false, reason: 'The user said no.' })}>Deny</button>
        </div>
      )}
    </div>
  );
}

function Part({ part, answer }) {
  switch (part.type) {
    case 'step-start':
      return <div className="step">step</div>;
    case 'text':
      return <div className="text" data-state={part.state}>{part.text}</div>;
    case 'reasoning':
      return <div className="reasoning">{part.text}</div>;
    default:
      if (part.type === 'dynamic-tool' || part.type.startsWith('tool-')) {
        return <ToolCall part={part} answer={answer} />;
      }
      return <div className="other" data-type={part.type}>{part.type}</div>;
  }
}

// The chat's id is in the page's address (?chat=ID), so that a reloaded
// page finds its chat again: its messages from the server, and the answer
// that may still be streaming, which useChat resumes (GET
// /api/chat/ID/stream replays it from the start, then follows it live).
const params = new URLSearchParams(location.search);
const knownChat = params.get('chat');
const chatId = knownChat ?? Array.from(crypto.getRandomValues(new Uint8Array(12)), b => b.toString(16).padStart(2, '0')).join('');
if (knownChat === null) {
  params.set('chat', chatId);
  history.replaceState(null, '', `${location.pathname}?${params}`);
}

function App({ initialMessages, resume }) {
  const [input, setInput] = useState('');
  const { messages, sendMessage, status, error, stop, addToolApprovalResponse } = useChat({
    id: chatId,
    messages: initialMessages,
    // A new chat has nothing to resume.
    resume,
    transport: new DefaultChatTransport({ api: '/api/chat' }),
    // After the user answered every approval, post the chat again so
    // that the server runs (or skips) the calls and goes on.
    sendAutomaticallyWhen: lastAssistantMessageIsCompleteWithApprovalResponses,
  });
  return (
    <main>
      <h1>Chat with a Go agent</h1>
      <div id="status" data-status={status}>
        status: {status}
        {error && <span className="error"> — {error.message}</span>}
      </div>
      {messages.map(m => (
        <div key={m.id} className={`msg ${m.role}`} data-role={m.role} data-id={m.id}>
          <div className="who">{m.role}</div>
          {m.parts.map((part, i) => <Part key={i} part={part} answer={addToolApprovalResponse} />)}
        </div>
      ))}
      <form
        onSubmit={e => {
          e.preventDefault();
          if (input.trim() === '') return;
          sendMessage({ text: input });
          setInput('');
        }}
      >
        <input id="prompt" value={input} onChange={e => setInput(e.target.value)} placeholder="Ask about the weather…" autoFocus />
        <button id="send" type="submit" disabled={status !== 'ready' && status !== 'error'}>Send</button>
        {(status === 'submitted' || status === 'streaming') && (
          <button
            id="stop"
            type="button"
            onClick={() => {
              // The answer streams on the server without its page: stop it
              // there too.
              stop();
              fetch(`/api/chat/${encodeURIComponent(chatId)}/stop`, { method: 'POST' });
            }}
          >
            Stop
          </button>
        )}
      </form>
    </main>
  );
}

const stored =
  knownChat === null ? Promise.resolve([]) : fetch(`/api/chat/${encodeURIComponent(chatId)}/messages`).then(r => (r.ok ? r.json() : []));
stored.then(initialMessages =>
  createRoot(document.getElementById('root')).render(<App initialMessages={initialMessages} resume={knownChat !== null} />),
);
