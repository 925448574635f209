// Prelude of every run. Evaluated as a global script before the program, it
// takes the host functions off the global object, hardens the realm, installs
// `tools` and `console`, and evaluates to the driver function the Go side
// uses to start the program and to settle tool calls.
(function () {
  "use strict";

  const g = globalThis;

  // Host functions, installed by the runner as configurable globals.
  const hostCall = g.__sandbox_call; // (name, inputJSON) -> request id
  const hostConsole = g.__sandbox_console; // (stream, line) -> "1" while accepting
  const hostDone = g.__sandbox_done; // (kind, payload, unobservedJSON)
  const hostMemory = g.__sandbox_memory; // () -> "1" once the engine refused an allocation
  delete g.__sandbox_call;
  delete g.__sandbox_console;
  delete g.__sandbox_done;
  delete g.__sandbox_memory;

  // Intrinsics used below, taken before the program can touch anything.
  const $Object = Object;
  const $Array = Array;
  const $Promise = Promise;
  const $Error = Error;
  const $TypeError = TypeError;
  const $String = String;
  const $Number = Number;
  const $Map = Map;
  const $Set = Set;
  const $WeakMap = WeakMap;
  const $Proxy = Proxy;
  const $Symbol = Symbol;
  const $Date = Date;
  const $RegExp = RegExp;
  const { freeze, getPrototypeOf, getOwnPropertyDescriptor, defineProperty, create, is } = $Object;
  const { apply, ownKeys } = Reflect;
  const stringify = JSON.stringify;
  const parse = JSON.parse;
  const isArray = $Array.isArray;
  const promiseThen = $Promise.prototype.then;
  const promiseResolve = $Promise.resolve;
  const fnToString = Function.prototype.toString;
  const dateGetTime = $Date.prototype.getTime;
  const dateToISOString = $Date.prototype.toISOString;
  const regexpToString = $RegExp.prototype.toString;
  const regexpSourceGetter = getOwnPropertyDescriptor($RegExp.prototype, "source").get;
  const mapSizeGetter = getOwnPropertyDescriptor($Map.prototype, "size").get;
  const setSizeGetter = getOwnPropertyDescriptor($Set.prototype, "size").get;
  const mapEntries = $Map.prototype.entries;
  const setValues = $Set.prototype.values;
  const TypedArray = getPrototypeOf(Int8Array);
  const typedArrayTag = getOwnPropertyDescriptor(TypedArray.prototype, $Symbol.toStringTag).get;
  const arrayBufferByteLength = getOwnPropertyDescriptor(ArrayBuffer.prototype, "byteLength").get;
  const InternalErrorProto = typeof InternalError === "function" ? InternalError.prototype : undefined;
  const isError = typeof $Error.isError === "function" ? $Error.isError : () => true;
  const stringStartsWith = $String.prototype.startsWith;
  const stringSlice = $String.prototype.slice;
  const symbolToString = $Symbol.prototype.toString;
  const numberValueOf = $Number.prototype.valueOf;
  const stringValueOf = $String.prototype.valueOf;
  const booleanValueOf = Boolean.prototype.valueOf;

  // ---------------------------------------------------------------------
  // Hardening

  // Globals a program must not have. Most do not exist in a bare engine;
  // they are listed so that an engine providing them still gets none.
  const removed = [
    "eval", "SharedArrayBuffer", "Atomics", "WeakRef", "FinalizationRegistry",
    "process", "require", "module", "exports", "fetch", "XMLHttpRequest", "WebSocket",
    "setTimeout", "setInterval", "setImmediate", "clearTimeout", "clearInterval",
    "clearImmediate", "queueMicrotask", "crypto", "performance", "print", "console",
    "std", "os", "scriptArgs", "Deno", "Bun", "Worker", "importScripts",
  ];
  for (const name of removed) {
    try { delete g[name]; } catch (e) { /* not configurable: overwritten below */ }
    if (name in g) {
      defineProperty(g, name, { value: undefined, writable: false, enumerable: false, configurable: false });
    }
  }

  // Every route to a function constructor throws instead.
  const functionKinds = [
    ["Function", function () {}],
    ["GeneratorFunction", function* () {}],
    ["AsyncFunction", async function () {}],
    ["AsyncGeneratorFunction", async function* () {}],
  ];
  const hiddenRoots = [];
  for (const [label, sample] of functionKinds) {
    const proto = getPrototypeOf(sample);
    const blocked = function () {
      throw new $TypeError(label + " constructor is not available in this sandbox");
    };
    defineProperty(blocked, "name", { value: label });
    defineProperty(blocked, "prototype", { value: proto, writable: false });
    defineProperty(proto, "constructor", {
      value: blocked, writable: false, enumerable: false, configurable: false,
    });
    if (label === "Function") {
      defineProperty(g, "Function", {
        value: blocked, writable: true, enumerable: false, configurable: true,
      });
    }
    hiddenRoots.push(blocked, proto);
  }

  // Objects only reachable from instances: the prototypes of the built-in
  // iterators, of generator objects and of iterator helpers.
  const samples = [
    [][$Symbol.iterator](),
    new $Map()[$Symbol.iterator](),
    new $Set()[$Symbol.iterator](),
    ""[$Symbol.iterator](),
    /a/g[$Symbol.matchAll](""),
    (function* () {})(),
    (async function* () {})(),
  ];
  if (typeof Iterator === "function") {
    try { samples.push([].values().map((x) => x)); } catch (e) { /* no helpers */ }
    try { samples.push(Iterator.from({ next() { return { done: true }; } })); } catch (e) { /* no helpers */ }
  }
  for (const s of samples) {
    hiddenRoots.push(getPrototypeOf(s));
  }

  // Freezing a prototype makes assignments such as `this.name = ...` in an
  // Error subclass fail, because an inherited read-only property cannot be
  // shadowed by assignment. For the properties programs commonly assign,
  // keep the value behind an accessor whose setter defines an own property
  // on the receiver, as an assignment would on an unfrozen prototype. An
  // assignment to the frozen prototype itself is ignored, as in sloppy code
  // (a setter cannot tell strict code, which would get a TypeError).
  function keepAssignable(obj, key) {
    const d = getOwnPropertyDescriptor(obj, key);
    if (d === undefined || !("value" in d) || !d.configurable) {
      return;
    }
    const value = d.value;
    defineProperty(obj, key, {
      get() { return value; },
      set(v) {
        if (this === null || (typeof this !== "object" && typeof this !== "function")) {
          return; // a primitive receiver keeps nothing, as in sloppy code
        }
        if (this === obj) {
          return;
        }
        defineProperty(this, key, { value: v, writable: true, enumerable: true, configurable: true });
      },
      enumerable: d.enumerable,
      configurable: false,
    });
  }
  for (const key of ["constructor", "toString", "toLocaleString", "valueOf", "hasOwnProperty",
    "isPrototypeOf", "propertyIsEnumerable"]) {
    keepAssignable($Object.prototype, key);
  }
  for (const E of [Error, EvalError, RangeError, ReferenceError, SyntaxError, TypeError,
    URIError, AggregateError, typeof InternalError === "function" ? InternalError : Error]) {
    for (const key of ["name", "message", "constructor", "toString"]) {
      keepAssignable(E.prototype, key);
    }
  }
  keepAssignable(Function.prototype, "toString");
  keepAssignable($Array.prototype, "toString");

  // ---------------------------------------------------------------------
  // Tool calls

  // Size limits, set by start. A string's length in UTF-16 code units is a
  // lower bound of its UTF-8 size, so a string longer than a limit is over
  // it without being copied to the host first.
  let maxResultBytes = Infinity;
  let maxInputBytes = Infinity;
  let maxConsoleBytes = Infinity;
  let maxErrorChars = Infinity;
  const MAX_NAME = 256;
  const MAX_STACK = 16384;

  const CREATED = 0;
  const OBSERVED = 1;
  const SETTLED = 2;

  const unobserved = new $Set(); // call records not observed yet, in call order
  const pending = new $Map(); // request id -> observed call record
  const recordOf = new $WeakMap(); // promise -> call record
  // Rejection errors handed to the program -> request id (number) for
  // errors the host decided, or a description for errors made here. An
  // uncaught one is reported as the original error rather than a user error.
  const bridgeErrors = new $WeakMap();

  // A promise that tells the prelude when the program first uses it. Awaiting
  // it, Promise.all and friends, .catch and .finally all go through then().
  class ToolCallPromise extends $Promise {
    static get [$Symbol.species]() { return $Promise; }
    then(onFulfilled, onRejected) {
      observe(this);
      return apply(promiseThen, this, [onFulfilled, onRejected]);
    }
  }
  hiddenRoots.push(ToolCallPromise);

  function makeError(info) {
    const e = new $Error(info.message);
    defineProperty(e, "name", { value: info.name, writable: true, enumerable: false, configurable: true });
    defineProperty(e, "code", { value: info.code, writable: true, enumerable: true, configurable: true });
    if (info.details !== undefined) {
      defineProperty(e, "details", { value: info.details, writable: true, enumerable: true, configurable: true });
    }
    return e;
  }

  // localError makes the error for a failure decided in the guest.
  function localError(info) {
    const err = makeError(info);
    bridgeErrors.set(err, info);
    return err;
  }

  function createCall(name, input) {
    let json;
    let failure;
    try {
      json = stringify(input);
      if (json === undefined) {
        json = "{}";
      }
    } catch (e) {
      // Whatever stopped the conversion (a cycle, a BigInt, a getter or
      // toJSON that threw) rejects the call; running out of memory stays
      // the program's own failure.
      if (isOutOfMemory(e)) {
        throw e;
      }
      failure = "it cannot be converted to JSON: " + describe(e).message;
    }
    let resolve;
    let reject;
    const promise = new ToolCallPromise((res, rej) => { resolve = res; reject = rej; });
    const rec = { name, json, failure, resolve, reject, state: CREATED };
    recordOf.set(promise, rec);
    unobserved.add(rec);
    return promise;
  }

  function observe(promise) {
    const rec = recordOf.get(promise);
    if (rec === undefined || rec.state !== CREATED) {
      return;
    }
    rec.state = OBSERVED;
    unobserved.delete(rec);
    if (rec.failure === undefined && rec.json.length > maxInputBytes) {
      rec.failure = "it is at least " + rec.json.length + " bytes, more than the limit of " + maxInputBytes + " bytes";
    }
    if (rec.failure !== undefined) {
      rec.state = SETTLED;
      const shown = clip(rec.name, 100);
      rec.reject(localError({
        code: "CODE_MODE_SERIALIZATION_ERROR",
        name: "CodeModeError",
        message: "The input of tool \"" + shown + "\" cannot be sent: " + rec.failure,
        details: { toolName: shown },
      }));
      return;
    }
    const id = $Number(hostCall(rec.name, rec.json));
    pending.set(id, rec);
  }

  function settle(id, kind, payload) {
    const rec = pending.get(id);
    if (rec === undefined) {
      return;
    }
    pending.delete(id);
    rec.state = SETTLED;
    if (kind === "ok") {
      let value;
      try {
        value = parse(payload);
      } catch (e) {
        // Valid JSON the engine cannot hold: too deep for the stack, or too
        // large for the memory left.
        rec.reject(isOutOfMemory(e) ? e : localError({
          code: "CODE_MODE_SERIALIZATION_ERROR",
          name: "CodeModeError",
          message: "The output of tool \"" + rec.name + "\" cannot be parsed: " + describe(e).message,
          details: { toolName: rec.name },
        }));
        return;
      }
      rec.resolve(value);
    } else if (kind === "value") {
      // The host built the value from the output's JSON itself.
      rec.resolve(payload);
    } else if (kind === "none") {
      rec.resolve(undefined);
    } else {
      const err = makeError(parse(payload));
      bridgeErrors.set(err, id);
      rec.reject(err);
    }
  }

  const toolFunctions = new $Map();
  const toolsHandler = freeze({
    get(target, key) {
      if (typeof key !== "string" || key === "then") {
        return undefined;
      }
      let fn = toolFunctions.get(key);
      if (fn === undefined) {
        // A method: named after the tool, not constructible, no prototype.
        fn = freeze({ [key](input) { return createCall(key, input); } }[key]);
        toolFunctions.set(key, fn);
      }
      return fn;
    },
    has(target, key) { return typeof key === "string" && key !== "then"; },
    set() { return false; },
    defineProperty() { return false; },
    deleteProperty() { return false; },
    setPrototypeOf() { return false; },
  });
  const tools = new $Proxy(create(null), toolsHandler);

  // ---------------------------------------------------------------------
  // Console

  const MAX_DEPTH = 2;
  const MAX_ITEMS = 100;
  const MAX_STRING = 10000;
  const identifier = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

  function quote(s) {
    if (s.length > MAX_STRING) {
      return quote(s.slice(0, MAX_STRING)) + "... " + (s.length - MAX_STRING) + " more characters";
    }
    let out = "'";
    for (let i = 0; i < s.length; i++) {
      const c = s[i];
      switch (c) {
        case "'": out += "\\'"; break;
        case "\\": out += "\\\\"; break;
        case "\n": out += "\\n"; break;
        case "\r": out += "\\r"; break;
        case "\t": out += "\\t"; break;
        default: out += c;
      }
    }
    return out + "'";
  }

  function formatKey(key) {
    if (typeof key === "symbol") {
      return "[" + apply(symbolToString, key, []) + "]";
    }
    return identifier.test(key) ? key : quote(key);
  }

  function isBrand(getter, value) {
    try {
      apply(getter, value, []);
      return true;
    } catch (e) {
      return false;
    }
  }

  function functionLabel(fn) {
    let name = "";
    try {
      const d = getOwnPropertyDescriptor(fn, "name");
      if (d !== undefined && typeof d.value === "string") {
        name = d.value;
      }
    } catch (e) { /* a proxy */ }
    let source = "";
    try { source = apply(fnToString, fn, []); } catch (e) { /* not a real function */ }
    if (source.slice(0, 5) === "class") {
      return name === "" ? "[class (anonymous)]" : "[class " + name + "]";
    }
    return name === "" ? "[Function (anonymous)]" : "[Function: " + name + "]";
  }

  function constructorName(obj) {
    let proto;
    try { proto = getPrototypeOf(obj); } catch (e) { return ""; }
    if (proto === null) {
      return null;
    }
    try {
      const d = getOwnPropertyDescriptor(proto, "constructor");
      const ctor = d === undefined ? undefined : ("value" in d ? d.value : apply(d.get, proto, []));
      if (typeof ctor === "function") {
        const n = getOwnPropertyDescriptor(ctor, "name");
        if (n !== undefined && typeof n.value === "string") {
          return n.value;
        }
      }
    } catch (e) { /* a proxy or a throwing getter */ }
    return "";
  }

  function formatNumber(n) {
    return is(n, -0) ? "-0" : $String(n);
  }

  function inspect(value, depth, seen) {
    switch (typeof value) {
      case "string": return quote(value);
      case "number": return formatNumber(value);
      case "bigint": return $String(value) + "n";
      case "boolean": return value ? "true" : "false";
      case "undefined": return "undefined";
      case "symbol": return apply(symbolToString, value, []);
      case "function": return functionLabel(value);
    }
    if (value === null) {
      return "null";
    }
    if (seen.has(value)) {
      return "[Circular]";
    }
    if (isBrand(dateGetTime, value)) {
      const t = apply(dateGetTime, value, []);
      return t !== t ? "Invalid Date" : apply(dateToISOString, value, []);
    }
    if (value !== $RegExp.prototype && isBrand(regexpSourceGetter, value)) {
      return apply(regexpToString, value, []);
    }
    if (value instanceof $Error) {
      let name = "Error";
      let message = "";
      try { name = $String(value.name); } catch (e) { /* keep the default */ }
      try { message = $String(value.message); } catch (e) { /* keep the default */ }
      return message === "" ? name : name + ": " + message;
    }
    if (value instanceof $Promise) {
      return "Promise {}";
    }
    for (const [valueOf, label] of [[numberValueOf, "Number"], [stringValueOf, "String"], [booleanValueOf, "Boolean"]]) {
      if (isBrand(valueOf, value)) {
        return "[" + label + ": " + inspect(apply(valueOf, value, []), depth, seen) + "]";
      }
    }
    seen.add(value);
    try {
      return inspectContainer(value, depth, seen);
    } finally {
      seen.delete(value);
    }
  }

  function inspectContainer(value, depth, seen) {
    const items = [];
    let prefix = "";
    let open = "{";
    let close = "}";
    let extra = 0;
    if (isBrand(mapSizeGetter, value)) {
      const size = apply(mapSizeGetter, value, []);
      if (depth > MAX_DEPTH) return "[Map]";
      prefix = "Map(" + size + ") ";
      for (const [k, v] of apply(mapEntries, value, [])) {
        if (items.length >= MAX_ITEMS) break;
        items.push(inspect(k, depth + 1, seen) + " => " + inspect(v, depth + 1, seen));
      }
      extra = size - items.length;
    } else if (isBrand(setSizeGetter, value)) {
      const size = apply(setSizeGetter, value, []);
      if (depth > MAX_DEPTH) return "[Set]";
      prefix = "Set(" + size + ") ";
      for (const v of apply(setValues, value, [])) {
        if (items.length >= MAX_ITEMS) break;
        items.push(inspect(v, depth + 1, seen));
      }
      extra = size - items.length;
    } else if (apply(typedArrayTag, value, []) !== undefined) {
      const tag = apply(typedArrayTag, value, []);
      if (depth > MAX_DEPTH) return "[" + tag + "]";
      prefix = tag + "(" + value.length + ") ";
      open = "[";
      close = "]";
      for (let i = 0; i < value.length; i++) {
        if (items.length >= MAX_ITEMS) { extra = value.length - i; break; }
        items.push(inspect(value[i], depth + 1, seen));
      }
    } else if (isBrand(arrayBufferByteLength, value)) {
      return "ArrayBuffer { byteLength: " + apply(arrayBufferByteLength, value, []) + " }";
    } else if (isArray(value)) {
      if (depth > MAX_DEPTH) return "[Array]";
      open = "[";
      close = "]";
      const n = value.length;
      let holes = 0;
      for (let i = 0; i < n; i++) {
        if (items.length >= MAX_ITEMS) { extra = n - i; break; }
        const d = getOwnPropertyDescriptor(value, $String(i));
        if (d === undefined) {
          holes++;
          continue;
        }
        if (holes > 0) {
          items.push("<" + holes + " empty item" + (holes > 1 ? "s" : "") + ">");
          holes = 0;
        }
        items.push(describeProperty(d, depth, seen));
      }
      if (holes > 0) {
        items.push("<" + holes + " empty item" + (holes > 1 ? "s" : "") + ">");
      }
    } else {
      const ctor = constructorName(value);
      if (ctor === null) {
        prefix = "[Object: null prototype] ";
      } else if (ctor !== "" && ctor !== "Object") {
        prefix = ctor + " ";
      }
      if (depth > MAX_DEPTH) {
        return ctor === null || ctor === "" || ctor === "Object" ? "[Object]" : "[" + ctor + "]";
      }
    }
    // Own enumerable properties other than array indices. Listing the keys
    // of a long array would make a string of every index, so its other
    // properties are left out once its items do not all fit.
    const arrayLike = open === "[";
    const keys = arrayLike && extra > 0 ? [] : ownKeys(value);
    for (let i = 0; i < keys.length; i++) {
      const key = keys[i];
      if (arrayLike && typeof key === "string" && $String($Number(key) >>> 0) === key) {
        continue;
      }
      const d = getOwnPropertyDescriptor(value, key);
      if (d === undefined || !d.enumerable) {
        continue;
      }
      if (items.length >= MAX_ITEMS) { extra++; continue; }
      items.push(formatKey(key) + ": " + describeProperty(d, depth, seen));
    }
    if (extra > 0) {
      items.push("... " + extra + " more item" + (extra > 1 ? "s" : ""));
    }
    if (items.length === 0) {
      return prefix + open + close;
    }
    return prefix + open + " " + items.join(", ") + " " + close;
  }

  function describeProperty(d, depth, seen) {
    if ("value" in d) {
      return inspect(d.value, depth + 1, seen);
    }
    if (d.get !== undefined && d.set !== undefined) return "[Getter/Setter]";
    return d.get !== undefined ? "[Getter]" : "[Setter]";
  }

  function inspectTop(value) {
    try {
      return inspect(value, 0, new $Set());
    } catch (e) {
      if (isOutOfMemory(e)) throw e;
      return "[uninspectable value]";
    }
  }

  function formatArgs(args) {
    const parts = [];
    let i = 0;
    if (typeof args[0] === "string") {
      const fmt = args[0];
      i = 1;
      if (args.length === 1) {
        return fmt;
      }
      let out = "";
      let last = 0;
      for (let j = 0; j < fmt.length - 1; j++) {
        if (fmt[j] !== "%") {
          continue;
        }
        const c = fmt[j + 1];
        let rep;
        if (c === "%") {
          rep = "%";
        } else if (i < args.length && "sdifjoOc".includes(c)) {
          const a = args[i++];
          switch (c) {
            case "s":
              rep = typeof a === "string" ? a
                : typeof a === "bigint" ? $String(a) + "n"
                : typeof a === "number" ? formatNumber(a)
                : inspectTop(a);
              break;
            case "d":
            case "i":
              if (typeof a === "bigint") {
                rep = $String(a) + "n";
              } else if (typeof a === "symbol" || (typeof a === "object" && a !== null)) {
                rep = "NaN";
              } else {
                const n = $Number(a);
                rep = formatNumber(c === "i" ? Math.trunc(n) : n);
              }
              break;
            case "f":
              rep = typeof a === "symbol" ? "NaN" : formatNumber(parseFloat(a));
              break;
            case "j":
              try { rep = $String(stringify(a)); } catch (e) {
                if (isOutOfMemory(e)) throw e;
                rep = "[Circular]";
              }
              break;
            case "c":
              rep = "";
              break;
            default:
              rep = inspectTop(a);
          }
        } else {
          continue;
        }
        out += fmt.slice(last, j) + rep;
        last = j + 2;
        j++;
      }
      parts.push(out + fmt.slice(last));
    }
    for (; i < args.length; i++) {
      const a = args[i];
      parts.push(typeof a === "string" ? a : inspectTop(a));
    }
    return parts.join(" ");
  }

  let consoleOpen = true;
  function emit(stream, args) {
    if (!consoleOpen) {
      return;
    }
    const line = formatArgs(args);
    if (line.length >= maxConsoleBytes || hostConsole(stream, line) !== "1") {
      consoleOpen = false;
    }
  }

  const consoleObject = freeze({
    log: freeze((...args) => emit("stdout", args)),
    info: freeze((...args) => emit("stdout", args)),
    debug: freeze((...args) => emit("stdout", args)),
    dir: freeze((value) => emit("stdout", [inspectTop(value)])),
    table: freeze((...args) => emit("stdout", args)),
    error: freeze((...args) => emit("stderr", args)),
    warn: freeze((...args) => emit("stderr", args)),
    trace: freeze((...args) => emit("stderr", ["Trace:", ...args])),
    assert: freeze((condition, ...args) => {
      if (!condition) {
        emit("stderr", args.length === 0 ? ["Assertion failed"] : ["Assertion failed:", ...args]);
      }
    }),
  });

  // ---------------------------------------------------------------------
  // A replayable clock and random numbers.
  //
  // A run may fix what Date.now() and new Date() report, and seed
  // Math.random, so that the same program run again with the same values
  // (a program resumed after a pause) takes the same path. Without them the
  // real clock and the engine's generator are used.

  const replay = { time: undefined, next: undefined };
  const realNow = $Date.now;
  const realRandom = Math.random;
  const dateToString = $Date.prototype.toString;
  const construct = Reflect.construct;
  defineProperty($Date, "now", {
    value: freeze({ now() { return replay.time !== undefined ? replay.time : apply(realNow, $Date, []); } }.now),
    writable: true, enumerable: false, configurable: true,
  });
  defineProperty(Math, "random", {
    value: freeze({ random() { return replay.next !== undefined ? replay.next() : apply(realRandom, Math, []); } }.random),
    writable: true, enumerable: false, configurable: true,
  });
  const DateWithClock = new $Proxy($Date, {
    construct(target, args, newTarget) {
      const nt = newTarget === DateWithClock ? target : newTarget;
      if (args.length === 0 && replay.time !== undefined) {
        return construct(target, [replay.time], nt);
      }
      return construct(target, args, nt);
    },
    apply(target, thisArg, args) {
      if (replay.time !== undefined) {
        return apply(dateToString, construct(target, [replay.time]), []);
      }
      return apply(target, thisArg, args);
    },
  });
  defineProperty($Date.prototype, "constructor", { value: DateWithClock, writable: true, enumerable: false, configurable: true });
  defineProperty(g, "Date", { value: DateWithClock, writable: true, enumerable: false, configurable: true });

  // setReplay applies a run's seed ([high, low] 32-bit halves) and clock.
  // The generator is sfc32, seeded from the two halves.
  function setReplay(seed, time) {
    if (typeof time === "number") {
      replay.time = time;
    }
    if (isArray(seed)) {
      let a = seed[0] >>> 0, b = seed[1] >>> 0, c = 0x9e3779b9, d = 1;
      const next = () => {
        a >>>= 0; b >>>= 0; c >>>= 0; d >>>= 0;
        const t = (a + b) | 0;
        a = b ^ (b >>> 9);
        b = (c + (c << 3)) | 0;
        c = (c << 21) | (c >>> 11);
        d = (d + 1) | 0;
        const r = (t + d) | 0;
        c = (c + r) | 0;
        return (r >>> 0) / 4294967296;
      };
      for (let i = 0; i < 12; i++) next();
      replay.next = next;
    }
  }

  // ---------------------------------------------------------------------
  // Freeze everything built in.
  //
  // Discovering intrinsics by enumerating every property of every built-in
  // object costs milliseconds per run, so the intrinsics are frozen from a
  // fixed set of starting points instead: each global value, the prototype
  // chains and `prototype` objects hanging off them, and the hidden roots
  // gathered above. Built-in functions that are not constructors own only
  // `length` and `name` and are left alone. A test walks the complete graph
  // of reachable objects to check that nothing else is left unfrozen.
  //
  // Freezing is most of the cost of a run, because it makes the engine
  // create every built-in method it otherwise creates on first use, so the
  // walk itself is kept to plain property reads: the global bindings and
  // the `prototype` properties of built-in functions are data properties in
  // this engine (a test checks), and nothing but the prelude has run yet.

  const frozen = new $Set([g]);
  function freezeChain(o) {
    while (o !== null && (typeof o === "object" || typeof o === "function") && !frozen.has(o)) {
      frozen.add(o);
      freeze(o);
      if (typeof o === "function") {
        freezeChain(o.prototype);
      }
      o = getPrototypeOf(o);
    }
  }

  hiddenRoots.push($Array.prototype[$Symbol.unscopables]);
  const readOnly = { writable: false, configurable: false };
  const globalKeys = ownKeys(g);
  for (let i = 0; i < globalKeys.length; i++) {
    const k = globalKeys[i];
    freezeChain(g[k]);
    defineProperty(g, k, readOnly);
  }
  for (let i = 0; i < hiddenRoots.length; i++) {
    freezeChain(hiddenRoots[i]);
  }

  defineProperty(g, "tools", { value: tools, writable: false, enumerable: false, configurable: false });
  defineProperty(g, "console", { value: consoleObject, writable: false, enumerable: false, configurable: false });

  // ---------------------------------------------------------------------
  // Completion

  // isOutOfMemory reports whether e is what the engine throws when it runs
  // out of memory: an InternalError "out of memory" (or "out of memory in
  // regexp execution"), or null when it cannot even allocate that. A
  // program can throw the same, so the host is asked too whether the engine
  // did refuse an allocation in this run.
  function isOutOfMemory(e) {
    let looksLike = e === null;
    if (!looksLike && typeof e === "object" && InternalErrorProto !== undefined) {
      try {
        if (getPrototypeOf(e) === InternalErrorProto && isError(e)) {
          const d = getOwnPropertyDescriptor(e, "message");
          looksLike = d === undefined ||
            (typeof d.value === "string" && apply(stringStartsWith, d.value, ["out of memory"]));
        }
      } catch (err) {
        return false;
      }
    }
    if (!looksLike) {
      return false;
    }
    try {
      return hostMemory() === "1";
    } catch (err) {
      // Only memory can make this call fail.
      return true;
    }
  }

  // clip cuts s to at most n characters, saying how long it was.
  function clip(s, n) {
    if (s.length <= n) {
      return s;
    }
    const suffix = "... (" + s.length + " characters in all)";
    return apply(stringSlice, s, [0, n > suffix.length ? n - suffix.length : 0]) + suffix;
  }

  function describe(e) {
    try {
      if (e !== null && (typeof e === "object" || typeof e === "function")) {
        let name;
        let message;
        try { name = e.name; } catch (err) { /* keep undefined */ }
        try { message = e.message; } catch (err) { /* keep undefined */ }
        if (typeof name !== "string" || name === "") {
          name = "Error";
        }
        if (message === undefined) {
          message = e instanceof $Error ? "" : inspectTop(e);
        } else if (typeof message !== "string") {
          message = inspectTop(message);
        }
        let stack;
        try {
          const d = getOwnPropertyDescriptor(e, "stack");
          if (d !== undefined && typeof d.value === "string") {
            stack = apply(stringSlice, d.value, [0, MAX_STACK]);
          }
        } catch (err) { /* a proxy */ }
        return { name: clip(name, MAX_NAME), message: clip(message, maxErrorChars), stack };
      }
      return { name: "Error", message: clip(typeof e === "string" ? e : inspectTop(e), maxErrorChars) };
    } catch (err) {
      return { name: "Error", message: "uncaught exception" };
    }
  }

  function unobservedNames() {
    if (unobserved.size === 0) {
      return "";
    }
    const names = [];
    for (const rec of unobserved) {
      names.push(rec.name);
    }
    return stringify(names);
  }

  function succeed(value) {
    let json;
    try {
      json = stringify(value);
    } catch (e) {
      if (isOutOfMemory(e)) {
        hostDone("oom", "", "");
        return;
      }
      hostDone("serialization", describe(e).message, "");
      return;
    }
    if (json === undefined) {
      hostDone("undefined", "", unobservedNames());
    } else if (json.length > maxResultBytes) {
      hostDone("too-large", $String(json.length), "");
    } else {
      try {
        hostDone("value", json, unobservedNames());
      } catch (e) {
        // Copying the value to the host failed; only memory does that.
        hostDone("oom", "", "");
      }
    }
  }

  function fail(e) {
    try {
      if (isOutOfMemory(e)) {
        hostDone("oom", "", "");
        return;
      }
      const b = bridgeErrors.get(e);
      if (typeof b === "number") {
        hostDone("bridge", $String(b), "");
      } else if (b !== undefined) {
        hostDone("local", stringify(b), "");
      } else {
        hostDone("error", stringify(describe(e)), "");
      }
    } catch (err) {
      // Reporting itself failed; only running out of memory does that.
      hostDone("oom", "", "");
    }
  }

  function start(main, limits) {
    const l = parse(limits);
    maxResultBytes = l.maxResultBytes;
    maxInputBytes = l.maxToolInputBytes;
    maxConsoleBytes = l.maxConsoleBytes;
    maxErrorChars = l.maxErrorChars;
    setReplay(l.seed, l.time);
    let result;
    try {
      result = apply(main, undefined, []);
    } catch (e) {
      fail(e);
      return;
    }
    apply(promiseThen, apply(promiseResolve, $Promise, [result]), [succeed, fail]);
  }

  return function driver(op, a, b, c) {
    switch (op) {
      case "start":
        start(a, b);
        break;
      case "settle":
        settle($Number(a), b, c);
        break;
      case "stalled":
        hostDone("stalled", "", unobservedNames());
        break;
    }
  };
})()
