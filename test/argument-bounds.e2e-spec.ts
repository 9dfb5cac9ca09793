import { INestApplication, Injectable, Module } from '@nestjs/common';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { MCP_CHANNELS, McpArgs, McpModule, McpRequestEvent, McpTool } from '@conduit-mcp/server';
import { IsInt, IsOptional, IsString, Length, Max, Min } from 'class-validator';
import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import { AddressInfo } from 'node:net';
import { createHttpApp } from './support/http-adapters';
import { HTTP_MOUNTS, HttpMount } from './scenarios/http-hardening/hardening.app';
import { MODERN_META } from './scenarios/scenario.process';

class BookingArgs {
  @IsString()
  @Length(1, 80)
  city: string;

  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(9)
  nights?: number;
}

@Injectable()
class BoundedTools {
  @McpTool({ name: 'book', description: 'A tool whose input is a DTO class.', input: BookingArgs })
  book(@McpArgs() args: BookingArgs) {
    return `Booked ${args.nights ?? 1} nights in ${args.city}.`;
  }

  @McpTool({
    name: 'tally',
    description: 'A tool whose input is a JSON Schema.',
    input: { type: 'object', properties: { values: { type: 'array', items: { type: 'number' } } } },
  })
  tally(@McpArgs() args: { values?: number[] }) {
    return String((args.values ?? []).reduce((sum, value) => sum + value, 0));
  }
}

/** `arguments` of 200 000 keys, under 2 MiB of JSON: under the body limit, far past every argument bound. */
function attackArguments(): string {
  const members = Array.from({ length: 200_000 }, (_, index) => `"${index.toString(36)}":0`);
  return `{${members.join(',')}}`;
}

/** A 2026-07-28 `tools/call` as JSON text; `args` is the `arguments` JSON text; `more`, more params. */
function toolCall(id: number, name: string, args: string, more: Record<string, unknown> = {}): string {
  const rest = Object.entries(more).map(([key, value]) => `,${JSON.stringify(key)}:${JSON.stringify(value)}`);
  return `{"jsonrpc":"2.0","id":${id},"method":"tools/call","params":{"_meta":${JSON.stringify(MODERN_META)},"name":${JSON.stringify(name)},"arguments":${args}${rest.join('')}}}`;
}

interface Answer {
  status: number;
  json: { id?: unknown; result?: Record<string, unknown>; error?: { code: number; message: string } };
  /** From sending the request to reading the answer, in ms. */
  ms: number;
}

/** Generous: the box is slow and shared. Without the bounds, the DTO attack alone blocks the server for many seconds. */
const ATTACK_TIMEOUT_MS = 60_000;

