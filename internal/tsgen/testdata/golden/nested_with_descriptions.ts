```ts
declare const tools: {
  /** Create an order. */
  createOrder: (input: {
    /** Who orders. */
    customer: {
      /** The customer id. */
      id: string;
      address?: { street?: string; city: string; };
    };
    lines: { sku: string; qty: number; }[];
  }) => Promise<unknown>;
};
```

Tool call examples:
```ts
const result = await tools.createOrder({"customer":{"id":"string","address":{"street":"string","city":"string"}},"lines":[{"sku":"string","qty":1}]});
return result;
```
