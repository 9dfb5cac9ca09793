// A rotation of requestState.secret across two instances behind one endpoint, over HTTP in the modern era: A still on
// [k1], B already on [k2, k1]. B seals with k2 and opens what A sealed with k1; A, lacking k2, refuses what B sealed
// exactly as a forged state (-32602), and list cursors go the same way.
import { INestApplication, Module } from '@nestjs/common';
import { McpModule } from '@conduit-mcp/server';
import { createHttpApp, freePort } from './support/http-adapters';
import { RoundsExtras, TripPlanner } from './support/rounds-fixture';

const MODERN = '2026-07-28';
const K1 = 'rotation-key-one-of-at-least-16-bytes';
const K2 = Buffer.from('rotation-key-two-of-at-least-16-bytes');

interface Instance {
  app: INestApplication;
  url: string;
}

async function instance(secret: string | Buffer | Array<string | Buffer>): Promise<Instance> {
  const port = await freePort();
  @Module({
    imports: [
      McpModule.forRoot({
        name: 'rotation',
        version: '1.0.0',
        eras: ['modern'],
        pageSize: 1,
        requestState: { secret },
      }),
    ],
    providers: [TripPlanner, RoundsExtras],
  })
  class RotationModule {}
  const app = await createHttpApp(RotationModule, 'express');
  await app.listen(port, '127.0.0.1');
  return { app, url: `http://127.0.0.1:${port}/mcp` };
}

/** One modern-era request to `to`, its JSON-RPC response. */
async function send(to: Instance, method: string, params: Record<string, unknown>): Promise<Record<string, any>> {
  const response = await fetch(to.url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': MODERN,
      'mcp-method': method,
      ...(method === 'tools/call' ? { 'mcp-name': String(params.name) } : {}),
    },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method,
      params: {
        ...params,
        _meta: {
          'io.modelcontextprotocol/protocolVersion': MODERN,
          'io.modelcontextprotocol/clientCapabilities': { elicitation: {} },
        },
      },
    }),
  });
  return (await response.json()) as Record<string, any>;
}

const planTrip = (to: Instance, retry: Record<string, unknown> = {}) =>
  send(to, 'tools/call', { name: 'plan_trip', arguments: { traveller: 'Ada' }, ...retry });
const city = { city: { action: 'accept', content: { city: 'Oslo' } } };
const confirm = { confirm: { action: 'accept', content: { confirm: true } } };

describe('requestState.secret rotation across two instances (A: [k1], B: [k2, k1])', () => {
  let a: Instance;
  let b: Instance;

  beforeAll(async () => {
    [a, b] = await Promise.all([instance([K1]), instance([K2, K1])]);
  });

  afterAll(async () => {
    await Promise.all([a?.app.close(), b?.app.close()]);
  });

  it('takes on B a requestState that A sealed, and goes on to the end there', async () => {
    const first = await planTrip(a);
    expect(first.result).toMatchObject({ resultType: 'input_required', requestState: expect.any(String) });

    const second = await planTrip(b, { inputResponses: city, requestState: first.result.requestState });
    expect(second.result).toMatchObject({ resultType: 'input_required', requestState: expect.any(String) });
    expect(second.result.inputRequests).toHaveProperty('confirm');

    const done = await planTrip(b, { inputResponses: confirm, requestState: second.result.requestState });
    expect(done.result.content[0].text).toMatch(/^Booked Oslo for Ada, ref [0-9a-f]{8}\.$/);
  });

  it('refuses on A a requestState that B sealed (with k2) exactly as a forged one', async () => {
    const first = await planTrip(b);
    const fromB = first.result.requestState as string;
    const refused = await planTrip(a, { inputResponses: city, requestState: fromB });
    expect(refused.error).toEqual({ code: -32602, message: 'Invalid requestState: failed verification' });

    const forged = await planTrip(a, {
      inputResponses: city,
      requestState: `${fromB.slice(0, -1)}${fromB.endsWith('A') ? 'B' : 'A'}`,
    });
    expect(forged.error).toEqual(refused.error);
    // B itself still takes it.
    expect((await planTrip(b, { inputResponses: city, requestState: fromB })).result).toMatchObject({
      resultType: 'input_required',
    });
  });

  it('pages on B with A’s cursor, and refuses on A the cursor B made', async () => {
    const fromA = (await send(a, 'tools/list', {})).result;
    const fromB = (await send(b, 'tools/list', {})).result;
    expect(fromA.nextCursor).toEqual(expect.any(String));
    expect(fromB.nextCursor).toEqual(expect.any(String));

    const onB = await send(b, 'tools/list', { cursor: fromA.nextCursor });
    expect(onB.result.tools).toEqual([
      expect.objectContaining({
        name: (await send(a, 'tools/list', { cursor: fromA.nextCursor })).result.tools[0].name,
      }),
    ]);
    expect((await send(a, 'tools/list', { cursor: fromB.nextCursor })).error).toEqual({
      code: -32602,
      message: 'Invalid cursor',
    });
  });
});
