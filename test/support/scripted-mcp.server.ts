import { RawServer, json, sseEvent, sseHead, startRawServer } from '../client/transport-test.fixtures';

/** A result, or a JSON-RPC error. */
export type ScriptedAnswer =
  { result: Record<string, unknown> } | { error: { code: number; message: string; data?: unknown } };

export interface ScriptedServerOptions {
  serverInfo?: { name: string; version: string };
  instructions?: string;
  /** Answers a request other than `initialize` and `server/discover` (default: -32601); may take its time. */
  answer?: (method: string, params: Record<string, unknown>) => ScriptedAnswer | Promise<ScriptedAnswer>;
  /** Messages sent ahead of the answer of `method` (then the reply is an SSE stream), e.g. `notifications/message`. */
  before?: (method: string) => unknown[];
}

/** A server whose every answer the test writes, behaving as no well-made server would. */
export interface ScriptedServer extends RawServer {
  /** The params of each request of `method` received so far. */
  received(method: string): Array<Record<string, unknown>>;
}

const MODERN = '2026-07-28';
const CAPABILITIES = { tools: {}, resources: {}, prompts: {}, logging: {} };

/**
 * A raw Streamable HTTP server on 127.0.0.1:0 speaking both eras in plain JSON (or SSE when `before` sends messages):
 * `initialize` (2025-11-25) and `server/discover` (2026-07-28) answer with `serverInfo` and `instructions`; every
 * other request gets what `answer` says, with `resultType: "complete"` in the modern era. No session, no standalone
 * stream (405), notifications accepted (202).
 */
export async function startScriptedServer(options: ScriptedServerOptions = {}): Promise<ScriptedServer> {
  const serverInfo = options.serverInfo ?? { name: 'scripted', version: '1.0.0' };
  const instructions = options.instructions === undefined ? {} : { instructions: options.instructions };
  const raw = await startRawServer((req, res, body) => {
    if (req.method === 'GET') return void res.writeHead(405, { Allow: 'POST' }).end();
    if (req.method !== 'POST') return void res.writeHead(200).end();
    const message = JSON.parse(body) as { id?: number | string; method: string; params?: Record<string, unknown> };
    if (message.id === undefined) return void res.writeHead(202).end();
    const params = message.params ?? {};
    const modern = (params._meta as Record<string, unknown> | undefined)?.['io.modelcontextprotocol/protocolVersion'];
    void answerOf(message.method, params).then((answer) => {
      const reply =
        'result' in answer && modern
          ? { jsonrpc: '2.0', id: message.id, result: { resultType: 'complete', ...answer.result } }
          : { jsonrpc: '2.0', id: message.id, ...answer };
      const ahead = options.before?.(message.method) ?? [];
      if (ahead.length === 0) return json(res, 200, reply);
      sseHead(res);
      for (const note of ahead) res.write(sseEvent(note));
      res.end(sseEvent(reply));
    });
  });

  async function answerOf(method: string, params: Record<string, unknown>): Promise<ScriptedAnswer> {
    if (method === 'initialize')
      return { result: { protocolVersion: '2025-11-25', capabilities: CAPABILITIES, serverInfo, ...instructions } };
    if (method === 'server/discover')
      return {
        result: {
          supportedVersions: [MODERN],
          capabilities: CAPABILITIES,
          ...instructions,
          _meta: { 'io.modelcontextprotocol/serverInfo': serverInfo },
        },
      };
    return options.answer?.(method, params) ?? { error: { code: -32601, message: `Method not found: ${method}` } };
  }

  return {
    ...raw,
    received: (method) =>
      raw.requests
        .filter((request) => request.method === 'POST')
        .map((request) => JSON.parse(request.body) as { method?: string; params?: Record<string, unknown> })
        .filter((message) => message.method === method)
        .map((message) => message.params ?? {}),
  };
}

/** The list key of each list method. */
export const LIST_KEYS = {
  'tools/list': 'tools',
  'resources/list': 'resources',
  'resources/templates/list': 'resourceTemplates',
  'prompts/list': 'prompts',
} as const;

/**
 * Answers every list method with page after page, forever: `perPage` items each (a few bytes, or `itemBytes` of
 * description), the next cursor always new; each page after `delayMs`.
 */
export function endlessPages(shape: { perPage?: number; itemBytes?: number; delayMs?: number } = {}) {
  const { perPage = 1, itemBytes = 0, delayMs = 0 } = shape;
  return async (method: string, params: Record<string, unknown>): Promise<ScriptedAnswer> => {
    const key = LIST_KEYS[method as keyof typeof LIST_KEYS];
    if (!key) return { error: { code: -32601, message: `Method not found: ${method}` } };
    if (delayMs) await new Promise((resolve) => setTimeout(resolve, delayMs));
    const page = Number(params.cursor ?? 0);
    const items = Array.from({ length: perPage }, (_, index) => {
      const name = `item_${page}_${index}`;
      const description = 'x'.repeat(itemBytes);
      if (key === 'tools') return { name, description, inputSchema: { type: 'object' } };
      if (key === 'resources') return { name, description, uri: `endless://${name}` };
      if (key === 'resourceTemplates') return { name, description, uriTemplate: `endless://${name}/{id}` };
      return { name, description };
    });
    return { result: { [key]: items, nextCursor: String(page + 1) } };
  };
}
