// JSON of results marked constant: computed on first use, then reused (null: marked, not serialized yet).
const constantJson = new WeakMap<object, string | null>();

/**
 * Marks a result that never changes — the object and everything it holds — so that `serializeMessage` computes its
 * JSON once and reuses it. For shared, precomputed results such as a list page; never for a handler's own values.
 */
export function markConstant<T extends object>(value: T): T {
  if (!constantJson.has(value)) constantJson.set(value, null);
  return value;
}

/** Whether `markConstant` marked this value. */
export function isConstant(value: unknown): boolean {
  return typeof value === 'object' && value !== null && constantJson.has(value);
}

/**
 * The JSON text of an outgoing JSON-RPC message, as `JSON.stringify` writes it. A response `{ jsonrpc, id, result }`
 * whose result was marked constant reuses that result's JSON.
 */
export function serializeMessage(message: unknown): string {
  const result = constantResultOf(message);
  if (result === undefined) return JSON.stringify(message);
  let json = constantJson.get(result);
  if (!json) {
    json = JSON.stringify(result);
    constantJson.set(result, json);
  }
  const { jsonrpc, id } = message as { jsonrpc: unknown; id: unknown };
  return `{"jsonrpc":${JSON.stringify(jsonrpc)},"id":${JSON.stringify(id)},"result":${json}}`;
}

// The constant result of a response built as { jsonrpc, id, result } (in that order, nothing else), if any.
function constantResultOf(message: unknown): object | undefined {
  if (typeof message !== 'object' || message === null) return undefined;
  const { result } = message as { result?: unknown };
  if (typeof result !== 'object' || result === null || !constantJson.has(result)) return undefined;
  const keys = Object.keys(message);
  return keys.length === 3 && keys[0] === 'jsonrpc' && keys[1] === 'id' && keys[2] === 'result' ? result : undefined;
}
