import { DEFAULT_MAX_BATCH_LENGTH } from '@conduit-mcp/core';
import type { McpAuthenticator } from '../../auth/mcp-authenticator.interface';
import { McpHttpConnectionOptions, McpHttpOptions } from '../../interfaces/mcp-module-options.interface';
import { DEFAULT_BODY_LIMIT, DEFAULT_HTTP_PATH } from '../../mcp.constants';
import { CorsPolicy } from './cors.policy';
import { DEFAULT_SSE_BUFFER_BYTES } from './sse.stream';

/** The HTTP transport options with every default applied. */
export interface ResolvedHttpOptions {
  path: string;
  /** As asked; undefined lets the binding pick the mount that fits the adapter. */
  mount: 'server' | 'express' | 'fastify' | undefined;
  sessionMode: 'stateful' | 'stateless';
  /** Accepted Host values; undefined means loopback names only, `false` turns the check off. */
  allowedHosts: readonly string[] | false | undefined;
  /** Accepted Origin values; undefined means loopback origins only, `false` turns the check off. */
  allowedOrigins: readonly string[] | false | undefined;
  bodyLimit: number;
  /** How much, and for how long, the rest of a body refused with 413 is read and thrown away. */
  bodyDrain: { maxBytes: number; timeoutMs: number };
  /** Most messages in a batch (where the revision has batches). */
  maxBatchLength: number;
  /** `Retry-After` seconds of a 503 past a session or connection bound. */
  retryAfterSeconds: number;
  /** Timeouts and connection caps for the app's HTTP server; `false`: leave it as it is. */
  connections: ResolvedConnectionOptions | false;
  /** Interval of keep-alive comments on idle SSE streams; 0 sends none. */
  keepAliveMs: number;
  /** Bytes an SSE response may hold unread by its client before the connection is closed. */
  maxSseBufferBytes: number;
  legacySse: { ssePath: string; messagePath: string } | false;
  /** Runs on every request past the Host and Origin checks, before its body is read; undefined: none. */
  authenticator: McpAuthenticator | undefined;
  /** CORS of the endpoints; `false`: none (`OPTIONS` is 405). */
  cors: CorsPolicy | false;
}

/** {@link McpHttpConnectionOptions} with every default applied. */
export type ResolvedConnectionOptions = Required<McpHttpConnectionOptions>;

export const DEFAULT_KEEP_ALIVE_MS = 15_000;
export const DEFAULT_BODY_DRAIN_LIMIT = 8 * 1024 * 1024;
export const DEFAULT_BODY_DRAIN_TIMEOUT_MS = 5_000;
export const DEFAULT_RETRY_AFTER_SECONDS = 30;
export const DEFAULT_CONNECTIONS: ResolvedConnectionOptions = {
  max: 1_024,
  maxPerAddress: 128,
  headersTimeoutMs: 10_000,
  requestTimeoutMs: 30_000,
  keepAliveTimeoutMs: 5_000,
  idleTimeoutMs: 60_000,
};
export const DEFAULT_SSE_PATH = '/sse';
export const DEFAULT_MESSAGE_PATH = '/message';

/** Applies the defaults of {@link McpHttpOptions}; throws on a path that does not start with `/` or a bad number. */
export function resolveHttpOptions(options: McpHttpOptions = {}): ResolvedHttpOptions {
  const legacy = options.legacySse;
  checkSessionBounds(options);
  return {
    path: checkPath(options.path ?? DEFAULT_HTTP_PATH),
    mount: options.mount,
    sessionMode: options.sessionMode ?? 'stateful',
    allowedHosts: options.allowedHosts,
    allowedOrigins: options.allowedOrigins,
    bodyLimit: checkCount('bodyLimit', options.bodyLimit ?? DEFAULT_BODY_LIMIT, 1),
    bodyDrain: {
      maxBytes: checkCount('bodyDrainLimit', options.bodyDrainLimit ?? DEFAULT_BODY_DRAIN_LIMIT, 0),
      timeoutMs: checkCount('bodyDrainTimeoutMs', options.bodyDrainTimeoutMs ?? DEFAULT_BODY_DRAIN_TIMEOUT_MS, 0),
    },
    maxBatchLength: checkCount('maxBatchLength', options.maxBatchLength ?? DEFAULT_MAX_BATCH_LENGTH, 1),
    retryAfterSeconds: checkCount('retryAfterSeconds', options.retryAfterSeconds ?? DEFAULT_RETRY_AFTER_SECONDS, 0),
    connections: options.connections === false ? false : resolveConnections(options.connections),
    keepAliveMs: checkCount('keepAliveMs', options.keepAliveMs ?? DEFAULT_KEEP_ALIVE_MS, 0),
    maxSseBufferBytes: checkCount('maxSseBufferBytes', options.maxSseBufferBytes ?? DEFAULT_SSE_BUFFER_BYTES, 1),
    legacySse:
      legacy === false
        ? false
        : {
            ssePath: checkPath(legacy?.ssePath ?? DEFAULT_SSE_PATH),
            messagePath: checkPath(legacy?.messagePath ?? DEFAULT_MESSAGE_PATH),
          },
    authenticator: checkAuthenticator(options.authenticator),
    cors: options.cors ? new CorsPolicy(options.cors) : false,
  };
}

// Checked here for a start-up error; LiveSessions takes them as they are.
function checkSessionBounds(options: McpHttpOptions): void {
  if (options.maxSessions !== undefined) checkCount('maxSessions', options.maxSessions, 1);
  if (options.maxSessionsPerPrincipal !== undefined)
    checkCount('maxSessionsPerPrincipal', options.maxSessionsPerPrincipal, 1);
  if (options.sessionIdleMs !== undefined) checkCount('sessionIdleMs', options.sessionIdleMs, 1);
}

function resolveConnections(options: McpHttpConnectionOptions = {}): ResolvedConnectionOptions {
  const resolved = { ...DEFAULT_CONNECTIONS };
  for (const key of Object.keys(resolved) as Array<keyof ResolvedConnectionOptions>) {
    const value = options[key];
    if (value !== undefined) resolved[key] = checkCount(`connections.${key}`, value, key.startsWith('max') ? 1 : 0);
  }
  return resolved;
}

function checkAuthenticator(authenticator: McpAuthenticator | undefined): McpAuthenticator | undefined {
  if (authenticator !== undefined && typeof authenticator?.authenticate !== 'function')
    throw new Error('MCP HTTP option authenticator must have an authenticate(facts) method');
  return authenticator;
}

function checkPath(path: string): string {
  if (!path.startsWith('/') || path.includes('?'))
    throw new Error(`MCP HTTP path must start with "/" and have no query: ${path}`);
  return path;
}

function checkCount(name: string, value: number, min: number): number {
  if (!Number.isSafeInteger(value) || value < min)
    throw new Error(`MCP HTTP option ${name} must be an integer >= ${min}`);
  return value;
}
