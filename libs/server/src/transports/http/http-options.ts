import type { McpAuthenticator } from '../../auth/mcp-authenticator.interface';
import { McpHttpOptions } from '../../interfaces/mcp-module-options.interface';
import { DEFAULT_BODY_LIMIT, DEFAULT_HTTP_PATH } from '../../mcp.constants';
import { CorsPolicy } from './cors.policy';

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
  /** Interval of keep-alive comments on idle SSE streams; 0 sends none. */
  keepAliveMs: number;
  legacySse: { ssePath: string; messagePath: string } | false;
  /** Runs on every request past the Host and Origin checks, before its body is read; undefined: none. */
  authenticator: McpAuthenticator | undefined;
  /** CORS of the endpoints; `false`: none (`OPTIONS` is 405). */
  cors: CorsPolicy | false;
}

export const DEFAULT_KEEP_ALIVE_MS = 15_000;
export const DEFAULT_SSE_PATH = '/sse';
export const DEFAULT_MESSAGE_PATH = '/message';

/** Applies the defaults of {@link McpHttpOptions}; throws on a path that does not start with `/` or a bad number. */
export function resolveHttpOptions(options: McpHttpOptions = {}): ResolvedHttpOptions {
  const legacy = options.legacySse;
  return {
    path: checkPath(options.path ?? DEFAULT_HTTP_PATH),
    mount: options.mount,
    sessionMode: options.sessionMode ?? 'stateful',
    allowedHosts: options.allowedHosts,
    allowedOrigins: options.allowedOrigins,
    bodyLimit: checkCount('bodyLimit', options.bodyLimit ?? DEFAULT_BODY_LIMIT, 1),
    keepAliveMs: checkCount('keepAliveMs', options.keepAliveMs ?? DEFAULT_KEEP_ALIVE_MS, 0),
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
