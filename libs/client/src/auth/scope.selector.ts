import type { BearerChallenge, ProtectedResourceMetadata } from '@conduit-mcp/core';

/** What decides the scopes of one authorization. */
export interface ScopeChoice {
  /** Configured scopes: they win over the server's. */
  configured?: readonly string[];
  /** The challenge that asked for this authorization. */
  challenge?: BearerChallenge;
  /** The scopes of the authorization being replaced (a step-up asks for them and the new ones). */
  held?: readonly string[];
  resource?: ProtectedResourceMetadata;
  /** The authorization server's `scopes_supported`. */
  serverScopes?: readonly string[];
  /** Ask for `offline_access` when the authorization server supports it. */
  offlineAccess: boolean;
}

const OFFLINE_ACCESS = 'offline_access';

/**
 * The scopes to ask for: on a 403 `insufficient_scope`, those held (else the configured ones) and those the challenge
 * names — the union, so a step-up loses nothing, configured scopes included; otherwise the configured ones; else, in
 * the specification's order, the challenge's `scope`, else the resource's `scopes_supported`, else none (no `scope`
 * parameter). `offline_access` is added only where the authorization server lists it and the client wants a refresh
 * token; where a server names it, it is kept only then.
 */
export function chooseScopes(choice: ScopeChoice): string[] {
  const offline = choice.offlineAccess && !!choice.serverScopes?.includes(OFFLINE_ACCESS);
  // offline_access asks the authorization server for a refresh token (SEP-2207): the client's choice, not a resource
  // requirement, and never asked of an authorization server that does not list it.
  const challenged = choice.challenge?.scope ?? [];
  const scopes =
    choice.challenge?.error === 'insufficient_scope'
      ? [
          ...(choice.held ? serverNamed(choice.held, offline) : (choice.configured ?? [])),
          ...serverNamed(challenged, offline),
        ]
      : (choice.configured ?? serverNamed(challenged.length ? challenged : choiceOfResource(choice.resource), offline));
  const chosen = new Set(scopes);
  if (offline) chosen.add(OFFLINE_ACCESS);
  return [...chosen];
}

function serverNamed(scopes: readonly string[], offline: boolean): readonly string[] {
  return offline ? scopes : scopes.filter((scope) => scope !== OFFLINE_ACCESS);
}

function choiceOfResource(resource: ProtectedResourceMetadata | undefined): string[] {
  const supported = resource?.scopes_supported;
  return Array.isArray(supported) ? supported.filter((scope): scope is string => typeof scope === 'string') : [];
}
