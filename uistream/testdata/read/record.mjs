// Folds each stream of cases.json with the TypeScript SDK's
// readUIMessageStream and writes what it yields to expected.json.
// Usage: AI_MODULE=/path/to/node_modules/ai/dist/index.js node record.mjs
import { readFileSync, writeFileSync } from 'node:fs';

const { readUIMessageStream } = await import(process.env.AI_MODULE ?? 'ai');
const cases = JSON.parse(readFileSync(new URL('./cases.json', import.meta.url)));
const out = [];
for (const c of cases) {
  const errors = [];
  const stream = new ReadableStream({
    start(controller) {
      for (const chunk of c.chunks) controller.enqueue(chunk);
      controller.close();
    },
  });
  let snapshots = 0;
  let last;
  for await (const m of readUIMessageStream({
    message: c.message ? structuredClone(c.message) : undefined,
    stream,
    onError: (e) => errors.push(e.message),
  })) {
    snapshots++;
    last = m;
  }
  out.push({ name: c.name, snapshots, errors, message: JSON.parse(JSON.stringify(last)) });
}
writeFileSync(new URL('./expected.json', import.meta.url), JSON.stringify(out, null, 2) + '\n');
