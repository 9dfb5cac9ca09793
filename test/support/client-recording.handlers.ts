import { Injectable } from '@nestjs/common';
import {
  McpClientNotificationContext,
  McpInputContext,
  OnElicitation,
  OnLog,
  OnNotification,
  OnRoots,
  OnSampling,
} from '@conduit-mcp/client';

/** A handler context as recorded: everything but the abort signal. */
export type RecordedContext = Omit<McpInputContext, 'signal'> & { aborted?: boolean };

export interface RecordedQuestion {
  params: Record<string, unknown>;
  ctx: RecordedContext;
}

export interface RecordedNotification {
  method: string;
  params: Record<string, unknown>;
  ctx: Record<string, unknown>;
}

export interface RecordedLog {
  level: string;
  params: Record<string, unknown>;
  ctx: Record<string, unknown>;
}

type Answer<T> = T | ((params: Record<string, unknown>, ctx: McpInputContext) => T | Promise<T>);

/**
 * Every client handler kind, decorated as an app would (`@OnSampling`, `@OnElicitation({ modes: ['form', 'url'] })`,
 * `@OnRoots`, `@OnNotification()`, `@OnLog()`): each records what it was given and answers from a field the test sets.
 */
@Injectable()
export class RecordingHandlers {
  samplings: RecordedQuestion[] = [];
  elicitations: RecordedQuestion[] = [];
  rootsAsked: RecordedContext[] = [];
  notifications: RecordedNotification[] = [];
  logs: RecordedLog[] = [];

  /** Default: an assistant text echoing the first message (`sampled: …`) from model `e2e-model`. */
  samplingAnswer: Answer<Record<string, unknown>> = DEFAULT_SAMPLING_ANSWER;
  /** Default: decline. */
  elicitationAnswer: Answer<Record<string, unknown>> = { action: 'decline' };
  roots: Array<{ uri: string; name?: string }> = [{ uri: 'file:///work/project', name: 'project' }];

  @OnSampling()
  async sample(params: Record<string, unknown>, ctx: McpInputContext) {
    this.samplings.push({ params, ctx: record(ctx) });
    return answer(this.samplingAnswer, params, ctx);
  }

  @OnElicitation({ modes: ['form', 'url'] })
  async elicit(params: Record<string, unknown>, ctx: McpInputContext) {
    this.elicitations.push({ params, ctx: record(ctx) });
    return answer(this.elicitationAnswer, params, ctx);
  }

  @OnRoots()
  listRoots(_params: Record<string, never>, ctx: McpInputContext) {
    this.rootsAsked.push(record(ctx));
    return { roots: this.roots };
  }

  @OnNotification()
  notified(params: Record<string, unknown>, ctx: McpClientNotificationContext) {
    this.notifications.push({ method: ctx.method, params, ctx: { ...ctx } });
  }

  @OnLog()
  logged(params: Record<string, unknown>, ctx: McpClientNotificationContext) {
    this.logs.push({ level: params.level as string, params, ctx: { ...ctx } });
  }

  /** Notifications of one method (`@OnNotification()` also sees log entries). */
  notificationsOf(method: string): RecordedNotification[] {
    return this.notifications.filter((notification) => notification.method === method);
  }

  /** Forgets what was recorded and restores the default answers (roots are kept). */
  reset(): void {
    this.samplingAnswer = DEFAULT_SAMPLING_ANSWER;
    this.elicitationAnswer = { action: 'decline' };
    this.samplings = [];
    this.elicitations = [];
    this.rootsAsked = [];
    this.notifications = [];
    this.logs = [];
  }
}

const DEFAULT_SAMPLING_ANSWER = (params: Record<string, unknown>) => ({
  role: 'assistant',
  content: { type: 'text', text: `sampled: ${firstText(params)}` },
  model: 'e2e-model',
  stopReason: 'endTurn',
});

function record(ctx: McpInputContext): RecordedContext {
  const { signal, ...rest } = ctx;
  return { ...rest, aborted: signal?.aborted };
}

async function answer<T>(source: Answer<T>, params: Record<string, unknown>, ctx: McpInputContext): Promise<T> {
  return typeof source === 'function'
    ? (source as (p: Record<string, unknown>, c: McpInputContext) => T | Promise<T>)(params, ctx)
    : source;
}

/** The text of the first message of a sampling request ('' when it is not text). */
export function firstText(params: Record<string, unknown>): string {
  const [first] = (params.messages ?? []) as Array<{
    content?: { type?: string; text?: string } | Array<{ type?: string; text?: string }>;
  }>;
  const content = Array.isArray(first?.content) ? first.content[0] : first?.content;
  return content?.type === 'text' ? (content.text ?? '') : '';
}
