import { createHmac, randomBytes } from 'node:crypto';
import type { McpModuleOptions } from './interfaces/mcp-module-options.interface';

/** Most keys `requestState.secret` may list: the one that seals and those still accepted during rotations. */
export const MAX_SEALING_KEYS = 8;
const MIN_KEY_BYTES = 16;
/** Longer keys add nothing to HMAC-SHA256 (it hashes them first); the bound keeps a mistake from going unnoticed. */
const MAX_KEY_BYTES = 4096;
/** Characters of a key id: enough that ids of distinct keys practically never meet (and are checked not to). */
export const KEY_ID_LENGTH = 6;
/** What the server seals with its keys; each gets its own key ids, so one format's ids say nothing of another's. */
export const SEALING_PURPOSES = ['request-state', 'list-cursor'] as const;
export type SealingPurpose = (typeof SEALING_PURPOSES)[number];

const rings = new WeakMap<McpModuleOptions, readonly Buffer[]>();

/**
 * The keys a server seals with what it hands clients to bring back unchanged — `requestState`, list cursors — so that
 * one setting serves them all: `requestState.secret` (one key, or a list whose first seals and all open, for
 * rotations), else a random key made once per server (instances behind one endpoint then refuse each other's;
 * `RequestStateKeyWarning` says so at start-up). Read once per options object; each user derives its own subkey or
 * signs a distinct format, so that nothing one issues passes for another's.
 */
export function sealingKeysOf(options: McpModuleOptions): readonly Buffer[] {
  let keys = rings.get(options);
  if (!keys) {
    const secret = options.requestState?.secret;
    keys = secret === undefined ? [randomBytes(32)] : secretKeys(secret);
    rings.set(options, keys);
  }
  return keys;
}

/**
 * The keys of a `requestState.secret`, checked: one key or a list of 1 to {@link MAX_SEALING_KEYS}, each a string or
 * a Buffer of 16 to 4096 bytes, none repeated. Anything else throws an Error naming `requestState.secret`.
 */
export function secretKeys(secret: unknown): Buffer[] {
  if (typeof secret === 'string' || Buffer.isBuffer(secret)) return [checkedKey(secret, 'requestState.secret')];
  if (!Array.isArray(secret))
    throw new Error('requestState.secret must be a string, a Buffer or a list of them (the sealing key first)');
  if (secret.length === 0) throw new Error(`requestState.secret is an empty list: give 1 to ${MAX_SEALING_KEYS} keys`);
  if (secret.length > MAX_SEALING_KEYS) {
    const count = `requestState.secret lists ${secret.length} keys: at most ${MAX_SEALING_KEYS}`;
    throw new Error(`${count} (the sealing key, then those still accepted)`);
  }
  const keys = secret.map((key: unknown, index) => {
    if (typeof key !== 'string' && !Buffer.isBuffer(key))
      throw new Error(`requestState.secret[${index}] must be a string or a Buffer`);
    return checkedKey(key, `requestState.secret[${index}]`);
  });
  for (let index = 1; index < keys.length; index++) {
    for (let earlier = 0; earlier < index; earlier++) {
      if (keys[index].equals(keys[earlier]))
        throw new Error(`requestState.secret[${index}] repeats requestState.secret[${earlier}]`);
      // A state names its key by id alone, so two keys with one id would make one of them refuse its own states.
      if (SEALING_PURPOSES.some((purpose) => keyIdOf(keys[index], purpose) === keyIdOf(keys[earlier], purpose)))
        throw new Error(
          `requestState.secret[${index}] and requestState.secret[${earlier}] share a key id: replace one`,
        );
    }
  }
  return keys;
}

function checkedKey(secret: string | Buffer, name: string): Buffer {
  const key = Buffer.from(secret);
  if (key.length < MIN_KEY_BYTES) throw new Error(`${name} must be at least ${MIN_KEY_BYTES} bytes`);
  if (key.length > MAX_KEY_BYTES) throw new Error(`${name} must be at most ${MAX_KEY_BYTES} bytes`);
  return key;
}

/**
 * The public name of `key` in what is sealed for `purpose`: the start of an HMAC of a fixed label under the key, so
 * that it reveals nothing of the key and differs between purposes.
 */
export function keyIdOf(key: Buffer, purpose: SealingPurpose): string {
  return createHmac('sha256', key)
    .update(`conduit-mcp/key-id/${purpose}/v1`)
    .digest('base64url')
    .slice(0, KEY_ID_LENGTH);
}

/** One key of a {@link SealingKeyRing}: its public id and the (derived) key. */
export interface SealingKey {
  readonly id: string;
  readonly key: Buffer;
}

/**
 * One purpose's keys, for a sealed format `<key id>.<…>`: the first key seals, and opening finds the one key named by
 * the id its input starts with, comparing ids only (a few at most), so an unknown id costs no HMAC. Each key may be
 * replaced by a subkey derived from it (`derive`); ids are those of the keys themselves. The keys are expected to be
 * distinct and their ids too, as {@link secretKeys} checks.
 */
export class SealingKeyRing {
  /** The key that seals, the one that opens what was sealed in the format without key ids. */
  readonly sealing: SealingKey;
  private readonly entries: readonly SealingKey[];

  constructor(keys: readonly Buffer[], purpose: SealingPurpose, derive: (key: Buffer) => Buffer = (key) => key) {
    if (keys.length === 0) throw new Error('A sealing key ring needs a key');
    this.entries = keys.map((key) => ({ id: keyIdOf(key, purpose), key: derive(key) }));
    this.sealing = this.entries[0];
  }

  /** The key whose id `sealed` starts with, followed by a dot; undefined when it names none of them. */
  keyOf(sealed: string): SealingKey | undefined {
    if (sealed.charCodeAt(KEY_ID_LENGTH) !== DOT) return undefined;
    for (let index = 0; index < this.entries.length; index++) {
      if (sealed.startsWith(this.entries[index].id)) return this.entries[index];
    }
    return undefined;
  }
}

const DOT = 0x2e;
