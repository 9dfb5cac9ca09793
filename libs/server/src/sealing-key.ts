import { randomBytes } from 'node:crypto';
import type { McpModuleOptions } from './interfaces/mcp-module-options.interface';

const generated = new WeakMap<McpModuleOptions, Buffer>();

/**
 * The key a server signs with what it hands clients to bring back unchanged — `requestState`, list cursors — so that
 * one secret serves them all: `requestState.secret`, else a random key made once per server (instances behind one
 * endpoint then refuse each other's; `RequestStateKeyWarning` says so at start-up). Each user derives its own subkey
 * or signs a distinct format, so that nothing one issues passes for another's.
 */
export function sealingKeyOf(options: McpModuleOptions): Buffer {
  const secret = options.requestState?.secret;
  if (secret !== undefined) {
    const key = Buffer.from(secret);
    if (key.length < 16) throw new Error('requestState.secret must be at least 16 bytes');
    return key;
  }
  let key = generated.get(options);
  if (!key) {
    key = randomBytes(32);
    generated.set(options, key);
  }
  return key;
}
