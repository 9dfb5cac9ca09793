import { Injectable, Module } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { RawClient } from '../../../../test/support/raw-client';
import { McpModule, McpModuleOptions, McpPrompt, McpServer, McpTool } from '../index';
import type * as Crypto from 'node:crypto';
import { ListCursors } from './list-cursor';

// The module itself (not an import's copy of its bindings), so that a spy on it sees the calls of list-cursor.ts.
const crypto = jest.requireActual<typeof Crypto>('node:crypto');
const key = Buffer.from('a-sealing-key-of-at-least-16-bytes');
const tools = new ListCursors('tools', () => key);
const k1 = Buffer.from('the-first-key-of-at-least-16-bytes');
const k2 = Buffer.from('the-second-key-of-at-least-16-bytes');

/** The cursor with one character of its key id (first part), body (second) or tag (last) changed. */
function edited(cursor: string, part: 'id' | 'body' | 'tag'): string {
  const at = part === 'id' ? 2 : part === 'body' ? cursor.indexOf('.') + 3 : cursor.length - 2;
  return cursor.slice(0, at) + (cursor[at] === 'A' ? 'B' : 'A') + cursor.slice(at + 1);
}

/** A cursor whose payload says `payload`, carrying the key id and tag of a genuine cursor. */
function forged(payload: object, genuine: string): string {
  const [id, , tag] = genuine.split('.');
  return `${id}.${Buffer.from(JSON.stringify(payload)).toString('base64url')}.${tag}`;
}

/** A cursor as made before key ids: `<body>.<tag>`, the tag under the cursor subkey of `signingKey`. */
function keylessCursor(list: string, offset: number, signingKey: Buffer): string {
  const subkey = crypto.createHmac('sha256', signingKey).update('conduit-mcp/list-cursor/v1').digest();
  const body = Buffer.from(JSON.stringify({ l: list, o: offset })).toString('base64url');
  return `${body}.${crypto.createHmac('sha256', subkey).update(body).digest().subarray(0, 16).toString('base64url')}`;
}

const invalidCursor = expect.objectContaining({ code: -32602, message: 'Invalid cursor' });

describe('ListCursors', () => {
  it('decodes the offsets it encoded, as opaque strings', () => {
    for (const offset of [0, 1, 100, Number.MAX_SAFE_INTEGER]) {
      const cursor = tools.encode(offset);
      expect(cursor).toMatch(/^[A-Za-z0-9_-]{6}\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/);
      expect(tools.decode(cursor)).toBe(offset);
    }
  });

  it.each([
    ['an empty cursor', ''],
    ['garbage', 'not-a-cursor'],
    ['a lone dot', '.'],
    ['no body', `${tools.encode(2).split('.')[0]}..${tools.encode(2).split('.')[2]}`],
    ['no tag', tools.encode(2).split('.').slice(0, 2).join('.')],
    ['no key id', tools.encode(2).split('.').slice(1).join('.')],
    ['an edited key id', edited(tools.encode(2), 'id')],
    ['an edited body', edited(tools.encode(2), 'body')],
    ['an edited tag', edited(tools.encode(2), 'tag')],
    ['a forged offset under a genuine tag', forged({ l: 'tools', o: 4 }, tools.encode(2))],
    ['an appended suffix', `${tools.encode(2)}.x`],
    ['another list’s cursor', new ListCursors('prompts', () => key).encode(2)],
    ['a cursor signed with another key', new ListCursors('tools', () => Buffer.from('x'.repeat(32))).encode(2)],
    ['an overlong string', 'A'.repeat(10_000)],
    ['a number', 2],
    ['null', null],
    ['an object', { o: 2 }],
  ])('refuses %s with -32602', (_name, cursor) => {
    expect(() => tools.decode(cursor)).toThrow(expect.objectContaining({ code: -32602, message: 'Invalid cursor' }));
  });

  it('opens a cursor made with the first key of a ring that lists it later', () => {
    const cursor = new ListCursors('tools', () => [k1]).encode(7);
    expect(new ListCursors('tools', () => [k2, k1]).decode(cursor)).toBe(7);
  });

  it('makes cursors with the first key of its ring, which a ring of that key alone opens', () => {
    const cursor = new ListCursors('tools', () => [k2, k1]).encode(7);
    expect(new ListCursors('tools', () => [k2]).decode(cursor)).toBe(7);
    expect(new ListCursors('tools', () => k2).decode(cursor)).toBe(7);
  });

  it('refuses a cursor naming a key it does not hold exactly as a forged one', () => {
    const cursor = new ListCursors('tools', () => [k2, k1]).encode(7);
    const ring = new ListCursors('tools', () => [k1]);
    expect(() => ring.decode(cursor)).toThrow(invalidCursor);
    expect(() => ring.decode(edited(ring.encode(7), 'tag'))).toThrow(invalidCursor);
  });

  it('opens a cursor made before key ids with the sealing key only', () => {
    expect(new ListCursors('tools', () => [k1, k2]).decode(keylessCursor('tools', 5, k1))).toBe(5);
    expect(() => new ListCursors('tools', () => [k2, k1]).decode(keylessCursor('tools', 5, k1))).toThrow(invalidCursor);
    expect(() => new ListCursors('tools', () => [k1]).decode(keylessCursor('prompts', 5, k1))).toThrow(invalidCursor);
  });

  it('computes one HMAC to open a cursor, whichever key made it, and none for an unknown key id', () => {
    const keys = Array.from({ length: 8 }, (_, index) => Buffer.from(`ring-key-number-${index}-of-eight`));
    const ring = new ListCursors('tools', () => keys);
    const last = new ListCursors('tools', () => [keys[7]]).encode(3);
    const unknown = new ListCursors('tools', () => [k1]).encode(3);
    ring.encode(0); // builds the ring: its subkeys and ids
    const hmacs = jest.spyOn(crypto, 'createHmac');
    try {
      expect(ring.decode(last)).toBe(3);
      expect(hmacs).toHaveBeenCalledTimes(1);
      hmacs.mockClear();
      expect(() => ring.decode(unknown)).toThrow(invalidCursor);
      expect(hmacs).not.toHaveBeenCalled();
    } finally {
      hmacs.mockRestore();
    }
  });

  it('reads its key once, when the first cursor is made or read', () => {
    const keyOf = jest.fn(() => key);
    const lazy = new ListCursors('tools', keyOf);
    expect(keyOf).not.toHaveBeenCalled();
    lazy.decode(lazy.encode(3));
    lazy.encode(4);
    expect(keyOf).toHaveBeenCalledTimes(1);
  });

  it('refuses a short requestState.secret when the server starts, not when it first pages (legacy era alone too)', async () => {
    await expect(serve({ eras: ['legacy'], requestState: { secret: 'too-short' } })).rejects.toThrow(
      'requestState.secret must be at least 16 bytes',
    );
  });
});

