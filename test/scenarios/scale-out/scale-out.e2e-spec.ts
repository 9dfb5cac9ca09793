import { TASKS_EXTENSION_ID } from '@conduit-mcp/core';
import { ScenarioProcess } from '../scenario.process';
import { PrivateRedis } from '../../support/redis-server.process';
import {
  legacyHeaders,
  legacyPost,
  openGetStream,
  openLegacySession,
  streamToolCall,
  until,
} from '../../support/legacy-http.client';
import { connectModernHttp } from '../../support/modern-client';
import { RoundRobinBalancer, parseAccessLine, startRoundRobin, stopAllBalancers } from './nginx.balancer';
import { SCALE_OUT_APP } from './instance.app';

// Issue 17's proof: two instances of one MCP server as separate processes (test/scenarios/scale-out/instance.app.ts
// on ts-node), sharing a Redis, behind a real round-robin load balancer (nginx, unprivileged: scripts/fetch-nginx.sh).
// The Redis is this suite's own redis-server (so that it may be stopped); requests go through the balancer unless a
// case needs a given instance, which it then names by its own URL.

jest.setTimeout(120_000);

interface Instance {
  name: string;
  port: number;
  url: string;
  process: ScenarioProcess;
}

async function startInstance(name: string, redis: PrivateRedis, port?: number): Promise<Instance> {
  const env: Record<string, string> = {
    REDIS_URL: redis.url,
    KEY_PREFIX: 'scale-out:',
    INSTANCE: name,
    ...(port ? { PORT: String(port) } : {}),
  };
  const child = new ScenarioProcess(SCALE_OUT_APP, { env });
  await child.waitFor(() => /listening \d+/.test(child.stderr), `instance ${name} to listen`, 90_000);
  const listening = Number(/listening (\d+)/.exec(child.stderr)![1]);
  return { name, port: listening, url: `http://127.0.0.1:${listening}/mcp`, process: child };
}

const MODERN_META = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientInfo': { name: 'scale-out', version: '1' },
  'io.modelcontextprotocol/clientCapabilities': { extensions: { [TASKS_EXTENSION_ID]: {} } },
};

/** A modern-era request with the tasks extension declared; its JSON answer. */
async function modernRpc(url: string, method: string, params: Record<string, unknown>, name: string) {
  const response = await fetch(url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': '2026-07-28',
      'mcp-method': method,
      'mcp-name': name,
    },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params: { ...params, _meta: MODERN_META } }),
  });
  return (await response.json()) as { result?: Record<string, any>; error?: unknown };
}

