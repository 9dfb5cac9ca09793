import { WireSchema } from './wire-schema';

const PROTOCOL_VERSION = 'io.modelcontextprotocol/protocolVersion';
const SUBSCRIPTION_ID = 'io.modelcontextprotocol/subscriptionId';
export const MODERN_REVISION = '2026-07-28';
const KNOWN_REVISIONS = new Set([MODERN_REVISION, '2025-11-25', '2025-06-18', '2025-03-26', '2024-11-05']);
/** Change notifications: in 2026-07-28 they exist only on a `subscriptions/listen` stream. */
const SUBSCRIPTION_NOTIFICATIONS = new Set([
  'notifications/subscriptions/acknowledged',
  'notifications/resources/updated',
  'notifications/resources/list_changed',
  'notifications/tools/list_changed',
  'notifications/prompts/list_changed',
]);

type Message = Record<string, unknown>;
type Id = string | number;

interface MessageTransport {
  send(message: unknown, options?: unknown): Promise<void>;
  onmessage?: (message: unknown, extra?: unknown) => void;
}

/** One message the server sent, the revision it was checked against, and what that revision's schema says about it. */
export interface EraRecordedMessage {
  message: Message;
  revision: string;
  problems: string[];
}

/**
 * Taps a client transport (official SDK 1.x or 2.x, any transport) before the client connects, and checks every
 * message the server sends against the schema of the revision in force for it:
 *
 * - a response, against the revision of the request it answers: the `_meta` protocol version the request carried
 *   (modern era), or what `initialize` negotiated (legacy era);
 * - a notification, against the revision of the last request sent.
 *
 * For 2026-07-28 it also checks what the schema cannot see: change notifications carry the id of a
 * `subscriptions/listen` request the client sent (the acknowledgement first), progress names a token the client sent,
 * and the server cancels nothing but subscriptions.
 */
export class EraWireRecorder {
  readonly received: EraRecordedMessage[] = [];
  /** Every message the client sent, in order. */
  readonly sent: Message[] = [];
  /** The revision of the last request sent (or negotiated by `initialize`). */
  revision: string;
  private readonly requests = new Map<Id, { method: string; revision: string | undefined }>();
  private readonly progressTokens = new Set<unknown>();
  private readonly acknowledged = new Set<Id>();

  constructor(initialRevision = MODERN_REVISION) {
    this.revision = initialRevision;
  }

  tap<T extends object>(target: T): T {
    const transport = target as unknown as MessageTransport;
    const send = transport.send.bind(transport);
    transport.send = (message: unknown, options?: unknown) => {
      this.onSend(message as Message);
      return send(message, options);
    };
    let inner: MessageTransport['onmessage'];
    Object.defineProperty(transport, 'onmessage', {
      configurable: true,
      get: () =>
        inner
          ? (message: unknown, extra?: unknown) => {
              this.record(message as Message);
              inner!(message, extra);
            }
          : undefined,
      set: (handler: MessageTransport['onmessage']) => {
        inner = handler;
      },
    });
    return target;
  }

  /** Every problem found so far, one line each; an empty list means every message was valid. */
  problems(): string[] {
    return this.received.flatMap(({ message, revision, problems }) =>
      problems.map((problem) => `[${revision}] ${JSON.stringify(message).slice(0, 300)}: ${problem}`),
    );
  }

  /** Notifications received with this method. */
  notifications(method: string): Message[] {
    return this.received.map((r) => r.message).filter((m) => m.method === method && !('id' in m));
  }

  /** Requests the server sent (there must be none in 2026-07-28). */
  serverRequests(): Message[] {
    return this.received.map((r) => r.message).filter((m) => 'method' in m && 'id' in m);
  }

  /** Requests the client sent with this method, in order. */
  requestsSent(method: string): Message[] {
    return this.sent.filter((m) => m.method === method && 'id' in m);
  }

  /** Notifications the client sent with this method, in order. */
  notificationsSent(method: string): Message[] {
    return this.sent.filter((m) => m.method === method && !('id' in m));
  }

  /** The response to the request with this id, if it arrived. */
  responseTo(id: unknown): Message | undefined {
    return this.received.map((r) => r.message).find((m) => m.id === id && !('method' in m));
  }

  /** The responses to the requests with this method, in the order the requests were sent. */
  responsesTo(method: string): Message[] {
    return this.requestsSent(method)
      .map((request) => this.responseTo(request.id))
      .filter((response): response is Message => response !== undefined);
  }

  private onSend(message: Message): void {
    this.sent.push(message);
    const params = (message.params ?? {}) as Message;
    const meta = (params._meta ?? {}) as Message;
    const version = typeof meta[PROTOCOL_VERSION] === 'string' ? (meta[PROTOCOL_VERSION] as string) : undefined;
    if (typeof message.method === 'string' && (typeof message.id === 'string' || typeof message.id === 'number')) {
      this.requests.set(message.id, { method: message.method, revision: version });
      if (version) this.revision = version;
      if (meta.progressToken !== undefined) this.progressTokens.add(meta.progressToken);
    }
  }

  private record(message: Message): void {
    const isResponse = 'id' in message && !('method' in message);
    const request = isResponse ? this.requests.get(message.id as Id) : undefined;
    if (request?.method === 'initialize' && 'result' in message) {
      this.revision = String((message.result as Message).protocolVersion);
    }
    const revision = schemaRevision((isResponse && request?.revision) || this.revision);
    const problems = WireSchema.for(revision).check(message, request?.method);
    if (revision === MODERN_REVISION) problems.push(...this.modernProblems(message, request?.method));
    this.received.push({ message, revision, problems });
  }

  private modernProblems(message: Message, requestMethod: string | undefined): string[] {
    if ('id' in message) {
      if (!('method' in message) && requestMethod === undefined)
        return [`response to an id the client never used: ${JSON.stringify(message.id)}`];
      return [];
    }
    const method = String(message.method);
    const params = (message.params ?? {}) as Message;
    const subscription = ((params._meta ?? {}) as Message)[SUBSCRIPTION_ID] as Id | undefined;
    if (method === 'notifications/progress') {
      return this.progressTokens.has(params.progressToken)
        ? []
        : [`progress for a token the client never sent: ${JSON.stringify(params.progressToken)}`];
    }
    if (method === 'notifications/cancelled') {
      return this.requests.get(params.requestId as Id)?.method === 'subscriptions/listen'
        ? []
        : ['server-sent notifications/cancelled must reference a subscriptions/listen request'];
    }
    if (!SUBSCRIPTION_NOTIFICATIONS.has(method)) return [];
    if (subscription === undefined || this.requests.get(subscription)?.method !== 'subscriptions/listen') {
      return [`${method} without the id of a subscriptions/listen request in _meta["${SUBSCRIPTION_ID}"]`];
    }
    if (method === 'notifications/subscriptions/acknowledged') {
      if (this.acknowledged.has(subscription))
        return [`subscription ${JSON.stringify(subscription)} acknowledged twice`];
      this.acknowledged.add(subscription);
      return [];
    }
    return this.acknowledged.has(subscription)
      ? []
      : [`${method} on subscription ${JSON.stringify(subscription)} before its acknowledgement`];
  }
}

/** The schema a revision is checked against; a revision nobody defines (a client asking for 1900-01-01) gets the modern one. */
function schemaRevision(revision: string): string {
  return KNOWN_REVISIONS.has(revision) ? revision : MODERN_REVISION;
}
