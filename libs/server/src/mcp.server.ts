import { BeforeApplicationShutdown, Inject, Injectable, OnApplicationBootstrap } from '@nestjs/common';
import { ClassifiedMessage, JsonRpcResponse, Transport } from '@conduit-mcp/core';
import { DispatchOrigin } from './dispatch/dispatch-origin.interface';
import { TransportKind } from './dispatch/transport-facts.interface';
import { McpDispatcher } from './dispatch/mcp.dispatcher';
import { McpEndpoint } from './dispatch/mcp-endpoint.interface';
import { McpExplorer } from './discovery/mcp.explorer';
import { McpModuleOptions } from './interfaces/mcp-module-options.interface';
import { MCP_MODULE_OPTIONS } from './mcp.module-definition';
import { McpRegistry } from './registry/mcp.registry';
import { McpListKind } from './registry/registry.types';
import { McpSession } from './session/mcp-session';
import { McpSubscriptionHub } from './events/subscription.hub';
import { InMemorySessionStore, SessionStore } from './session/session.store';
import { connectTransport } from './transports/transport.connection';

/**
 * One MCP server of the app. Inject it (or `@InjectMcpServer(name)` when the app has several) to notify clients of
 * resource updates, show or hide tools, prompts and resources at run time, or serve a transport of your own.
 */
@Injectable()
export class McpServer implements McpEndpoint, OnApplicationBootstrap, BeforeApplicationShutdown {
  readonly sessions: SessionStore;
  private readonly transports = new Set<string>();

  constructor(
    @Inject(MCP_MODULE_OPTIONS) readonly options: McpModuleOptions,
    readonly registry: McpRegistry,
    private readonly explorer: McpExplorer,
    private readonly dispatcher: McpDispatcher,
    private readonly subscriptions: McpSubscriptionHub,
  ) {
    const http = options.http || {};
    this.sessions = new InMemorySessionStore(http.maxSessions, http.sessionIdleMs);
  }

  get name(): string {
    return this.options.name;
  }

  /** Transports serving this server right now (`streamable-http`, `sse`, `stdio`, `memory`). */
  get activeTransports(): string[] {
    return [...this.transports];
  }

  onApplicationBootstrap(): void {
    this.explorer.explore(this.name, this.registry);
    this.registry.onListChanged((kind) => {
      this.broadcastListChanged(kind);
      this.subscriptions.listChanged(kind);
    });
  }

  /** Ends every session while the HTTP server still runs: its close waits for open streams (a session's GET). */
  beforeApplicationShutdown(): void {
    this.sessions.clear();
    this.transports.clear();
  }

  handle(message: unknown, origin: DispatchOrigin): Promise<JsonRpcResponse | undefined> {
    return this.dispatcher.handle(message, origin);
  }

  handleClassified(message: ClassifiedMessage, origin: DispatchOrigin): Promise<JsonRpcResponse | undefined> {
    return this.dispatcher.handleClassified(message, origin);
  }

  /** Serves a message transport (stdio, an in-memory pair) as one session until either side closes it. */
  connect(transport: Transport, kind: TransportKind = 'memory'): McpSession {
    const session = connectTransport(this, transport, kind);
    this.transports.add(kind);
    session.onClose(() => this.transports.delete(kind));
    return session;
  }

  /** Records that a transport listens for this server (health reporting). */
  markListening(kind: TransportKind, listening: boolean): void {
    if (listening) this.transports.add(kind);
    else this.transports.delete(kind);
  }

  /**
   * Sends `notifications/resources/updated` to every legacy session subscribed to `uri` and every modern
   * `subscriptions/listen` stream watching it. Returns how many were sent.
   */
  notifyResourceUpdated(uri: string): number {
    let sent = this.subscriptions.resourceUpdated(uri);
    for (const session of this.sessions.values()) {
      if (session.subscribedTo(uri) && session.notify('notifications/resources/updated', { uri })) sent++;
    }
    return sent;
  }

  /** Shows or hides a tool at run time; clients are told the list changed. False when there is no such tool. */
  setToolEnabled(name: string, enabled: boolean): boolean {
    return this.registry.setEnabled('tool', name, enabled);
  }

  /** Shows or hides a prompt at run time; clients are told the list changed. */
  setPromptEnabled(name: string, enabled: boolean): boolean {
    return this.registry.setEnabled('prompt', name, enabled);
  }

  /** Shows or hides a resource (by URI, or a template by its URI template); clients are told the list changed. */
  setResourceEnabled(uriOrTemplate: string, enabled: boolean): boolean {
    return this.registry.setEnabled('resource', uriOrTemplate, enabled);
  }

  private broadcastListChanged(kind: McpListKind): void {
    for (const session of this.sessions.values()) {
      if (session.revision) session.notify(`notifications/${kind}/list_changed`);
    }
  }
}
