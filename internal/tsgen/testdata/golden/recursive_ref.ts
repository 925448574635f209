```ts
declare const tools: {
  walkTree: (input: { root?: { name?: string; children?: unknown[]; }; }) => Promise<unknown>;
};
```

Tool call examples:
```ts
const result = await tools.walkTree({"root":{"name":"string","children":[null]}});
return result;
```
