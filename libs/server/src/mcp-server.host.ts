import { Inject, Injectable, OnApplicationBootstrap } from '@nestjs/common';
import { McpBusEvent, McpEventBus } from './events/mcp-event.bus';
import { ClassifiedMessage, JsonRpcResponse, Transport } from '@conduit-mcp/core';
import { DispatchOrigin } from './dispatch/dispatch-origin.interface';
import { TransportKind } from './dispatch/transport-facts.interface';
import { McpDispatcher } from './dispatch/mcp.dispatcher';
import { InFlightRequests } from './dispatch/in-flight.requests';
import { McpEndpoint } from './dispatch/mcp-endpoint.interface';
import { McpExplorer } from './discovery/mcp.explorer';
import { McpModuleOptions } from './interfaces/mcp-module-options.interface';
import { MCP_MODULE_OPTIONS } from './mcp.module-definition';
import { McpRegistry } from './registry/mcp.registry';
import { McpSession, sharedNotification } from './session/mcp-session';
import { BroadcastFanOut } from './events/broadcast.fanout';
import { McpSubscriptionHub } from './events/subscription.hub';
import { LiveSessions } from './session/live-sessions';
import { MessageSink } from './session/message-sink.interface';
import { SessionRelaySink } from './events/session-relay.sink';
import { connectTransport } from './transports/transport.connection';
import type { McpAuthInfo } from './auth/mcp-auth-info.interface';
import { SessionStore } from './session/session.store';
import { EventStore } from './transports/http/event.store';
import { TaskStore } from './tasks/task.store';
import { StateHealth, probeState } from './health/state.probe';

/**
 * The insides of one MCP server, for its transports and health: the endpoint they serve (options, live sessions, the
 * dispatcher), the transports listening, its start (discovery, the event bus) and its shutdown. Not public: users
 * have the `McpServer` facade.
 */
@Injectable()
export class McpServerHost implements McpEndpoint, OnApplicationBootstrap {
  private readonly transports = new Set<string>();
  private unsubscribe: (() => void) | undefined;
  // The `session-changed` events this instance published: its own copy is up to date, it does not reload it.
  private readonly ownChanges = new WeakSet<McpBusEvent>();
  // Broadcasts reach the live sessions in slices, so that thousands of them do not stall the requests in between.
  private readonly fanOut = new BroadcastFanOut();

  constructor(
    @Inject(MCP_MODULE_OPTIONS) readonly options: McpModuleOptions,
    readonly registry: McpRegistry,
    private readonly explorer: McpExplorer,
    private readonly dispatcher: McpDispatcher,
    private readonly subscriptions: McpSubscriptionHub,
    readonly sessions: LiveSessions,
    @Inject(McpEventBus) private readonly bus: McpEventBus,
    private readonly inFlight: InFlightRequests,
    @Inject(SessionStore) private readonly sessionStore: SessionStore,
    @Inject(EventStore) private readonly eventStore: EventStore,
    @Inject(TaskStore) private readonly taskStore: TaskStore,
  ) {}

  get name(): string {
    return this.options.name;
  }

  /** Whether the server is shutting down (it takes no new requests). */
  get stopping(): boolean {
    return this.inFlight.closing;
  }

  /** Transports serving this server right now (`streamable-http`, `sse`, `stdio`, `memory`). */
  get activeTransports(): string[] {
    return [...this.transports];
  }

  onApplicationBootstrap(): void {
    this.explorer.explore(this.name, this.registry);
    // Broadcasts go through the bus, so that every instance's sessions and streams hear them.
    const unsubscribe = [
      this.bus.subscribe((event) => this.onBusEvent(event)),
      // A session ended or changed here is ended or reloaded wherever else it is live.
      this.sessions.onEnded(({ id }) =>
        this.publishQuietly({ type: 'session-deleted', server: this.name, sessionId: id }),
      ),
      this.sessions.onChanged(({ id }) => {
        const event: McpBusEvent = { type: 'session-changed', server: this.name, sessionId: id };
        this.ownChanges.add(event);
        this.publishQuietly(event);
      }),
    ];
    this.unsubscribe = () => unsubscribe.forEach((stop) => stop());
    this.registry.onListChanged((kind) => this.publishQuietly({ type: 'list-changed', server: this.name, list: kind }));
  }

