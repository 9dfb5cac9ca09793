import { Inject, Injectable } from '@nestjs/common';
import { ErrorCode, McpError, ReadResourceResult, resourceNotFound, sanitizeText } from '@conduit-mcp/core';
import { McpRequestContext, invocationOf } from '../context/mcp-request-context';
import { toMcpError } from '../dispatch/error.mapper';
import { McpParams } from '../dispatch/mcp-route.interface';
import { toReadResourceResult } from './result.normalizer';
import { McpModuleOptions } from '../interfaces/mcp-module-options.interface';
import { MAX_URI_LENGTH } from '../mcp.constants';
import { MCP_MODULE_OPTIONS } from '../mcp.module-definition';
import { McpRegistry } from '../registry/mcp.registry';
import { LiveSessions } from '../session/live-sessions';
import { McpScopePolicy } from '../auth/scope.policy';
import { McpTelemetry } from '../telemetry/mcp.telemetry';
import { requireString } from './params';
import { cacheFields } from './cache-hint';
import { ListPages } from './list-page';

/** Most subscriptions one session may hold. */
const MAX_SUBSCRIPTIONS = 1_000;

/** `resources/list`, `resources/templates/list`, `resources/read`, `resources/subscribe`, `resources/unsubscribe`. */
@Injectable()
export class ResourceMethods {
  private readonly resourcePages: ListPages;
  private readonly templatePages: ListPages;

  constructor(
    @Inject(MCP_MODULE_OPTIONS) private readonly options: McpModuleOptions,
    private readonly registry: McpRegistry,
    private readonly telemetry: McpTelemetry,
    private readonly sessions: LiveSessions,
    private readonly scopes: McpScopePolicy,
  ) {
    this.resourcePages = new ListPages('resources', options, scopes);
    this.templatePages = new ListPages('resourceTemplates', options, scopes);
  }

  async list(params: McpParams, ctx: McpRequestContext): Promise<Record<string, unknown>> {
    return this.resourcePages.page(this.registry.listResources(), this.registry.revision, ctx, params.cursor);
  }

  async listTemplates(params: McpParams, ctx: McpRequestContext): Promise<Record<string, unknown>> {
    return this.templatePages.page(this.registry.listTemplates(), this.registry.revision, ctx, params.cursor);
  }

  async read(params: McpParams, ctx: McpRequestContext): Promise<ReadResourceResult> {
    const uri = this.uri(params);
    const found = this.registry.findResource(uri);
    const shownUri = sanitizeText(uri, 512);
    if (!found) {
      throw this.telemetry.unknown(
        'resource',
        { server: this.options.name, name: shownUri },
        ctx,
        resourceNotFound(shownUri),
      );
    }
    const { resource, variables } = found;
    const template = 'uriTemplate' in resource.definition ? resource.definition.uriTemplate : undefined;
    ctx.target = { kind: 'resource', name: uri };
    this.scopes.check(resource.scopes, ctx);
    return this.telemetry.track('resource', { server: this.options.name, name: shownUri, template }, ctx, async () => {
      try {
        const result = toReadResourceResult(
          await resource.invoke(template ? variables : {}, ctx),
          uri,
          resource.definition.mimeType,
        );
        if (ctx.era !== 'modern') return result;
        const cache = cacheFields([resource], this.options.cache);
        // What only some callers may read must not be shared across authorization contexts.
        return { ...result, ...cache, cacheScope: resource.scopes.length ? 'private' : cache.cacheScope };
      } catch (error) {
        // A NotFoundException keeps the code and data of "Resource not found", with the exception's message.
        throw toMcpError(error, (message) => new McpError(ErrorCode.ResourceNotFound, message, { uri: shownUri }));
      }
    });
  }

  async subscribe(params: McpParams, ctx: McpRequestContext): Promise<Record<string, never>> {
    const uri = this.uri(params);
    const found = this.registry.findResource(uri);
    if (found) this.scopes.check(found.resource.scopes, ctx);
    const { session } = invocationOf(ctx);
    const { subscriptions } = session;
    if (!subscriptions.has(uri) && subscriptions.size >= MAX_SUBSCRIPTIONS) {
      throw new McpError(ErrorCode.ServerError, `Too many subscriptions (at most ${MAX_SUBSCRIPTIONS})`);
    }
    subscriptions.add(uri);
    this.sessions.save(session, { subscriptions: [...subscriptions] });
    return {};
  }

  async unsubscribe(params: McpParams, ctx: McpRequestContext): Promise<Record<string, never>> {
    const { session } = invocationOf(ctx);
    const { subscriptions } = session;
    if (subscriptions.delete(this.uri(params))) this.sessions.save(session, { subscriptions: [...subscriptions] });
    return {};
  }

  private uri(params: McpParams): string {
    const uri = requireString(params, 'uri');
    if (uri.length > MAX_URI_LENGTH)
      throw new McpError(ErrorCode.InvalidParams, `URI longer than ${MAX_URI_LENGTH} characters`);
    return uri;
  }
}
