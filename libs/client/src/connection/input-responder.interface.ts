import { IntrinsicException } from '@nestjs/common';
import { ClientCapabilities, Era, JsonRpcId } from '@conduit-mcp/core';

/** The questions a server may ask a client. */
export type McpInputMethod = 'sampling/createMessage' | 'elicitation/create' | 'roots/list';

/** The client capability each kind of question needs (a server asks only what the client declared). */
export const INPUT_CAPABILITY: Readonly<Record<McpInputMethod, keyof ClientCapabilities>> = {
  'sampling/createMessage': 'sampling',
  'elicitation/create': 'elicitation',
  'roots/list': 'roots',
};

/** What every client handler learns about the server that spoke: the second argument of each handler. */
export interface McpServerMessageContext {
  /** The client's name. */
  client: string;
  /** The operator-assigned id of the server. */
  serverId: string;
  era: Era;
}

/** The context of `@OnNotification` and `@OnLog` handlers: `(params, ctx)`. */
export interface McpClientNotificationContext extends McpServerMessageContext {
  /** The notification's method (`notifications/message` for a log entry). */
  method: string;
}

/** The context of `@OnSampling`, `@OnElicitation` and `@OnRoots` handlers: `(params, ctx)`. */
export interface McpInputContext extends McpServerMessageContext {
  /** The question asked. */
  method: McpInputMethod;
  /** The related call's `assigns`, or the client's when the question is tied to no call. */
  assigns: Record<string, unknown>;
  /** The in-flight request this question belongs to (legacy), else undefined (always for modern input). */
  relatedRequestId: JsonRpcId | undefined;
  /** Aborted when the server cancels the question (legacy) or the call is cancelled. */
  signal: AbortSignal;
  /** Calls of ours in flight to this server when the question arrived (sampling refuses idle legacy requests). */
  callsInFlight: number;
  /** The server's origin as the transport knows it (HTTP), for URL elicitation checks. */
  origin: string | undefined;
  /** Elicitation: the mode and, for URL mode, what is known of the URL; the form's fields. */
  mode?: 'form' | 'url';
  url?: string;
  host?: string;
  idn?: boolean;
  originMismatch?: boolean;
  fields?: Record<string, { sensitiveSuspected: boolean }>;
}

/** Where a question arrives, as the connection knows it: the handler's context before the checks add to it. */
export type McpInputSituation = Omit<McpInputContext, 'method' | keyof ElicitationContextFields>;

type ElicitationContextFields = Pick<McpInputContext, 'mode' | 'url' | 'host' | 'idn' | 'originMismatch' | 'fields'>;

/**
 * A refusal of a question, sent as the JSON-RPC error (legacy) or failing the call (modern). An expected outcome, not a
 * fault: Nest's exception handling does not log it.
 */
export class McpInputRefusal extends IntrinsicException {
  constructor(
    readonly code: number,
    message: string,
  ) {
    super(message);
    this.name = 'McpInputRefusal';
  }
}

/**
 * Answers a server's questions and takes its notifications: implemented by the client module from the decorated
 * handlers and the safety guards.
 */
export interface McpInputResponder {
  /** The capabilities to declare to a server: exactly what has a handler. */
  capabilities(serverId: string): ClientCapabilities;
  /** Answers one question; throws McpInputRefusal (or anything: a crash) to refuse. */
  answer(
    method: McpInputMethod,
    params: Record<string, unknown>,
    situation: McpInputSituation,
  ): Promise<Record<string, unknown>>;
  /** A notification the connection does not consume itself (already ordered, limited and sanitized as needed). */
  notify(method: string, params: Record<string, unknown>, ctx: McpServerMessageContext): void;
}