  /**
   * Ends every session while the HTTP server still runs (its close waits for open streams, a session's GET). Called by
   * `McpGracefulShutdown` once the requests in flight are done or cancelled.
   */
  stop(): void {
    this.unsubscribe?.();
    this.sessions.clear();
    this.transports.clear();
  }

  handle(message: unknown, origin: DispatchOrigin): Promise<JsonRpcResponse | undefined> {
    return this.dispatcher.handle(message, origin);
  }

  handleClassified(message: ClassifiedMessage, origin: DispatchOrigin): Promise<JsonRpcResponse | undefined> {
    return this.dispatcher.handleClassified(message, origin);
  }

  relayTo(sessionId: string): MessageSink {
    return new SessionRelaySink(this.bus, this.name, sessionId);
  }

  /**
   * Serves a message transport (stdio, an in-memory pair) as one session until either side closes it; `auth` is who
   * its messages speak for (the testing client's), none otherwise.
   */
  connect(transport: Transport, kind: TransportKind = 'memory', auth?: McpAuthInfo): McpSession {
    const session = connectTransport(this, transport, kind, undefined, auth);
    this.transports.add(kind);
    session.onClose(() => this.transports.delete(kind));
    return session;
  }

  /**
   * The health of the stores and the bus that report one (`health()`), each bounded in time; undefined when none
   * does (the in-memory defaults).
   */
  stateHealth(): Promise<StateHealth | undefined> {
    return probeState({
      sessionStore: this.sessionStore,
      eventStore: this.eventStore,
      eventBus: this.bus,
      taskStore: this.taskStore,
    });
  }

  /** Records that a transport listens for this server (health reporting). */
  markListening(kind: TransportKind, listening: boolean): void {
    if (listening) this.transports.add(kind);
    else this.transports.delete(kind);
  }

  /**
   * Ends every session of `principal` live on this instance, as a `DELETE` does: its streams close, its record leaves
   * the session store. The number ended.
   */
  endSessionsOf(principal: string): number {
    let ended = 0;
    for (const session of [...this.sessions.values()]) {
      if (session.principal === principal && this.sessions.delete(session.id)) ended++;
    }
    return ended;
  }

  /** Publishes an event for every instance of the server (list changes, resource updates, sessions ended). */
  publish(event: McpBusEvent): Promise<void> {
    return this.bus.publish(event);
  }

  // Resolves once the bus took the event (or refused it): never rejects, a bus that cannot publish logs it itself.
  private publishQuietly(event: McpBusEvent): Promise<void> {
    return this.bus.publish(event).catch(() => undefined);
  }

  // What this instance does with the bus's events for its server: tells its own sessions and streams.
  private onBusEvent(event: McpBusEvent): void {
    if (event.server !== this.name) return;
    switch (event.type) {
      case 'list-changed': {
        const notification = sharedNotification(`notifications/${event.list}/list_changed`);
        this.fanOut.add(this.sessions.values(), (session) => !!session.revision && session.notifyShared(notification));
        this.subscriptions.listChanged(event.list);
        return;
      }
      case 'resource-updated': {
        const { uri } = event;
        const notification = sharedNotification('notifications/resources/updated', { uri });
        this.fanOut.add(
          this.sessions.values(),
          (session) => session.subscribedTo(uri) && session.notifyShared(notification),
        );
        this.subscriptions.resourceUpdated(uri);
        return;
      }
      case 'sessions-ended':
        // Not published again: every instance hears the one event (the publisher too, whose sessions are ended already).
        this.endSessionsOf(event.principal);
        return;
      case 'session-deleted':
        // Ended for good elsewhere (its record and streams are gone): this instance's copy only closes.
        this.sessions.closeLocal(event.sessionId);
        return;
      case 'session-changed':
        if (!this.ownChanges.has(event)) void this.sessions.reload(event.sessionId);
        return;
      case 'task-cancel':
      case 'task-answers':
      case 'task-status':
        return; // the task runner's (McpTaskRunner)
    }
    // Addressed to one session: only the instance that holds it live does anything.
    const session = this.sessions.peek(event.sessionId);
    if (!session) return;
    if (event.type === 'client-response') session.resolveResponse(event.response);
    else if (event.type === 'cancelled')
      session.cancelRequest(event.requestId, event.reason ?? 'Cancelled by the client');
    else session.outbound?.send(event.message);
  }
}
