import { McpHandlerScope } from './client-handler.decorators';

/** A discovered handler method, wrapped to run through Nest's guards, interceptors and filters. */
export interface ClientHandler extends McpHandlerScope {
  /** `Class.method`, for start-up errors and logs. */
  source: string;
  invoke: (...args: unknown[]) => Promise<unknown>;
}

export type QuestionKind = 'sampling' | 'elicitation' | 'roots';

/** The client's handlers by kind; each question kind has at most one handler per server. */
export class ClientHandlers {
  readonly sampling: ClientHandler[] = [];
  readonly elicitation: Array<ClientHandler & { modes: Array<'form' | 'url'> }> = [];
  readonly roots: ClientHandler[] = [];
  readonly notifications: Array<ClientHandler & { method?: string }> = [];
  readonly log: ClientHandler[] = [];

  /** The handler of a question kind for a server, if any. */
  question<K extends QuestionKind>(kind: K, serverId: string): this[K][number] | undefined {
    return (this[kind] as Array<this[K][number]>).find((handler) => serves(handler, serverId));
  }

  notificationHandlers(method: string, serverId: string): ClientHandler[] {
    return this.notifications.filter(
      (handler) => serves(handler, serverId) && (handler.method === undefined || handler.method === method),
    );
  }

  logHandlers(serverId: string): ClientHandler[] {
    return this.log.filter((handler) => serves(handler, serverId));
  }

  /** Refuses two handlers of one question kind for the same server: which one answers would be a guess. */
  checkUnique(serverIds: string[]): void {
    for (const kind of ['sampling', 'elicitation', 'roots'] as const) {
      for (const id of serverIds) {
        const handlers = (this[kind] as ClientHandler[]).filter((handler) => serves(handler, id));
        if (handlers.length > 1) {
          throw new Error(
            `${handlers[1].source}: a second ${kind} handler for server "${id}" (first: ${handlers[0].source})`,
          );
        }
      }
    }
  }
}

function serves(handler: McpHandlerScope, serverId: string): boolean {
  return !handler.servers || handler.servers.includes(serverId);
}
