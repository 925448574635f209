```ts
declare const tools: {
  search: (input: { source: "web" | "files"; mode?: "fast"; limit?: number | null; id?: string | number; }) => Promise<unknown>;
};
```

Tool call examples:
```ts
const result = await tools.search({"source":"web","mode":"fast","limit":1,"id":"string"});
return result;
```
