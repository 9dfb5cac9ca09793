import { isJsonObject } from '@conduit-mcp/core';
import type { McpAuthInfo } from '../auth/mcp-auth-info.interface';
import type { TransportKind } from '../dispatch/transport-facts.interface';
import type { McpTaskJob, McpTaskJobAuth } from './task.queue';

const MAX_ID_CHARS = 256;
const MAX_OWNER_CHARS = 2_048;
const MAX_NAME_CHARS = 256;
const MAX_SCOPES = 1_000;
const TRANSPORTS: ReadonlySet<TransportKind> = new Set(['streamable-http', 'sse', 'stdio', 'memory']);

/** The auth a job carries: `auth` without its token (a worker acts on what the authenticator established, never on the credential). */
export function jobAuthOf(auth: McpAuthInfo | undefined): McpTaskJobAuth | undefined {
  if (!auth) return undefined;
  const carried: McpTaskJobAuth = { scopes: [...auth.scopes], claims: auth.claims };
  if (auth.subject !== undefined) carried.subject = auth.subject;
  if (auth.clientId !== undefined) carried.clientId = auth.clientId;
  return carried;
}

/**
 * `value` as a task job, checked field by field (a worker reads jobs from outside the process); throws an `Error`
 * naming the first field that is missing or malformed. Unknown fields are left out.
 */
export function readTaskJob(value: unknown): McpTaskJob {
  if (!isJsonObject(value)) throw invalid('an object is required');
  const job: McpTaskJob = {
    taskId: text(value, 'taskId', MAX_ID_CHARS),
    owner: text(value, 'owner', MAX_OWNER_CHARS),
    server: text(value, 'server', MAX_NAME_CHARS),
    tool: text(value, 'tool', MAX_NAME_CHARS),
    era: oneOf(value, 'era', ['modern', 'legacy'] as const),
    protocolVersion: text(value, 'protocolVersion', MAX_NAME_CHARS),
    arguments: object(value, 'arguments'),
    clientCapabilities: object(value, 'clientCapabilities'),
    transport: oneOf(value, 'transport', [...TRANSPORTS]),
    createdAt: timestamp(value.createdAt),
  };
  if (value.clientInfo !== undefined) {
    const info = object(value, 'clientInfo');
    job.clientInfo = {
      ...info,
      name: text(info, 'name', MAX_NAME_CHARS, 'clientInfo.'),
      version: text(info, 'version', MAX_NAME_CHARS, 'clientInfo.'),
    };
  }
  if (value.auth !== undefined) job.auth = readAuth(value.auth);
  return job;
}

function readAuth(value: unknown): McpTaskJobAuth {
  if (!isJsonObject(value)) throw invalid('"auth" must be an object');
  const { scopes } = value;
  if (!Array.isArray(scopes) || scopes.length > MAX_SCOPES || !scopes.every((scope) => typeof scope === 'string'))
    throw invalid(`"auth.scopes" must be a list of at most ${MAX_SCOPES} strings`);
  const auth: McpTaskJobAuth = { scopes: [...(scopes as string[])], claims: object(value, 'claims', 'auth.') };
  if (value.subject !== undefined) auth.subject = text(value, 'subject', MAX_OWNER_CHARS, 'auth.');
  if (value.clientId !== undefined) auth.clientId = text(value, 'clientId', MAX_OWNER_CHARS, 'auth.');
  return auth;
}

function text(value: Record<string, unknown>, key: string, max: number, path = ''): string {
  const field = value[key];
  if (typeof field !== 'string' || field.length === 0 || field.length > max)
    throw invalid(`"${path}${key}" must be a string of 1 to ${max} characters`);
  return field;
}

function object(value: Record<string, unknown>, key: string, path = ''): Record<string, unknown> {
  const field = value[key];
  if (!isJsonObject(field)) throw invalid(`"${path}${key}" must be an object`);
  return field;
}

function oneOf<T extends string>(value: Record<string, unknown>, key: string, allowed: readonly T[]): T {
  const field = value[key];
  if (typeof field !== 'string' || !(allowed as readonly string[]).includes(field))
    throw invalid(`"${key}" must be one of ${allowed.join(', ')}`);
  return field as T;
}

function timestamp(value: unknown): number {
  if (!Number.isSafeInteger(value) || (value as number) < 0)
    throw invalid('"createdAt" must be a non-negative integer of milliseconds');
  return value as number;
}

function invalid(problem: string): Error {
  return new Error(`Invalid task job: ${problem}`);
}
