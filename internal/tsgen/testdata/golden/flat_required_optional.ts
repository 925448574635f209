```ts
declare const tools: {
  /** Get the weather forecast for a city. */
  getForecast: (input: { city: string; days?: number; }) => Promise<{ forecast: string; }>;
};
```

Tool call examples:
```ts
const result = await tools.getForecast({"city":"string","days":1});
return { forecast: result.forecast };
```
