import { errorResponse, invalidRequest, McpError } from '../jsonrpc/jsonrpc.errors';
import { parseJson } from '../jsonrpc/jsonrpc.classifier';
import { JsonRpcMessage } from '../jsonrpc/jsonrpc.types';
import { LineFramer, LineFramerOptions, serializeLine } from './stdio-line.framer';
import { Transport } from './transport.interface';
import { coalesceWrites } from './write-coalescing';

/** Options of a {@link StdioTransport}. */
export interface StdioTransportOptions extends LineFramerOptions {
  /**
   * Stop reading the input while the output holds more than its `highWaterMark` unsent (its `write()` returned false),
   * until it drains: a peer that sends requests but does not read the answers cannot make this side buffer them
   * without end. For a server's transport; never on both ends of one pair of pipes (each would wait for the other).
   * Default false.
   */
  pauseInputWhileOutputFull?: boolean;
}

/**
 * Newline-delimited JSON-RPC over a pair of streams (a child's stdio, or `process.stdin`/`stdout`).
 *
 * A line that is not JSON is answered with a `-32700` error response and reported to `onerror`;
 * a line over `maxLineBytes` is answered with `-32600` "Message too large". Neither reaches
 * `onmessage`. `close()` stops reading but leaves the output open; the input's end closes the transport.
 *
 * The output's `write` is taken when the transport is made: replacing it later (McpStdio sends stray
 * `process.stdout.write` calls to stderr) does not divert the protocol.
 */
export class StdioTransport implements Transport {
  onmessage?: (message: unknown) => void;
  onerror?: (error: Error) => void;
  onclose?: () => void;

  private readonly framer: LineFramer;
  private readonly outputWrite: NodeJS.WritableStream['write'];
  private readonly pauseWhileFull: boolean;
  private started = false;
  private closed = false;
  private inputHeld = false;
  // One wait for 'drain' shared by every write that found the output full.
  private drained: Promise<void> | undefined;

  constructor(
    private readonly input: NodeJS.ReadableStream,
    private readonly output: NodeJS.WritableStream,
    options: StdioTransportOptions = {},
  ) {
    this.framer = new LineFramer(options);
    this.outputWrite = output.write;
    this.pauseWhileFull = options.pauseInputWhileOutputFull === true;
  }

  /** Starts reading the input. */
  start(): void {
    if (this.started) throw new Error('StdioTransport already started');
    this.started = true;
    this.input.on('data', this.onData);
    this.input.on('end', this.onEnd);
    this.input.on('error', this.onStreamError);
    // Without a listener, an EPIPE from a departed peer would crash the process.
    this.output.on('error', this.onStreamError);
  }

  /** Writes one message line; resolves once the output accepts more (after 'drain' when it is full). */
  send(message: JsonRpcMessage): Promise<void> {
    if (this.closed) return Promise.reject(new Error('Transport is closed'));
    let line: string;
    try {
      line = serializeLine(message);
    } catch (error) {
      return Promise.reject(error instanceof Error ? error : new Error(String(error))); // a cycle, a BigInt
    }
    return this.write(line);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.input.off('data', this.onData);
    this.input.off('end', this.onEnd);
    this.input.off('error', this.onStreamError);
    this.input.pause();
    this.onclose?.();
  }

  private readonly onData = (chunk: Buffer | string): void => {
    for (const frame of this.framer.push(typeof chunk === 'string' ? Buffer.from(chunk) : chunk)) {
      if (this.closed) return;
      if ('overflow' in frame) {
        this.refuse(invalidRequest('Message too large'));
        continue;
      }
      const parsed = parseJson(frame.line);
      if (parsed.ok) this.onmessage?.(parsed.value);
      else this.refuse(parsed.error);
    }
  };

  private readonly onEnd = (): void => void this.close();

  private readonly onStreamError = (error: Error): void => this.onerror?.(error);

  private refuse(error: McpError): void {
    this.onerror?.(error);
    this.write(serializeLine(errorResponse(null, error))).catch(this.onStreamError);
  }

  // A failed write surfaces as the output's 'error' event (reported to onerror); a full output is waited out.
  private write(text: string): Promise<void> {
    coalesceWrites(this.output);
    if (this.outputWrite.call(this.output, text)) return Promise.resolve();
    if (this.pauseWhileFull) this.holdInput();
    return (this.drained ??= waitForDrain(this.output).finally(() => (this.drained = undefined)));
  }

  // Reading resumes on 'drain'; an output that fails or closes never drains, and its input stays paused.
  private holdInput(): void {
    if (this.inputHeld || this.closed) return;
    this.inputHeld = true;
    this.input.pause();
    this.output.once('drain', this.releaseInput);
  }

  private readonly releaseInput = (): void => {
    this.inputHeld = false;
    if (!this.closed) this.input.resume();
  };
}

function waitForDrain(stream: NodeJS.WritableStream): Promise<void> {
  return new Promise((resolve, reject) => {
    const settle = (error?: Error) => {
      stream.off('drain', onDrain);
      stream.off('error', onError);
      stream.off('close', onClose);
      if (error) reject(error);
      else resolve();
    };
    const onDrain = () => settle();
    const onError = (error: Error) => settle(error);
    const onClose = () => settle(new Error('Output closed before draining'));
    stream.on('drain', onDrain);
    stream.on('error', onError);
    stream.on('close', onClose);
  });
}
