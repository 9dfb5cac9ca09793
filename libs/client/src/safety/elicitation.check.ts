import {
  Era,
  ElicitRequestParams,
  ElicitResult,
  ErrorCode,
  SchemaValidator,
  checkElicitResult,
  checkElicitationSchema,
  sanitizeText,
  isJsonObject,
} from '@conduit-mcp/core';
import { Checked, accepted, refused } from './checked';
import { isSensitiveField } from './sensitive-field.detector';

export type ElicitationMode = 'form' | 'url';

/** What the handler is told about an elicitation, beyond its params. */
export interface ElicitationContext {
  mode: ElicitationMode;
  /** URL mode: the normalized URL (the one to show and, if the person agrees, to open). */
  url?: string;
  /** URL mode: the URL's host name (punycode for international names). */
  host?: string;
  /** URL mode: whether a label of the host is punycode (`xn--`), which may imitate another name. */
  idn?: boolean;
  /** URL mode: true unless the URL has the server's origin; true when that origin is unknown. */
  originMismatch?: boolean;
  /** Form mode: each requested field, flagged when it looks like it asks for a secret. */
  fields?: Record<string, { sensitiveSuspected: boolean }>;
}

export interface CheckedElicitation {
  params: ElicitRequestParams;
  context: ElicitationContext;
}

const MODES: readonly string[] = ['form', 'url'];

/**
 * Checks `elicitation/create` params before the handler sees them (-32602 when refused): the mode must
 * be declared; URL mode needs an absolute `https` URL without userinfo; form mode needs a flat primitive
 * schema. Returns the params (URL normalized) and the context for the handler.
 */
export function checkElicitationRequest(
  params: unknown,
  declaredModes: readonly ElicitationMode[],
  origin: string | undefined,
  era: Era = 'legacy',
): Checked<CheckedElicitation> {
  if (!isJsonObject(params)) return invalid('elicitation params must be an object');
  const mode = params.mode === undefined ? 'form' : params.mode;
  if (typeof mode !== 'string' || !MODES.includes(mode)) {
    return invalid(`unknown elicitation mode "${sanitizeText(String(mode), 32)}"`);
  }
  if (!declaredModes.includes(mode as ElicitationMode)) return invalid(`elicitation mode "${mode}" is not supported`);
  if (typeof params.message !== 'string') return invalid('message must be a string');
  return mode === 'url' ? checkUrlMode(params, origin, era) : checkFormMode(params);
}

/**
 * Checks the handler's answer before it is sent (-32603 when refused): the action is known, a form
 * `accept` fits the requested schema, a URL `accept` carries no content. Content on a `decline` or
 * `cancel` is dropped rather than refused, so the person's answer still reaches the server.
 */
export function checkElicitationAnswer(
  request: ElicitRequestParams,
  result: unknown,
  schemas: SchemaValidator,
): Checked<ElicitResult> {
  const checked = checkElicitResult(request, result, schemas);
  return checked.ok ? accepted(checked.value) : broken(checked.problem);
}

function checkUrlMode(
  params: Record<string, unknown>,
  origin: string | undefined,
  era: Era,
): Checked<CheckedElicitation> {
  // 2025-11-25 correlates URL elicitations by id; 2026-07-28 removed it (the retry carries the outcome).
  if (era === 'legacy' && typeof params.elicitationId !== 'string') return invalid('elicitationId must be a string');
  const raw = params.url;
  // The explicit `https://` prefix refuses relative and scheme-only forms (`https:host`) the parser would repair.
  const url = typeof raw === 'string' && /^https:\/\//i.test(raw) ? parseUrl(raw) : undefined;
  if (!url || url.protocol !== 'https:') return invalid('url must be an absolute https URL');
  if (url.username || url.password) return invalid('url must not carry credentials');
  const host = url.hostname;
  return accepted({
    params: { ...params, url: url.href } as ElicitRequestParams,
    context: {
      mode: 'url',
      url: url.href,
      host,
      idn: host.split('.').some((label) => label.startsWith('xn--')),
      originMismatch: origin === undefined || url.origin !== parseUrl(origin)?.origin,
    },
  });
}

function checkFormMode(params: Record<string, unknown>): Checked<CheckedElicitation> {
  const schema = params.requestedSchema;
  const problems = checkElicitationSchema(schema);
  if (problems.length > 0) {
    return invalid(sanitizeText(`requestedSchema is not a flat form: ${problems.join('; ')}`, 1024));
  }
  const properties = (schema as { properties: Record<string, unknown> }).properties;
  // fromEntries defines own properties, so a field named `__proto__` stays a field.
  const fields = Object.fromEntries(
    Object.entries(properties).map(([name, field]) => [name, { sensitiveSuspected: isSensitiveField(name, field) }]),
  );
  return accepted({ params: params as ElicitRequestParams, context: { mode: 'form', fields } });
}

function parseUrl(text: string): URL | undefined {
  try {
    return new URL(text);
  } catch {
    return undefined;
  }
}

function invalid(message: string): Checked<never> {
  return refused(ErrorCode.InvalidParams, message);
}

function broken(message: string): Checked<never> {
  return refused(ErrorCode.InternalError, message);
}
