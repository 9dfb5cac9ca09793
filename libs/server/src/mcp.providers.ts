import { Provider } from '@nestjs/common';
import { McpAuthenticator } from './auth/mcp-authenticator.interface';
import { McpBearerAuthenticator } from './auth/bearer.authenticator';
import { MCP_RESOLVED_AUTH, ResolvedAuth, resolveAuthOptions, tokenVerifierOf } from './auth/auth-options.resolve';
import { InMemoryEventBus } from './events/in-memory-event.bus';
import { McpEventBus } from './events/mcp-event.bus';
import { McpModuleOptions } from './interfaces/mcp-module-options.interface';
import { MCP_MODULE_OPTIONS } from './mcp.module-definition';
import { InMemorySessionStore } from './session/in-memory-session.store';
import { LiveSessions } from './session/live-sessions';
import { SessionStore } from './session/session.store';
import { InMemoryTaskStore } from './tasks/in-memory-task.store';
import { TaskStore } from './tasks/task.store';
import { McpTaskQueue } from './tasks/task.queue';
import { MCP_TASK_LIMITS } from './tasks/mcp-task.runner';
import { EventStore, InMemoryEventStore } from './transports/http/event.store';

const httpOf = (options: McpModuleOptions) => options.http || {};

/**
 * The server's state, chosen from the module options (as nestjs/throttler chooses its storage): the stores and the
 * bus the options name, else bounded in-memory defaults. `McpServer` builds none of them itself.
 */
export const MCP_STATE_PROVIDERS: Provider[] = [
  {
    provide: SessionStore,
    useFactory: (options: McpModuleOptions): SessionStore =>
      options.sessionStore ??
      new InMemorySessionStore({ maxSessions: httpOf(options).maxSessions, idleMs: httpOf(options).sessionIdleMs }),
    inject: [MCP_MODULE_OPTIONS],
  },
  {
    provide: McpEventBus,
    useFactory: (options: McpModuleOptions): McpEventBus => options.eventBus ?? new InMemoryEventBus(),
    inject: [MCP_MODULE_OPTIONS],
  },
  {
    provide: TaskStore,
    useFactory: (options: McpModuleOptions): TaskStore => options.taskStore ?? new InMemoryTaskStore(),
    inject: [MCP_MODULE_OPTIONS],
  },
  {
    provide: McpTaskQueue,
    useFactory: (options: McpModuleOptions): McpTaskQueue | null => options.taskQueue ?? null,
    inject: [MCP_MODULE_OPTIONS],
  },
  {
    provide: MCP_TASK_LIMITS,
    useFactory: (options: McpModuleOptions) => options.tasks ?? {},
    inject: [MCP_MODULE_OPTIONS],
  },
  {
    provide: EventStore,
    useFactory: (options: McpModuleOptions): EventStore => options.eventStore ?? new InMemoryEventStore(),
    inject: [MCP_MODULE_OPTIONS],
  },
  {
    provide: MCP_RESOLVED_AUTH,
    useFactory: (options: McpModuleOptions): ResolvedAuth | null => {
      if (!options.auth) return null;
      if (httpOf(options).authenticator)
        throw new Error(`MCP server "${options.name}": auth and http.authenticator exclude each other: keep one`);
      if (options.http === false)
        throw new Error(`MCP server "${options.name}": auth protects the HTTP transports, and http is false`);
      return resolveAuthOptions(options.name, options.auth);
    },
    inject: [MCP_MODULE_OPTIONS],
  },
  {
    provide: McpAuthenticator,
    useFactory: (options: McpModuleOptions, auth: ResolvedAuth | null): McpAuthenticator | null =>
      auth ? new McpBearerAuthenticator(auth, tokenVerifierOf(auth.options)) : (httpOf(options).authenticator ?? null),
    inject: [MCP_MODULE_OPTIONS, MCP_RESOLVED_AUTH],
  },
  {
    provide: LiveSessions,
    useFactory: (options: McpModuleOptions, store: SessionStore) =>
      new LiveSessions({
        server: options.name,
        maxSessions: httpOf(options).maxSessions,
        maxSessionsPerOwner: httpOf(options).maxSessionsPerPrincipal,
        idleMs: httpOf(options).sessionIdleMs,
        store,
        sharedStore: options.sessionStore !== undefined,
      }),
    inject: [MCP_MODULE_OPTIONS, SessionStore],
  },
];
