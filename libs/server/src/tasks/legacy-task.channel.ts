import { Injectable } from '@nestjs/common';
import { ErrorCode, McpError } from '@conduit-mcp/core';
import type { McpInvocation } from '../context/mcp-invocation';
import { McpSession } from '../session/mcp-session';
import { MessageSink } from '../session/message-sink.interface';

/**
 * Where a running 2025-11-25 task's messages go, the request that created it being answered already: the stream of
 * a `tasks/result` request waiting on the task (the specification's way: the client calls it once the task needs
 * input), else the session's own channel (its GET stream, stdout). A question asked while neither is open waits
 * for one, within the question's timeout. The task's progress follows the same way.
 */
export class LegacyTaskChannel {
  private readonly streams: MessageSink[] = [];
  private readonly wakers = new Set<() => void>();

  constructor(
    private readonly session: McpSession,
    private readonly invocation: McpInvocation,
  ) {}

  /** Where a message would go now; undefined when nothing is open. */
  get sink(): MessageSink | undefined {
    const stream = this.stream;
    if (stream) return stream;
    const outbound = this.session.outbound;
    return outbound && !outbound.closed ? outbound : undefined;
  }

  /** A `tasks/result` request's stream takes the task's messages until the returned function is called. */
  attach(stream: MessageSink): () => void {
    this.streams.push(stream);
    this.invocation.repoint(this.stream);
    for (const wake of [...this.wakers]) wake();
    return () => {
      const index = this.streams.indexOf(stream);
      if (index >= 0) this.streams.splice(index, 1);
      this.invocation.repoint(this.stream);
    };
  }

  /** Resolves where `method` can be sent, once somewhere is open; rejects on `signal` or after `timeoutMs`. */
  ready(method: string, signal: AbortSignal, timeoutMs: number): Promise<MessageSink> {
    const now = this.sink;
    if (now) return Promise.resolve(now);
    if (signal.aborted) return Promise.reject(signal.reason as Error);
    return new Promise((resolve, reject) => {
      const done = () => {
        clearTimeout(timer);
        this.wakers.delete(wake);
        stopWatching();
        signal.removeEventListener('abort', onAbort);
      };
      const wake = () => {
        const sink = this.sink;
        if (!sink) return;
        done();
        resolve(sink);
      };
      const onAbort = () => (done(), reject(signal.reason as Error));
      const timer = setTimeout(() => {
        done();
        reject(
          new McpError(
            ErrorCode.ServerError,
            `No stream to send ${method} on: the client neither waits on tasks/result nor keeps a stream open`,
          ),
        );
      }, timeoutMs);
      this.wakers.add(wake);
      const stopWatching = this.session.onOutbound(wake);
      signal.addEventListener('abort', onAbort, { once: true });
    });
  }

  // The latest `tasks/result` stream still open.
  private get stream(): MessageSink | undefined {
    for (let index = this.streams.length - 1; index >= 0; index--)
      if (!this.streams[index].closed) return this.streams[index];
    return undefined;
  }
}

/** The channels of the 2025-11-25 tasks running on this instance, by task id (a `tasks/result` request attaches). */
@Injectable()
export class LegacyTaskChannels {
  private readonly channels = new Map<string, LegacyTaskChannel>();

  open(taskId: string, channel: LegacyTaskChannel): () => void {
    this.channels.set(taskId, channel);
    return () => {
      if (this.channels.get(taskId) === channel) this.channels.delete(taskId);
    };
  }

  get(taskId: string): LegacyTaskChannel | undefined {
    return this.channels.get(taskId);
  }
}
