import { Injectable, Module } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { McpModule, McpModuleOptions, McpTool } from './index';
import { KEY_ID_LENGTH, SealingKeyRing, keyIdOf, sealingKeysOf, secretKeys } from './sealing-key';

const k1 = 'the-first-key-of-at-least-16-bytes';
const k2 = Buffer.from('the-second-key-of-at-least-16-bytes');
// Two keys whose request-state ids meet (found by search): ids are short, so the check has to exist.
const COLLIDING = ['colliding-key-345820', 'colliding-key-381556'];

const options = (secret?: string | Buffer | Array<string | Buffer>): McpModuleOptions => ({
  name: 'keys',
  version: '1.0.0',
  ...(secret === undefined ? {} : { requestState: { secret } }),
});

describe('sealingKeysOf', () => {
  it('reads one secret as a ring of one key', () => {
    expect(sealingKeysOf(options(k1))).toEqual([Buffer.from(k1)]);
    expect(sealingKeysOf(options(k2))).toEqual([k2]);
  });

  it('reads a list as a ring in its order, the first sealing', () => {
    expect(sealingKeysOf(options([k2, k1]))).toEqual([k2, Buffer.from(k1)]);
  });

  it('makes a random 32-byte key without a secret, once per options object', () => {
    const shared = options();
    const [key] = sealingKeysOf(shared);
    expect(key).toHaveLength(32);
    expect(sealingKeysOf(shared)).toEqual([key]);
    expect(sealingKeysOf(options())[0].equals(key)).toBe(false);
  });

  it('copies the keys, so that changing the Buffer given afterwards changes nothing', () => {
    const given = Buffer.from(k2);
    const [key] = sealingKeysOf(options([given]));
    given.fill(0);
    expect(key.equals(k2)).toBe(true);
  });
});

describe('secretKeys', () => {
  it.each([
    ['an empty list', [], 'requestState.secret is an empty list: give 1 to 8 keys'],
    ['nine keys', Array.from({ length: 9 }, (_, i) => `key-${i}-of-at-least-16-bytes`), 'requestState.secret lists 9'],
    ['a short secret', 'short', 'requestState.secret must be at least 16 bytes'],
    ['an empty secret', '', 'requestState.secret must be at least 16 bytes'],
    ['a short key in a list', [k1, Buffer.alloc(15)], 'requestState.secret[1] must be at least 16 bytes'],
    ['an overlong key', [k1, 'x'.repeat(4097)], 'requestState.secret[1] must be at most 4096 bytes'],
    ['a repeated key', [k1, k2, k1], 'requestState.secret[2] repeats requestState.secret[0]'],
    ['a key repeated as a Buffer', [Buffer.from(k1), k1], 'requestState.secret[1] repeats requestState.secret[0]'],
    ['keys sharing a key id', COLLIDING, 'requestState.secret[1] and requestState.secret[0] share a key id'],
    ['a number in a list', [k1, 42], 'requestState.secret[1] must be a string or a Buffer'],
    ['a number', 42, 'requestState.secret must be a string, a Buffer or a list of them'],
    ['an object', { key: k1 }, 'requestState.secret must be a string, a Buffer or a list of them'],
  ])('refuses %s with an Error naming requestState.secret', (_label, secret, message) => {
    expect(() => secretKeys(secret)).toThrow(message);
  });

  it('takes 1 to 8 distinct keys of 16 to 4096 bytes', () => {
    const eight = Array.from({ length: 8 }, (_, i) => `key-${i}-of-at-least-16-bytes`);
    expect(secretKeys(eight)).toHaveLength(8);
    expect(secretKeys(['x'.repeat(16), 'y'.repeat(4096)])).toHaveLength(2);
  });
});

describe('keyIdOf', () => {
  it('is a short base64url name, the same for the same key, other for another key or another purpose', () => {
    const id = keyIdOf(Buffer.from(k1), 'request-state');
    expect(id).toMatch(new RegExp(`^[A-Za-z0-9_-]{${KEY_ID_LENGTH}}$`));
    expect(keyIdOf(Buffer.from(k1), 'request-state')).toBe(id);
    expect(keyIdOf(k2, 'request-state')).not.toBe(id);
    expect(keyIdOf(Buffer.from(k1), 'list-cursor')).not.toBe(id);
  });
});

describe('SealingKeyRing', () => {
  const ring = new SealingKeyRing([k2, Buffer.from(k1)], 'request-state', (key) => Buffer.concat([key, key]));
  const id1 = keyIdOf(Buffer.from(k1), 'request-state');
  const id2 = keyIdOf(k2, 'request-state');

  it('seals with the first key, derived', () => {
    expect(ring.sealing).toEqual({ id: id2, key: Buffer.concat([k2, k2]) });
  });

  it('finds the (derived) key a sealed string names by its leading id and dot', () => {
    expect(ring.keyOf(`${id1}.body.tag`)).toEqual({ id: id1, key: Buffer.from(k1 + k1) });
    expect(ring.keyOf(`${id2}.body.tag`)).toBe(ring.sealing);
  });

  it('finds nothing for an unknown id, an id without its dot, or no id', () => {
    const unknown = keyIdOf(Buffer.from('not-a-key-of-this-ring'), 'request-state');
    expect(ring.keyOf(`${unknown}.body.tag`)).toBeUndefined();
    expect(ring.keyOf(`${id1}body.tag`)).toBeUndefined();
    expect(ring.keyOf(`${id1.slice(1)}.body.tag`)).toBeUndefined();
    expect(ring.keyOf('')).toBeUndefined();
  });

  it('needs a key', () => {
    expect(() => new SealingKeyRing([], 'list-cursor')).toThrow('A sealing key ring needs a key');
  });
});

@Injectable()
class OneTool {
  @McpTool({ name: 'noop' }) noop() {}
}

async function start(secret: unknown, eras: Array<'legacy' | 'modern'>) {
  @Module({
    imports: [
      McpModule.forRoot({
        name: 'keys',
        version: '1.0.0',
        http: false,
        eras,
        requestState: { secret: secret as string },
      }),
    ],
    providers: [OneTool],
  })
  class KeysModule {}
  const app = await (await Test.createTestingModule({ imports: [KeysModule] }).compile()).init();
  await app.close();
}

describe('requestState.secret at start-up', () => {
  it.each([
    [['modern' as const], [], 'requestState.secret is an empty list'],
    [['legacy' as const], [k1, 'short'], 'requestState.secret[1] must be at least 16 bytes'],
    [['legacy' as const, 'modern' as const], [k1, k1], 'requestState.secret[1] repeats requestState.secret[0]'],
  ])('stops a server of the %j eras with a bad secret %#', async (eras, secret, message) => {
    await expect(start(secret, eras)).rejects.toThrow(message);
  });

  it('starts a server with a ring of keys', async () => {
    await expect(start([k2, k1], ['legacy', 'modern'])).resolves.toBeUndefined();
  });
});
