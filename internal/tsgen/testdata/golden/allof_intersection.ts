```ts
declare const tools: {
  merge: (input: { a?: string; } & { b?: number; }) => Promise<unknown>;
};
```

Tool call examples:
```ts
const result = await tools.merge("string");
return result;
```
