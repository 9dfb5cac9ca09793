import { Inject, Injectable, Logger, OnApplicationShutdown, OnModuleInit, Optional } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { McpModuleOptions } from '../../interfaces/mcp-module-options.interface';
import { MCP_MODULE_OPTIONS } from '../../mcp.module-definition';
import { McpServerHost } from '../../mcp-server.host';
import { EventStore } from './event.store';
import { ExpressAppLike, mountOnExpress } from './mounts/express.mount';
import { FastifyInstanceLike, mountOnFastify } from './mounts/fastify.mount';
import { chooseMount } from './mounts/mount.choice';
import { mountOnHttpServer } from './mounts/server.mount';
import { claimHttpPaths } from './http-path.claims';
import { guardHttpServer } from './connection.gate';
import { LegacySseHandler } from './legacy-sse.handler';
import { resolveHttpOptions } from './http-options';
import { StreamableHttpHandler } from './streamable-http.handler';
import { ProtectedResourceHandler } from './protected-resource.handler';
import { McpAuthenticator } from '../../auth/mcp-authenticator.interface';
import { MCP_RESOLVED_AUTH, ResolvedAuth } from '../../auth/auth-options.resolve';
import { McpRegistry } from '../../registry/mcp.registry';
import type { ProtectedResourceMetadata } from '@conduit-mcp/core';

/**
 * Serves the server's Streamable HTTP endpoint (and the legacy HTTP+SSE one) on the app's HTTP server: ahead of the
 * Express router by default, or as Express routes. Does nothing in an application context without HTTP (stdio).
 * Mounts on module init: Express routes must come before the 404 handler Nest adds ahead of the bootstrap hooks.
 */
@Injectable()
export class McpHttpBinding implements OnModuleInit, OnApplicationShutdown {
  private readonly logger = new Logger('McpHttp');
  private unmount: (() => void) | undefined;
  private releasePaths: (() => void) | undefined;
  private unguard: (() => void) | undefined;

  constructor(
    @Inject(MCP_MODULE_OPTIONS) private readonly options: McpModuleOptions,
    private readonly server: McpServerHost,
    @Inject(EventStore) private readonly eventStore: EventStore,
    @Inject(McpAuthenticator) private readonly authenticator: McpAuthenticator | null,
    @Inject(MCP_RESOLVED_AUTH) private readonly resolvedAuth: ResolvedAuth | null,
    @Optional() private readonly adapterHost?: HttpAdapterHost,
  ) {}

  onModuleInit(): void {
    const adapter = this.adapterHost?.httpAdapter;
    if (this.options.http === false || !adapter) return;
    // The authenticator of `auth` when there is one, else `http.authenticator`'s (the provider chose).
    const http = { ...resolveHttpOptions(this.options.http), authenticator: this.authenticator ?? undefined };
    const streamable = new StreamableHttpHandler(this.server, http, this.eventStore);
    const legacy = http.legacySse ? new LegacySseHandler(this.server, http) : undefined;
    const auth = this.resolvedAuth;
    const registry = this.server.registry;
    const metadata =
      auth &&
      new ProtectedResourceHandler(
        () => (registry.isLoaded ? withDeclaredScopes(auth.metadata, registry) : undefined),
        http.allowedHosts,
      );
    const paths = [
      http.path,
      ...(http.legacySse ? [http.legacySse.ssePath, http.legacySse.messagePath] : []),
      ...(auth?.metadataPaths ?? []),
    ];
    const mount = chooseMount(http.mount, adapter.getType(), this.options.name);
    this.releasePaths = claimHttpPaths(adapter.getHttpServer() as object, this.options.name, paths);
    // The app's server, whichever the mount: MCP requests on a framework route reach it too.
    if (http.connections)
      this.unguard = guardHttpServer(adapter.getHttpServer() as Server, http.connections, http.retryAfterSeconds);
    const serve = (req: IncomingMessage, res: ServerResponse, body?: unknown) => {
      const path = (req.url ?? '/').split('?', 1)[0];
      if (path === http.path) void streamable.handle(req, res, body);
      else if (metadata && auth.metadataPaths.includes(path)) metadata.handle(req, res);
      else void legacy?.handle(req, res, body);
    };
    if (mount === 'express') {
      mountOnExpress(adapter.getInstance<ExpressAppLike>(), paths, serve);
    } else if (mount === 'fastify') {
      mountOnFastify(adapter.getInstance<FastifyInstanceLike>(), paths, serve);
    } else {
      const httpServer = adapter.getHttpServer() as Server;
      this.unmount = mountOnHttpServer(httpServer, (req, res) => {
        const path = (req.url ?? '/').split('?', 1)[0];
        if (!paths.includes(path)) return false;
        serve(req, res);
        return true;
      });
    }
    this.server.markListening('streamable-http', true);
    if (legacy) this.server.markListening('sse', true);
    this.logger.log(
      `MCP server "${this.options.name}" at ${http.path} (${http.sessionMode}, mounted ${MOUNTED[mount]})`,
    );
  }

  onApplicationShutdown(): void {
    this.unmount?.();
    this.unguard?.();
    this.releasePaths?.();
    this.server.markListening('streamable-http', false);
    this.server.markListening('sse', false);
  }
}

const MOUNTED = { server: 'on the HTTP server', express: 'as Express routes', fastify: 'as Fastify routes' } as const;

// Without `auth.scopesSupported`, the metadata lists every scope `@McpScopes` declares on the server.
function withDeclaredScopes(metadata: ProtectedResourceMetadata, registry: McpRegistry): ProtectedResourceMetadata {
  if (metadata.scopes_supported) return metadata;
  const entries = [
    ...registry.listTools(),
    ...registry.listResources(),
    ...registry.listTemplates(),
    ...registry.listPrompts(),
  ];
  const declared = [...new Set(entries.flatMap((entry) => entry.scopes))];
  return declared.length ? { ...metadata, scopes_supported: declared } : metadata;
}
