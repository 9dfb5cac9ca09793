import { Era, META_PROTOCOL_VERSION } from './revisions';

/**
 * The one decision of which era a message belongs to, used by the server's transports and dispatcher alike.
 * Modern when the transport saw a modern revision (the HTTP `MCP-Protocol-Version` header), when the message names
 * its revision in `params._meta`, or when only the modern era has the method; otherwise legacy.
 */
export function decideEra(
  params: Record<string, unknown> | undefined,
  hint: Era | undefined,
  modernOnly: boolean,
): Era {
  return hint === 'modern' || namesModernRevision(params) || modernOnly ? 'modern' : 'legacy';
}

/** Whether a message's params name their revision in `_meta` (the mark of a modern-era message). */
export function namesModernRevision(params: Record<string, unknown> | undefined): boolean {
  const meta = params?._meta;
  return typeof meta === 'object' && meta !== null && META_PROTOCOL_VERSION in meta;
}

/**
 * The methods whose modern-era result may be `input_required` (multi round-trip requests, MRTR): the client answers
 * the questions and sends the request again with `inputResponses`.
 */
export const MRTR_METHODS: ReadonlySet<string> = new Set(['tools/call', 'prompts/get', 'resources/read']);
