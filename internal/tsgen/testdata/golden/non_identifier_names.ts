```ts
declare const tools: {
  /** Search the web. */
  "web-search": (input: { query: string; "max-results"?: number; }) => Promise<unknown>;
  "x.y": (input: {}) => Promise<unknown>;
};
```

Tool call examples:
```ts
const [web_search, x_y] = await Promise.all([
  tools["web-search"]({"query":"go generics","max-results":3}),
  tools["x.y"]({}),
]);
return {
  "web-search": web_search,
  "x.y": x_y,
};
```