describe.each(HTTP_MOUNTS)('tools/call arguments past their bounds ($name)', (mount: HttpMount) => {
  let app: INestApplication;
  let url: string;
  // What the dispatcher reports of each request: its duration excludes reading and parsing the body.
  const requests: McpRequestEvent[] = [];
  const onRequest = (event: unknown) => void requests.push(event as McpRequestEvent);
  const refusedIn = () => requests.filter((event) => event.errorCode === -32602).map((event) => event.durationMs);

  beforeAll(async () => {
    subscribe(MCP_CHANNELS.request, onRequest);
    @Module({
      imports: [
        McpModule.forRoot({ name: 'bounds', version: '0.0.1', http: { mount: mount.mount, legacySse: false } }),
      ],
      providers: [BoundedTools],
    })
    class BoundsModule {}
    app = await createHttpApp(BoundsModule, mount.adapter);
    // The Express mount reads bodies with Nest's JSON parser first, whose own limit (100 kB) would refuse the attack.
    if (mount.mount === 'express') (app as NestExpressApplication).useBodyParser('json', { limit: '4mb' });
    await app.listen(0, '127.0.0.1');
    url = `http://127.0.0.1:${(app.getHttpServer().address() as AddressInfo).port}/mcp`;
  });

  beforeEach(() => {
    requests.length = 0;
  });

  afterAll(async () => {
    unsubscribe(MCP_CHANNELS.request, onRequest);
    await app?.close();
  });

  /** Posts a body; answers the status, the JSON-RPC message and how long the answer took. */
  async function post(name: string, body: string): Promise<Answer> {
    const started = performance.now();
    const response = await fetch(url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': '2026-07-28',
        'mcp-method': 'tools/call',
        'mcp-name': name,
      },
      body,
    });
    const json = (await response.json()) as Answer['json'];
    return { status: response.status, json, ms: performance.now() - started };
  }

  it(
    'answers 200 000 keys to a DTO tool with -32602 within a second, and another client meanwhile',
    async () => {
      const attack = attackArguments();
      expect(attack.length).toBeLessThan(2 * 1024 * 1024);
      const [refused, ordinary] = await Promise.all([
        post('book', toolCall(1, 'book', attack)),
        post('book', toolCall(2, 'book', '{"city":"Oslo","nights":2}')),
      ]);
      expect(refused.status).toBe(400);
      expect(refused.json).toMatchObject({
        id: 1,
        error: { code: -32602, message: expect.stringMatching(/^Invalid arguments: .*properties its schema declares/) },
      });
      expect(refusedIn()).toEqual([expect.any(Number)]);
      expect(refusedIn()[0]).toBeLessThan(1_000);
      expect(ordinary.json.result).toMatchObject({ content: [{ type: 'text', text: 'Booked 2 nights in Oslo.' }] });
      expect(ordinary.ms).toBeLessThan(5_000);
    },
    ATTACK_TIMEOUT_MS,
  );

  it(
    'answers 200 000 keys to a JSON Schema tool with -32602 within a second, naming the bound',
    async () => {
      const refused = await post('tally', toolCall(3, 'tally', attackArguments()));
      expect(refused.json).toMatchObject({
        id: 3,
        error: { code: -32602, message: expect.stringMatching(/arguments\.maxObjectKeys/) },
      });
      expect(refusedIn()).toEqual([expect.any(Number)]);
      expect(refusedIn()[0]).toBeLessThan(1_000);
    },
    ATTACK_TIMEOUT_MS,
  );

  it(
    'answers a retry with a forged requestState and 200 000 keys with -32602 within a second, digesting nothing',
    async () => {
      const retry = toolCall(9, 'tally', attackArguments(), { inputResponses: {}, requestState: 'forged.state' });
      const refused = await post('tally', retry);
      expect(refused.json).toMatchObject({
        id: 9,
        error: { code: -32602, message: 'Invalid requestState: failed verification' },
      });
      expect(refusedIn()).toEqual([expect.any(Number)]);
      expect(refusedIn()[0]).toBeLessThan(1_000);
    },
    ATTACK_TIMEOUT_MS,
  );

  it('refuses arguments nested past maxDepth and arrays past maxKeys with -32602', async () => {
    const deep = `${'{"a":'.repeat(40)}0${'}'.repeat(40)}`;
    const nested = await post('tally', toolCall(4, 'tally', deep));
    expect(nested.json).toMatchObject({
      error: { code: -32602, message: expect.stringMatching(/arguments\.maxDepth/) },
    });
    const long = await post('tally', toolCall(5, 'tally', `{"values":[${new Array(10_001).fill(1).join(',')}]}`));
    expect(long.json).toMatchObject({ error: { code: -32602, message: expect.stringMatching(/arguments\.maxKeys/) } });
  });

  it('answers valid calls as before, and invalid arguments within the bounds as a tool error', async () => {
    expect((await post('book', toolCall(6, 'book', '{"city":"Bergen"}'))).json.result).toMatchObject({
      content: [{ text: 'Booked 1 nights in Bergen.' }],
    });
    expect((await post('book', toolCall(7, 'book', '{"city":"Bergen","nights":99}'))).json.result).toMatchObject({
      isError: true,
      content: [{ text: expect.stringMatching(/nights/) }],
    });
    const values = new Array(9_999).fill(1).join(',');
    expect((await post('tally', toolCall(8, 'tally', `{"values":[${values}]}`))).json.result).toMatchObject({
      content: [{ text: '9999' }],
    });
  });
});
