import { Injectable } from '@nestjs/common';
import { ErrorCode, McpError } from '@conduit-mcp/core';
import { McpSession } from '../session/mcp-session';

/** The abort reason of requests still running when the shutdown grace period ends. */
export const SHUTDOWN_REASON = 'Server shutting down';

/**
 * The requests in flight on one server, on every transport, for its graceful shutdown: the sessions that have some
 * (a modern-era or stateless HTTP request has a session of its own, listed nowhere else), and whether the server
 * still takes new requests. The dispatcher keeps it; `McpGracefulShutdown` drains it.
 */
@Injectable()
export class InFlightRequests {
  /** Set when the server starts shutting down: from then on, new requests are refused. */
  closing = false;
  // Sessions with a request in flight, each at its `inFlightSlot`; removal moves the last one into the gap.
  private readonly sessions: McpSession[] = [];

  /** Number of sessions with a request that has not returned yet (cancelled ones included). */
  get size(): number {
    return this.sessions.length;
  }

  /** Whether a request runs that was neither cancelled nor ended with its session. */
  get busy(): boolean {
    for (const session of this.sessions) if (session.inFlightCount > 0 && !session.closed) return true;
    return false;
  }

  /** A request of `session` began (after `session.beginRequest`). */
  began(session: McpSession): void {
    if (session.inFlightSlot >= 0) return;
    session.inFlightSlot = this.sessions.length;
    this.sessions.push(session);
  }

  /** A request of `session` returned (after `session.endRequest`). */
  ended(session: McpSession): void {
    const slot = session.inFlightSlot;
    if (session.inFlightCount > 0 || slot < 0) return;
    const last = this.sessions.pop() as McpSession;
    if (last !== session) {
      this.sessions[slot] = last;
      last.inFlightSlot = slot;
    }
    session.inFlightSlot = -1;
  }

  /** Cancels every request still in flight: its session ends, its `ctx.signal` aborts with {@link SHUTDOWN_REASON}. */
  cancelAll(): void {
    for (const session of [...this.sessions]) session.close(SHUTDOWN_REASON);
  }
}

/** The refusal of a request the server cannot serve because it is shutting down (HTTP: 503). */
export function shuttingDown(): McpError {
  return new McpError(ErrorCode.ServerError, 'Server is shutting down', undefined, { http: { status: 503 } });
}
