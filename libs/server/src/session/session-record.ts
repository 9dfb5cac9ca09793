import { ClientCapabilities, Implementation, LegacyRevision, LoggingLevel } from '@conduit-mcp/core';
import type { TransportKind } from '../dispatch/transport-facts.interface';

/**
 * What a legacy-era session is, as data: what `initialize` negotiated and what the client set since. Serializable
 * (JSON), so that any instance can serve the session; the live parts (streams, in-flight requests) stay with the
 * instance that holds them.
 */
export interface SessionRecord {
  id: string;
  /** The negotiated protocol revision (undefined until `initialize` succeeded). */
  revision: LegacyRevision | undefined;
  clientInfo: Implementation | undefined;
  clientCapabilities: ClientCapabilities;
  /** Set by `logging/setLevel`; undefined sends every level. */
  logLevel: LoggingLevel | undefined;
  /** Resource URIs the client subscribed to (`resources/subscribe`). */
  subscriptions: string[];
  /** `notifications/initialized` arrived. */
  initialized: boolean;
  /** Who opened the session (its principal: subject, else `client:<clientId>`), if known: no one else can use it. */
  principal?: string;
  /** The transport the session was opened on; its messages are taken on that transport only. */
  transport?: TransportKind;
  /** Milliseconds since the epoch. */
  createdAt: number;
}

/** The fields of a record a session changes after it was created. */
export type SessionRecordChanges = Partial<Omit<SessionRecord, 'id' | 'createdAt'>>;
