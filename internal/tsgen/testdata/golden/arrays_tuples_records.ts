```ts
declare const tools: {
  tagItems: (input: {
    tags?: string[];
    mixed?: Array<string | number>;
    pair?: [string, number];
    labels?: Record<string, string>;
    extra?: Record<string, unknown>;
  }) => Promise<unknown>;
};
```

Tool call examples:
```ts
const result = await tools.tagItems({"tags":["string"],"mixed":["string"],"pair":["string"],"labels":{},"extra":{}});
return result;
```
