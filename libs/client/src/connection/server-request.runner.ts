import { ErrorCode, JsonRpcId, JsonRpcRequest, JsonRpcResponse, errorResponse, sanitizeText } from '@conduit-mcp/core';
import { McpInputMethod, McpInputRefusal } from './input-responder.interface';

const INPUT_METHODS = new Set<string>(['sampling/createMessage', 'elicitation/create', 'roots/list']);

/** How long a handler may take to answer a server's question: 60 s, and 5 minutes for an elicitation (a person). */
export const DEFAULT_HANDLER_TIMEOUT_MS = 60_000;
export const DEFAULT_ELICITATION_TIMEOUT_MS = 5 * 60_000;
/** At most this many legacy server requests run at once. */
export const DEFAULT_MAX_SERVER_REQUESTS = 8;

/** The time a handler of `method` has to answer, from the options (`handlerTimeoutMs`, `elicitationTimeoutMs`). */
export function handlerTimeoutMs(
  method: string,
  options: { handlerTimeoutMs?: number; elicitationTimeoutMs?: number },
): number {
  return method === 'elicitation/create'
    ? (options.elicitationTimeoutMs ?? DEFAULT_ELICITATION_TIMEOUT_MS)
    : (options.handlerTimeoutMs ?? DEFAULT_HANDLER_TIMEOUT_MS);
}

/** Runs one accepted server request to its answer; the runner bounds, times and cancels it. */
export type ServerRequestWork = (
  method: McpInputMethod,
  params: Record<string, unknown>,
  signal: AbortSignal,
) => Promise<Record<string, unknown>>;

/**
 * Legacy era: the server's requests run apart from the connection, at most `maxConcurrent` at once (over it the
 * server gets -32000 busy), each killed after its timeout (-32603), a crash answered -32603 without internals, and
 * aborted by the server's `notifications/cancelled` (then nothing is sent back).
 */
export class ServerRequestRunner {
  private readonly running = new Map<JsonRpcId, AbortController>();

  constructor(
    private readonly maxConcurrent: number,
    private readonly timeoutFor: (method: string) => number,
    private readonly reply: (response: JsonRpcResponse) => void,
  ) {}

  get size(): number {
    return this.running.size;
  }

  run(request: JsonRpcRequest, work: ServerRequestWork): void {
    if (!INPUT_METHODS.has(request.method) && request.method !== 'ping') {
      return this.reply(
        errorResponse(request.id, {
          code: ErrorCode.MethodNotFound,
          message: `Method not found: ${sanitizeText(request.method, 64)}`,
        }),
      );
    }
    if (request.method === 'ping') return this.reply({ jsonrpc: '2.0', id: request.id, result: {} });
    if (this.running.size >= this.maxConcurrent || this.running.has(request.id)) {
      return this.reply(
        errorResponse(request.id, {
          code: ErrorCode.ServerError,
          message: 'Client busy: too many requests in progress',
        }),
      );
    }
    const controller = new AbortController();
    this.running.set(request.id, controller);
    const timeoutMs = this.timeoutFor(request.method);
    const timer = setTimeout(
      () => controller.abort(new McpInputRefusal(ErrorCode.InternalError, `Handler timed out after ${timeoutMs} ms`)),
      timeoutMs,
    );
    const aborted = new Promise<never>((_, reject) =>
      controller.signal.addEventListener('abort', () => reject(controller.signal.reason), { once: true }),
    );
    Promise.race([work(request.method as McpInputMethod, request.params ?? {}, controller.signal), aborted])
      .then(
        (result) => ({ jsonrpc: '2.0' as const, id: request.id, result }),
        (error: unknown) => errorResponse(request.id, toRpcError(error)),
      )
      .then((response) => {
        clearTimeout(timer);
        // A request the server cancelled gets no answer.
        if (this.running.get(request.id) === controller) {
          this.running.delete(request.id);
          this.reply(response);
        }
      });
  }

  /** The server cancelled one of its requests. */
  cancel(id: JsonRpcId): void {
    const controller = this.running.get(id);
    if (!controller) return;
    this.running.delete(id);
    controller.abort(new McpInputRefusal(ErrorCode.InternalError, 'Cancelled by the server'));
  }

  cancelAll(): void {
    for (const id of [...this.running.keys()]) this.cancel(id);
  }
}

function toRpcError(error: unknown): { code: number; message: string } {
  if (error instanceof McpInputRefusal) return { code: error.code, message: sanitizeText(error.message, 512) };
  return { code: ErrorCode.InternalError, message: 'Internal error' };
}
