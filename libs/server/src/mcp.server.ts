import { Injectable } from '@nestjs/common';
import { Transport } from '@conduit-mcp/core';
import { McpServerHost } from './mcp-server.host';
import { McpCatalog } from './registry/registry.types';

/**
 * One MCP server of the app. Inject it (or `@InjectMcpServer(name)` when the app has several) to notify clients of
 * resource updates, show or hide tools, prompts and resources at run time, read what it serves, or serve a message
 * transport of your own.
 */
@Injectable()
export class McpServer {
  constructor(private readonly host: McpServerHost) {}

  /** The server's name (`McpModule.forRoot({ name })`). */
  get name(): string {
    return this.host.name;
  }

  /**
   * Sends `notifications/resources/updated` to every legacy session subscribed to `uri` and every modern
   * `subscriptions/listen` stream watching it, on every instance of the server (through the event bus). Resolves
   * once the bus took the event.
   *
   * @example
   * await this.server.notifyResourceUpdated('notes://index');
   */
  notifyResourceUpdated(uri: string): Promise<void> {
    return this.host.publish({ type: 'resource-updated', server: this.host.name, uri });
  }

  /**
   * Shows or hides a tool at run time; clients are told the list changed. False when there is no such tool.
   *
   * @example
   * this.server.setToolEnabled('admin_reset', false);
   */
  setToolEnabled(name: string, enabled: boolean): boolean {
    return this.host.registry.setEnabled('tool', name, enabled);
  }

  /** Shows or hides a prompt at run time; clients are told the list changed. False when there is no such prompt. */
  setPromptEnabled(name: string, enabled: boolean): boolean {
    return this.host.registry.setEnabled('prompt', name, enabled);
  }

  /**
   * Shows or hides a resource (by URI, or a template by its URI template); clients are told the list changed.
   * False when there is no such resource.
   */
  setResourceEnabled(uriOrTemplate: string, enabled: boolean): boolean {
    return this.host.registry.setEnabled('resource', uriOrTemplate, enabled);
  }

  /**
   * What the server serves: every tool, resource, resource template and prompt, with its definition (as listed to
   * clients) and whether it is enabled. A read-only copy.
   *
   * @example
   * const hidden = this.server.catalog().tools.filter((tool) => !tool.enabled).map((tool) => tool.definition.name);
   */
  catalog(): McpCatalog {
    return this.host.registry.catalog();
  }

  /**
   * Ends every session of `principal` (the key sessions are bound to: the token's subject, else `client:<clientId>`)
   * on every instance of the server: on this one at once, as a client's `DELETE` would (their streams close, an open
   * `GET` or HTTP+SSE stream ends, requests in flight on them are cancelled, their records leave the session store),
   * and on the others through the event bus. The caller's next request with one of those session ids gets 404, so a
   * client has to initialize again (with a token that is still accepted). Resolves with how many sessions this
   * instance ended, once the bus took the event; rejects if the bus could not take it (this instance's sessions are
   * ended already). Tasks are not cancelled: they belong to the principal, not to a session, and stay readable with
   * its next session. Modern-era requests have no session and are not affected. A session record that no instance
   * holds live stays in the store until it idles out.
   *
   * @example
   * // The user signed out or was blocked: their open sessions stop now, on every instance.
   * const ended = await this.server.endSessionsOf(user.sub);
   */
  async endSessionsOf(principal: string): Promise<number> {
    // Anonymous sessions have no principal: a missing argument must not name them all.
    if (typeof principal !== 'string') throw new TypeError('endSessionsOf: principal must be a string');
    const ended = this.host.endSessionsOf(principal);
    await this.host.publish({ type: 'sessions-ended', server: this.host.name, principal });
    return ended;
  }

  /**
   * Serves a message transport (an in-memory pair, a socket of your own) as one session until either side closes
   * it; resolves nothing, returns a function that closes the session.
   *
   * @example
   * const [client, server] = createInMemoryTransportPair();
   * const close = this.mcp.connect(server);
   */
  connect(transport: Transport): () => void {
    const session = this.host.connect(transport, 'memory');
    return () => session.close();
  }
}

/** The host behind a server facade, for the server's own parts (health, stdio). */
export function hostOf(server: McpServer): McpServerHost {
  return server['host'];
}
