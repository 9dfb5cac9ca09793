import { channel } from 'node:diagnostics_channel';
import { McpClientError } from '../errors/mcp-client.error';
import { McpInputRefusal } from '../connection/input-responder.interface';
import { MCP_CLIENT_CHANNELS, McpClientInputEvent, McpClientRequestEvent } from './mcp-client.channels';

const requests = channel(MCP_CLIENT_CHANNELS.request);
const inputs = channel(MCP_CLIENT_CHANNELS.input);

/** Who a request or question belongs to. */
export type ClientEventScope = Pick<McpClientRequestEvent, 'client' | 'server' | 'method' | 'era'>;

/** Whether anyone listens for request events: when nobody does, nothing is timed or wrapped. */
export function requestsObserved(): boolean {
  return requests.hasSubscribers;
}

/** `settled`, reporting its outcome on `conduit-mcp:client:request` (call only while `requestsObserved()`). */
export function reportRequest<T>(settled: Promise<T>, scope: ClientEventScope, started: number): Promise<T> {
  const publish = (status: 'ok' | 'error', error?: unknown) => {
    if (!requests.hasSubscribers) return;
    const event: McpClientRequestEvent = { ...scope, status, durationMs: performance.now() - started };
    if (error instanceof McpClientError) {
      event.errorKind = error.kind;
      if (error.code !== undefined) event.errorCode = error.code;
    }
    requests.publish(event);
  };
  return settled.then(
    (value) => (publish('ok'), value),
    (error: unknown) => {
      publish('error', error);
      throw error;
    },
  );
}

/**
 * Answers a question through `answer`, reporting it on `conduit-mcp:client:input` when someone listens: `ok`,
 * `refused` (an `McpInputRefusal`, with its code), `cancelled` (its signal aborted), else `error`.
 */
export function reportInput<T>(
  scope: ClientEventScope,
  signal: AbortSignal | undefined,
  answer: () => Promise<T>,
): Promise<T> {
  return inputs.hasSubscribers ? observedInput(scope, signal, answer) : answer();
}

async function observedInput<T>(
  scope: ClientEventScope,
  signal: AbortSignal | undefined,
  answer: () => Promise<T>,
): Promise<T> {
  const started = performance.now();
  const publish = (status: McpClientInputEvent['status'], errorCode?: number) => {
    const event: McpClientInputEvent = { ...scope, status, durationMs: performance.now() - started };
    if (errorCode !== undefined) event.errorCode = errorCode;
    inputs.publish(event);
  };
  try {
    const value = await answer();
    publish('ok');
    return value;
  } catch (error) {
    if (signal?.aborted) publish('cancelled');
    else if (error instanceof McpInputRefusal) publish('refused', error.code);
    else
      publish(
        'error',
        typeof (error as { code?: unknown })?.code === 'number' ? (error as { code: number }).code : undefined,
      );
    throw error;
  }
}
