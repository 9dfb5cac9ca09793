import { INestApplication } from '@nestjs/common';
import { AddressInfo } from 'node:net';
import { HTTP_MOUNTS, HttpMount, startHardeningApp } from './scenarios/http-hardening/hardening.app';
import { MODERN_META, ScenarioProcess } from './scenarios/scenario.process';
import { STDIO_APP } from './scenarios/stdio/stdio.app';

// MCP ids are strings or integers; JavaScript reads integers exactly only up to 2^53 - 1.
const BAD_IDS: Array<[string, string]> = [
  ['a fractional id', '1.5'],
  ['an unsafe integer id (2^53 + 1)', '9007199254740993'],
  ['an exponent past the safe integers', '1e300'],
  ['a boolean id', 'true'],
  ['an object id', '{"n":1}'],
];

// JSON-RPC answers an unreadable id with `id: null`; MCP's schemas (2025-11-25, 2026-07-28) leave `id` out instead.
const refusal = { jsonrpc: '2.0', error: { code: -32600, message: 'id must be a string or a safe integer' } };

describe.each(HTTP_MOUNTS)('request ids over HTTP ($name)', (mount: HttpMount) => {
  let app: INestApplication;
  let url: string;

  beforeAll(async () => {
    ({ app } = await startHardeningApp(mount, { legacySse: false }));
    url = `http://127.0.0.1:${(app.getHttpServer().address() as AddressInfo).port}/mcp`;
  });

  afterAll(async () => {
    await app?.close();
  });

  const post = async (body: string) => {
    const response = await fetch(url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': '2026-07-28',
        'mcp-method': 'tools/call',
        'mcp-name': 'echo',
      },
      body,
    });
    return { status: response.status, json: (await response.json()) as Record<string, unknown> };
  };
  const call = (id: string) =>
    `{"jsonrpc":"2.0","id":${id},"method":"tools/call","params":{"_meta":${JSON.stringify(MODERN_META)},"name":"echo","arguments":{"text":"hi"}}}`;

  it.each(BAD_IDS)('refuses %s with 400 and -32600, answering with no id', async (_name, id) => {
    expect(await post(call(id))).toEqual({ status: 400, json: refusal });
  });

  it('refuses them in a legacy session too, with 400 and -32600', async () => {
    const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
    const initialize = await fetch(url, {
      method: 'POST',
      headers,
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
      }),
    });
    await initialize.text();
    const session = {
      'mcp-session-id': initialize.headers.get('mcp-session-id')!,
      'mcp-protocol-version': '2025-11-25',
    };
    for (const [, id] of BAD_IDS) {
      const response = await fetch(url, {
        method: 'POST',
        headers: { ...headers, ...session },
        body: `{"jsonrpc":"2.0","id":${id},"method":"ping"}`,
      });
      expect({ id, status: response.status, json: await response.json() }).toEqual({ id, status: 400, json: refusal });
    }
  });

  it('answers string and safe-integer ids, the largest included', async () => {
    for (const id of ['"req-1"', '0', '-7', '9007199254740991']) {
      const { status, json } = await post(call(id));
      expect({ id, status }).toEqual({ id, status: 200 });
      expect(json).toMatchObject({ id: JSON.parse(id), result: { content: [{ type: 'text', text: 'hi' }] } });
    }
  });
});

describe('request ids over stdio', () => {
  let server: ScenarioProcess | undefined;

  afterEach(async () => {
    await server?.stop();
  });

  it('refuses fractional, unsafe and other non-string ids with -32600 and no id, and goes on serving', async () => {
    server = new ScenarioProcess(STDIO_APP);
    server.sendInitialize();
    await server.response(1);
    for (const [, id] of BAD_IDS) server.child.stdin.write(`{"jsonrpc":"2.0","id":${id},"method":"ping"}\n`);
    server.send({ jsonrpc: '2.0', id: Number.MAX_SAFE_INTEGER, method: 'ping' });
    expect(await server.response(Number.MAX_SAFE_INTEGER)).toEqual({
      jsonrpc: '2.0',
      id: Number.MAX_SAFE_INTEGER,
      result: {},
    });
    // Lines are answered in order: every refusal came before the last answer.
    const answers = server.messages().slice(1);
    expect(answers).toEqual([...BAD_IDS.map(() => refusal), expect.objectContaining({ id: Number.MAX_SAFE_INTEGER })]);
  }, 90_000);
});
