import { BeforeApplicationShutdown, Inject, Injectable, Logger, Optional } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import type { Server } from 'node:http';
import { InFlightRequests } from '../dispatch/in-flight.requests';
import { McpModuleOptions } from '../interfaces/mcp-module-options.interface';
import { DEFAULT_SHUTDOWN_GRACE_MS } from '../mcp.constants';
import { MCP_MODULE_OPTIONS } from '../mcp.module-definition';
import { McpServerHost } from '../mcp-server.host';

/** Once the grace period is over, how long cancelled requests get to answer before the connections are closed. */
export const SHUTDOWN_SETTLE_MS = 1_000;

const POLL_MS = 20;

// Several MCP servers of one app share its HTTP server: its connections are closed once the last of them is drained.
const drainsOf = new WeakMap<Server, number>();

/**
 * Ends one MCP server within a bounded time, whatever is in flight (`shutdownGraceMs`). Runs before Nest closes the
 * HTTP server, whose close would otherwise wait for every open stream and running request without end:
 *
 * 1. new requests are refused (-32000, 503 over HTTP), and the HTTP server accepts no new connection (Node closes its
 *    idle keep-alive connections too);
 * 2. the requests in flight get the grace period to finish (their sessions' streams stay open for their answers);
 * 3. those still running are cancelled (their `ctx.signal` aborts), every session ends (with its GET or HTTP+SSE
 *    stream), and the app's other HTTP requests get the rest of the grace period, cancelled requests at least
 *    {@link SHUTDOWN_SETTLE_MS} to answer;
 * 4. the HTTP server's remaining connections are closed.
 */
@Injectable()
export class McpGracefulShutdown implements BeforeApplicationShutdown {
  private readonly logger = new Logger('McpShutdown');
  private drained: Promise<void> | undefined;

  constructor(
    @Inject(MCP_MODULE_OPTIONS) private readonly options: McpModuleOptions,
    private readonly host: McpServerHost,
    private readonly inFlight: InFlightRequests,
    @Optional() private readonly adapterHost?: HttpAdapterHost,
  ) {}

  // Once, however many times the app is closed (a signal and the end of stdin may both close it).
  beforeApplicationShutdown(): Promise<void> {
    return (this.drained ??= this.drain());
  }

  private async drain(): Promise<void> {
    const graceMs = this.options.shutdownGraceMs ?? DEFAULT_SHUTDOWN_GRACE_MS;
    const deadline = Date.now() + graceMs;
    this.inFlight.closing = true;
    const server = this.httpServer();
    if (server) {
      drainsOf.set(server, (drainsOf.get(server) ?? 0) + 1);
      // Nest closes it again later, which is harmless.
      if (server.listening) server.close();
    }
    const name = this.options.name;
    if (this.inFlight.busy) {
      this.logger.log(`MCP server "${name}" shutting down: requests in flight get up to ${graceMs} ms to finish`);
      await until(() => !this.inFlight.busy, deadline);
      if (this.inFlight.busy) this.logger.warn(`MCP server "${name}": cancelling the requests still in flight`);
    }
    this.inFlight.cancelAll();
    this.host.stop();
    const settled = Date.now() + SHUTDOWN_SETTLE_MS;
    const answered = () => this.inFlight.size === 0 || Date.now() >= settled;
    if (!server) return until(answered, settled);
    await until(
      async () => {
        // A connection becomes idle when its last response is sent; the client would otherwise keep it open.
        server.closeIdleConnections();
        return answered() && (await connectionsOf(server)) === 0;
      },
      Math.max(deadline, settled),
    );
    const draining = drainsOf.get(server)! - 1;
    if (draining > 0) return void drainsOf.set(server, draining);
    drainsOf.delete(server);
    server.closeAllConnections();
  }

  // The app's HTTP server, when this MCP server is served over HTTP.
  private httpServer(): Server | undefined {
    const adapter = this.adapterHost?.httpAdapter;
    if (this.options.http === false || !adapter) return undefined;
    const server = adapter.getHttpServer() as Server | undefined;
    return typeof server?.closeAllConnections === 'function' ? server : undefined;
  }
}

// Resolves once `done` holds, or at `deadline`.
async function until(done: () => boolean | Promise<boolean>, deadline: number): Promise<void> {
  while (!(await done()) && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, Math.min(POLL_MS, Math.max(1, deadline - Date.now()))));
  }
}

function connectionsOf(server: Server): Promise<number> {
  return new Promise((resolve) => server.getConnections((error, count) => resolve(error ? 0 : count)));
}
