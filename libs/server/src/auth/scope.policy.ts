import { Inject, Injectable } from '@nestjs/common';
import { ErrorCode, ImpliedScopes, McpError, expandScopes, formatBearerChallenge } from '@conduit-mcp/core';
import type { TransportFacts } from '../dispatch/transport-facts.interface';
import { MCP_RESOLVED_AUTH, ResolvedAuth } from './auth-options.resolve';
import type { McpAuthInfo } from './mcp-auth-info.interface';

/**
 * One server's rule for `@McpScopes`: the methods run it before every call, read, subscription, prompt and
 * completion that names a scoped entry (before a task is created: a refused call leaves nothing behind), and lists
 * leave out the entries a caller lacks the scopes of. A refusal is 403 `insufficient_scope` with a challenge naming
 * every scope the operation needs (a client asks for them all at once), and the JSON-RPC error -32000 with
 * `data.requiredScopes`.
 *
 * Scopes granted imply those `auth.impliedScopes` says they do. A request without an authorization context is
 * unrestricted over stdio and in memory, a transport of the app's included (the process boundary is the trust
 * there), and holds no scope over HTTP.
 */
@Injectable()
export class McpScopePolicy {
  private readonly implied: ImpliedScopes;
  private readonly resourceMetadata: string | undefined;
  private readonly expanded = new WeakMap<McpAuthInfo, ReadonlySet<string>>();

  constructor(@Inject(MCP_RESOLVED_AUTH) auth: ResolvedAuth | null) {
    this.implied = auth?.options.impliedScopes ?? {};
    this.resourceMetadata = auth?.metadataUrl;
  }

  /** Throws the 403 refusal unless the caller holds every scope of `required`. */
  check(required: readonly string[], ctx: ScopedRequest): void {
    const refusal = this.refusalOf(required, ctx);
    if (refusal) throw refusal;
  }

  /** The 403 refusal for a caller that lacks a scope of `required`; undefined when it may proceed. */
  refusalOf(required: readonly string[], ctx: ScopedRequest): McpError | undefined {
    return this.allows(required, ctx) ? undefined : this.refusal(required);
  }

  /** Whether the caller holds every scope of `required` (or is not restricted). */
  allows(required: readonly string[], ctx: ScopedRequest): boolean {
    if (required.length === 0) return true;
    const granted = this.grantedScopes(ctx);
    return granted === undefined || required.every((scope) => granted.has(scope));
  }

  // The scopes the caller holds, with those they imply; undefined when nothing restricts it.
  private grantedScopes(ctx: ScopedRequest): ReadonlySet<string> | undefined {
    const auth = ctx.auth;
    if (!auth) return ctx.transport.kind === 'stdio' || ctx.transport.kind === 'memory' ? undefined : NO_SCOPES;
    let granted = this.expanded.get(auth);
    if (!granted) {
      granted = expandScopes(Array.isArray(auth.scopes) ? auth.scopes : [], this.implied);
      this.expanded.set(auth, granted);
    }
    return granted;
  }

  private refusal(required: readonly string[]): McpError {
    const scope = [...new Set(required)];
    const challenge = formatBearerChallenge({
      error: 'insufficient_scope',
      errorDescription: 'The access token lacks a scope this operation needs',
      scope,
      resourceMetadata: this.resourceMetadata,
    });
    return new McpError(
      ErrorCode.ServerError,
      `Insufficient scope: needs ${scope.join(' ')}`,
      { requiredScopes: scope },
      { http: { status: 403, headers: { 'WWW-Authenticate': challenge } } },
    );
  }
}

const NO_SCOPES: ReadonlySet<string> = new Set();

/** What the rule reads of a request: who made it, over what (`McpRequestContext` is one). */
export interface ScopedRequest {
  readonly auth: McpAuthInfo | undefined;
  readonly transport: Pick<TransportFacts, 'kind'>;
}