@Injectable()
class Listed {
  @McpTool({ name: 't1' }) t1() {}
  @McpTool({ name: 't2' }) t2() {}
  @McpTool({ name: 't3' }) t3() {}
  @McpTool({ name: 't4' }) t4() {}
  @McpTool({ name: 't5' }) t5() {}
  @McpPrompt({ name: 'p1' }) p1() {}
  @McpPrompt({ name: 'p2' }) p2() {}
  @McpPrompt({ name: 'p3' }) p3() {}
}

async function serve(options: Partial<McpModuleOptions> = {}) {
  @Module({
    imports: [McpModule.forRoot({ name: 'cursors', version: '1.0.0', http: false, pageSize: 2, ...options })],
    providers: [Listed],
  })
  class CursorsModule {}
  const app = await (await Test.createTestingModule({ imports: [CursorsModule] }).compile()).init();
  const client = RawClient.connect(app.get(McpServer));
  await client.initialize();
  return { client, close: async () => (await client.close(), await app.close()) };
}

type Page = { result?: { tools?: Array<{ name: string }>; prompts?: unknown[]; nextCursor?: string }; error?: object };

describe('list cursors on a server', () => {
  let server: Awaited<ReturnType<typeof serve>>;
  const list = async (method: string, cursor?: unknown) =>
    (await server.client.request(method, cursor === undefined ? {} : { cursor })) as Page;

  beforeAll(async () => {
    server = await serve();
  });

  afterAll(() => server.close());

  it('pages through a list with the cursors it hands out', async () => {
    const names: string[] = [];
    let cursor: string | undefined;
    do {
      const page = await list('tools/list', cursor);
      names.push(...page.result!.tools!.map((tool) => tool.name));
      cursor = page.result!.nextCursor;
    } while (cursor !== undefined);
    expect(names).toEqual(['t1', 't2', 't3', 't4', 't5']);
  });

  it('refuses an empty cursor with -32602, even once the first page is cached', async () => {
    expect((await list('tools/list')).result?.tools).toHaveLength(2);
    expect((await list('tools/list', '')).error).toMatchObject({ code: -32602, message: 'Invalid cursor' });
  });

  it('refuses garbage, another list’s cursor and an edited one with -32602', async () => {
    const next = (await list('tools/list')).result!.nextCursor!;
    const promptsNext = (await list('prompts/list')).result!.nextCursor!;
    for (const cursor of ['garbage', 42, null, promptsNext, edited(next, 'body'), edited(next, 'tag')]) {
      expect({ cursor, answer: await list('tools/list', cursor) }).toEqual({
        cursor,
        answer: expect.objectContaining({ error: expect.objectContaining({ code: -32602 }) }),
      });
    }
    expect((await list('tools/list', next)).result?.tools).toEqual([
      expect.objectContaining({ name: 't3' }),
      expect.objectContaining({ name: 't4' }),
    ]);
  });

  it('takes the cursors of another instance with the same requestState.secret, and refuses them otherwise', async () => {
    const secret = 'shared-secret-of-instances-1234';
    const [a, b, other] = await Promise.all([
      serve({ requestState: { secret } }),
      serve({ requestState: { secret } }),
      serve({ requestState: { secret: `${secret}-other` } }),
    ]);
    try {
      const next = ((await a.client.request('tools/list')) as Page).result!.nextCursor!;
      expect(((await b.client.request('tools/list', { cursor: next })) as Page).result?.tools?.[0]).toMatchObject({
        name: 't3',
      });
      expect(((await other.client.request('tools/list', { cursor: next })) as Page).error).toMatchObject({
        code: -32602,
      });
      expect(((await server.client.request('tools/list', { cursor: next })) as Page).error).toMatchObject({
        code: -32602,
      });
    } finally {
      await Promise.all([a.close(), b.close(), other.close()]);
    }
  });
});