/** Polls `tasks/get` on `url` until the task is `status` (bounded). */
async function taskReaches(url: string, taskId: string, status: string): Promise<Record<string, any>> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const { result } = await modernRpc(url, 'tasks/get', { taskId }, taskId);
    if (result?.status === status) return result;
    if (Date.now() > deadline) throw new Error(`task ${taskId} never reached ${status}: ${JSON.stringify(result)}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

const whoami = (id: number) => ({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'whoami' } });
const textOf = (json: any): string => json.result.content[0].text;

describe('scale-out: two instances on one Redis behind nginx round robin', () => {
  let redis: PrivateRedis;
  let a: Instance;
  let b: Instance;
  let worker: ScenarioProcess;
  let balancer: RoundRobinBalancer;
  let lb: string;

  beforeAll(async () => {
    redis = await PrivateRedis.start();
    worker = new ScenarioProcess(SCALE_OUT_APP, {
      args: ['--worker'],
      env: { REDIS_URL: redis.url, KEY_PREFIX: 'scale-out:', INSTANCE: 'W' },
    });
    [a, b] = await Promise.all([startInstance('A', redis), startInstance('B', redis)]);
    await worker.waitFor(() => worker.stderr.includes('worker ready'), 'the task worker', 90_000);
    balancer = await startRoundRobin([`http://127.0.0.1:${a.port}`, `http://127.0.0.1:${b.port}`]);
    lb = `${balancer.url}/mcp`;
  });

  afterAll(async () => {
    await stopAllBalancers();
    await Promise.all([a?.process.stop(), b?.process.stop(), worker?.stop()]);
    await redis?.close();
  });

  it('a session opened through the balancer is served by both instances, request after request', async () => {
    const sessionId = await openLegacySession(lb);
    const served: string[] = [];
    for (let id = 1; id <= 4; id++) {
      const answer = await legacyPost(lb, whoami(id), sessionId);
      expect(answer.status).toBe(200);
      expect(answer.json.result.structuredContent.session).toBe(sessionId);
      served.push(answer.json.result.structuredContent.instance);
    }
    expect(new Set(served)).toEqual(new Set(['A', 'B']));
    const upstreams = new Set(balancer.accessLog().flatMap((line) => parseAccessLine(line).upstreams));
    expect(upstreams.size).toBeGreaterThanOrEqual(2);
  });

  it('DELETE on B ends the session on A: its GET stream on A ends, and the session is gone everywhere', async () => {
    const sessionId = await openLegacySession(a.url);
    const get = await openGetStream(a.url, sessionId);
    expect(get.status).toBe(200);
    let ended = false;
    void get.stream!.done.then(() => (ended = true));
    const deleted = await fetch(b.url, { method: 'DELETE', headers: legacyHeaders(sessionId) });
    expect(deleted.status).toBe(204);
    await until('the GET stream on A to end', () => (ended ? true : undefined));
    for (const url of [a.url, b.url, lb]) expect((await legacyPost(url, whoami(9), sessionId)).status).toBe(404);
  });

  it('an elicitation answer sent to B reaches the tool waiting on A', async () => {
    const sessionId = await openLegacySession(a.url, { elicitation: { form: {} } });
    const call = await streamToolCall(a.url, sessionId, 3, 'ask');
    const question = await until('the elicitation request', () =>
      call.events.find((event) => event.message.method === 'elicitation/create'),
    );
    const answer = { action: 'accept', content: { word: 'balanced' } };
    const answered = await legacyPost(b.url, { jsonrpc: '2.0', id: question.message.id, result: answer }, sessionId);
    expect(answered.status).toBe(202);
    await call.done;
    expect(textOf(call.events.find((event) => event.message.id === 3)!.message)).toBe('A got balanced');
  });

  it('a notifications/cancelled sent to B aborts the handler running on A', async () => {
    const sessionId = await openLegacySession(a.url);
    const call = await streamToolCall(a.url, sessionId, 4, 'wait');
    await a.process.waitFor(() => a.process.stderr.includes('waiting 4'), 'the handler to run on A', 10_000);
    const cancel = { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 4, reason: 'moved on' } };
    expect((await legacyPost(b.url, cancel, sessionId)).status).toBe(202);
    await a.process.waitFor(() => a.process.stderr.includes('cancelled 4: moved on'), 'the abort on A', 10_000);
    await call.cancel();
  });

  it('a subscriptions/listen stream on A sees a list change and a resource update made on B', async () => {
    const listener = await connectModernHttp(a.url);
    const actor = await connectModernHttp(b.url);
    try {
      const listen = await listener.client.listen({ toolsListChanged: true, resourceSubscriptions: ['notes://index'] });
      try {
        expect(await actor.client.callTool({ name: 'toggle_extra', arguments: { enabled: false } })).toMatchObject({
          content: [{ text: 'B extra off' }],
        });
        expect(await actor.client.callTool({ name: 'touch_notes', arguments: {} })).toMatchObject({
          content: [{ text: 'B touched notes://index' }],
        });
        await until(
          'the list change on A',
          () => listener.recorder.notifications('notifications/tools/list_changed')[0],
        );
        const updated = await until(
          'the resource update on A',
          () => listener.recorder.notifications('notifications/resources/updated')[0],
        );
        expect(updated.params).toMatchObject({ uri: 'notes://index' });
      } finally {
        listen.close();
      }
    } finally {
      await actor.client.callTool({ name: 'toggle_extra', arguments: { enabled: true } });
      await Promise.all([listener.close(), actor.close()]);
    }
  });

  it('a durable task created on A is polled on B and completes on the worker, also when A is gone', async () => {
    const created = await modernRpc(a.url, 'tools/call', { name: 'report', arguments: { ms: 1_500 } }, 'report');
    expect(created.result).toMatchObject({ resultType: 'task', status: 'working' });
    const taskId = created.result!.taskId as string;
    await a.process.stop(); // the instance that took the call dies; the task lives on in the worker
    const done = await taskReaches(b.url, taskId, 'completed');
    expect(done.result).toEqual({ content: [{ type: 'text', text: 'report by W' }] });

    a = await startInstance('A', redis, a.port);
    const again = await modernRpc(a.url, 'tools/call', { name: 'report', arguments: { ms: 10 } }, 'report');
    const second = await taskReaches(b.url, again.result!.taskId as string, 'completed');
    expect(second.result).toEqual({ content: [{ type: 'text', text: 'report by W' }] });
    expect(worker.stderr.match(/report running/g)).toHaveLength(2);
  });

  it('A killed in the middle of a stream: the client resumes on B with Last-Event-ID and loses no event', async () => {
    const sessionId = await openLegacySession(a.url);
    const call = await streamToolCall(a.url, sessionId, 5, 'count', { steps: 40, gapMs: 25 });
    const logged = () => call.events.filter((event) => event.message.method === 'notifications/message');
    await until('a few events', () => (logged().length >= 5 ? true : undefined));
    const lastSeen = logged()[2]; // the client lost the connection after its third event
    await a.process.stop();
    await call.done;
    const seen = logged();
    expect(seen.length).toBeLessThan(40); // A died before it finished

    const resumed = await openGetStream(b.url, sessionId, lastSeen.id);
    expect(resumed.status).toBe(200);
    await until('the replay', () => (resumed.stream!.events.length >= seen.length - 3 ? true : undefined));
    resumed.stream!.cancel();
    const replayed = resumed.stream!.events.map((event) => event.id);
    // Every event A recorded after the cursor, in order, from the one right after it: nothing skipped.
    expect(replayed.slice(0, seen.length - 3)).toEqual(seen.slice(3).map((event) => event.id));
    const steps = resumed.stream!.events.map((event) => event.message.params?.data);
    expect(steps.slice(0, 2)).toEqual(['step 4', 'step 5']);

    // A comes back on its port, and serves the same sessions.
    a = await startInstance('A', redis, a.port);
    const again = await legacyPost(a.url, whoami(6), sessionId);
    expect(again.json.result.structuredContent).toEqual({ instance: 'A', session: sessionId });
  });

  it('Redis stopped: the modern era still serves, legacy answers 503; Redis back: service resumes', async () => {
    const modern = await connectModernHttp(lb);
    try {
      await redis.stop();
      // Two of each in a row: round robin gives one of each pair to either instance.
      const servedBy = new Set<string>();
      for (let n = 0; n < 2; n++) {
        const answer = await modern.client.callTool({ name: 'whoami', arguments: {} });
        servedBy.add((answer.structuredContent as { instance: string }).instance);
      }
      for (let n = 0; n < 2; n++) {
        const refused = await fetch(lb, {
          method: 'POST',
          headers: legacyHeaders(),
          body: JSON.stringify({
            jsonrpc: '2.0',
            id: 1,
            method: 'initialize',
            params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'late', version: '1' } },
          }),
        });
        expect(refused.status).toBe(503);
        expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
      }
      expect(servedBy).toEqual(new Set(['A', 'B']));
      const health = await fetch(`http://127.0.0.1:${b.port}/health`);
      expect(health.status).toBe(503);

      await redis.start();
      const deadline = Date.now() + 15_000;
      let reopened: string | undefined;
      while (!reopened && Date.now() < deadline) {
        reopened = await openLegacySession(lb).catch(() => undefined);
        if (!reopened) await new Promise((resolve) => setTimeout(resolve, 200));
      }
      expect(reopened).toBeDefined();
      expect((await legacyPost(lb, whoami(7), reopened)).status).toBe(200);
      expect((await fetch(`http://127.0.0.1:${b.port}/health`)).status).toBe(200);
    } finally {
      await modern.close();
    }
  });
});
