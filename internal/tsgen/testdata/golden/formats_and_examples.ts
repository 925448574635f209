```ts
declare const tools: {
  schedule: (input: { when: string; day?: string; link?: string; note?: string; urgent?: boolean; level?: number; }) => Promise<unknown>;
};
```

Tool call examples:
```ts
const result = await tools.schedule({"when":"2026-01-01T00:00:00.000Z","day":"2026-01-01","link":"https://example.com","note":"bring slides","urgent":true,"level":2});
return result;
```
