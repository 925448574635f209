// Records tool-approval signatures made by ai@7.0.173 and checks
// signatures made elsewhere. Usage: node record-approvals.mjs sign OUT
//                                   node record-approvals.mjs verify IN OUT
import { generateText, tool, jsonSchema } from 'ai';
import { MockLanguageModelV4 } from 'ai/test';
import fs from 'node:fs';

const SECRET = 'aisdkgo-interop-secret-2026';
const usage = { inputTokens: { total: 1, noCache: 1 }, outputTokens: { total: 1, text: 1 } };

export const cases = [
  { name: 'plain', toolName: 'transfer', toolCallId: 'call-1', input: '{"to":"bob","amount":100}' },
  { name: 'key order', toolName: 'transfer', toolCallId: 'call-2', input: '{"b":1,"a":{"z":true,"y":null},"c":[3,2,1]}' },
  { name: 'numbers', toolName: 'anything', toolCallId: 'call-3', input: '{"n":[1.0,1e21,1e20,1e-7,1e-6,0.1,-0,123456789012345678901,5e-324,1.7976931348623157e308,0.000001234,-2.5e-10,100,1.5e3]}' },
  { name: 'strings', toolName: 'anything', toolCallId: 'call-4', input: '{"s":"<a href=\\"x\\">&amp;</a>\\u2028\\u2029\\u0007\\u001f\\t\\n é 😀 \\\\ /"}' },
  { name: 'utf16 key order', toolName: 'anything', toolCallId: 'call-5', input: '{"\\uffff":1,"😀":2,"a":3,"\\ue000":4,"é":5,"":6}' },
  { name: 'duplicate keys', toolName: 'anything', toolCallId: 'call-6', input: '{"a":1,"b":2,"a":3}' },
  { name: 'empty object', toolName: 'anything', toolCallId: 'call-7', input: '{}' },
  { name: 'nested arrays', toolName: 'anything', toolCallId: 'call-8', input: '{"rows":[{"y":2,"x":1},[],[[{"k":"v"}]],false,null]}' },
  { name: 'unicode name', toolName: 'überweisung_🙂', toolCallId: 'call-ü', input: '{"to":"zoë"}' },
  { name: 'whitespace', toolName: 'anything', toolCallId: 'call-10', input: ' { "a" : [ 1 , 2 ] } ' },
];

function anyTool(name, executed) {
  return tool({
    inputSchema: jsonSchema({ type: 'object' }),
    needsApproval: true,
    execute: async input => { executed.push({ name, input }); return 'ok'; },
  });
}

async function sign(out) {
  const records = [];
  for (const c of cases) {
    const executed = [];
    const model = new MockLanguageModelV4({
      doGenerate: async () => ({
        content: [{ type: 'tool-call', toolCallId: c.toolCallId, toolName: c.toolName, input: c.input }],
        finishReason: { unified: 'tool-calls', raw: 'tool_calls' }, usage, warnings: [],
      }),
    });
    let n = 0;
    const result = await generateText({
      model, prompt: 'go', tools: { [c.toolName]: anyTool(c.toolName, executed) },
      experimental_toolApprovalSecret: SECRET,
      _internal: { generateId: () => `approval-${c.toolCallId}-${n++}` },
    });
    const req = result.content.find(p => p.type === 'tool-approval-request');
    records.push({ ...c, parsedInput: req.toolCall.input, approvalId: req.approvalId, signature: req.signature });
  }
  fs.writeFileSync(out, JSON.stringify({ secret: SECRET, sdk: 'ai@7.0.173', cases: records }, null, 2) + '\n');
}

// verify replays each record as a conversation answered with an approval
// and reports whether the reference ran the tool or refused the signature.
async function verify(inFile, out) {
  const data = JSON.parse(fs.readFileSync(inFile, 'utf8'));
  const results = [];
  for (const c of data.cases) {
    const verdict = async signature => {
      const executed = [];
      const model = new MockLanguageModelV4({
        doGenerate: async () => ({ content: [{ type: 'text', text: 'done' }], finishReason: { unified: 'stop', raw: 'stop' }, usage, warnings: [] }),
      });
      const messages = [
        { role: 'user', content: 'go' },
        { role: 'assistant', content: [
          { type: 'tool-call', toolCallId: c.toolCallId, toolName: c.toolName, input: JSON.parse(c.input) },
          { type: 'tool-approval-request', approvalId: c.approvalId, toolCallId: c.toolCallId, signature },
        ] },
        { role: 'tool', content: [{ type: 'tool-approval-response', approvalId: c.approvalId, approved: true }] },
      ];
      try {
        await generateText({ model, messages, tools: { [c.toolName]: anyTool(c.toolName, executed) }, experimental_toolApprovalSecret: data.secret });
        return executed.length === 1 ? 'executed' : `executed ${executed.length} times`;
      } catch (e) {
        return `${e.name}: ${e.message}`;
      }
    };
    const tampered = c.signature.slice(0, -2) + (c.signature.endsWith('AA') ? 'BA' : 'AA');
    results.push({ ...c, verdict: await verdict(c.signature), tamperedVerdict: await verdict(tampered) });
  }
  fs.writeFileSync(out, JSON.stringify({ ...data, verifiedBy: 'ai@7.0.173', cases: results }, null, 2) + '\n');
}

const [mode, a, b] = process.argv.slice(2);
if (mode === 'sign') await sign(a);
else if (mode === 'verify') await verify(a, b);
else { console.error('usage: sign OUT | verify IN OUT'); process.exit(2); }
