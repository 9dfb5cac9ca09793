/// <reference types="jest" />
// A Jest suite to run in a spec: it uses the Jest globals of the run that imports it.
import { McpBusEvent, McpEventBus } from '../events/mcp-event.bus';

/**
 * An implementation under test: its name, and a factory of two buses connected as two instances of one server
 * would be (for a one-process bus, the same bus twice), with a function that closes them.
 */
export type EventBusCase = [
  name: string,
  connect: () => Promise<{ here: McpEventBus; there: McpEventBus; close?: () => Promise<void> }>,
];

const WAIT_MS = 2_000;

async function until(condition: () => boolean): Promise<void> {
  const deadline = Date.now() + WAIT_MS;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('the event did not arrive in time');
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

/**
 * The contract every {@link McpEventBus} meets, as a Jest suite: run it in a spec of your own over your
 * implementation(s).
 *
 * @example
 * eventBusContract([['RedisEventBus', async () => { const a = bus(); const b = bus(); return { here: a, there: b }; }]]);
 */
export function eventBusContract(cases: EventBusCase[]): void {
  describe.each(cases)('McpEventBus contract: %s', (_name, connect) => {
    let here: McpEventBus;
    let there: McpEventBus;
    let close: (() => Promise<void>) | undefined;

    beforeEach(async () => {
      ({ here, there, close } = await connect());
    });

    afterEach(async () => {
      await close?.();
    });

    const events: McpBusEvent[] = [
      { type: 'list-changed', server: 's', list: 'tools' },
      { type: 'resource-updated', server: 's', uri: 'file:///a.txt' },
      {
        type: 'session-message',
        server: 's',
        sessionId: 'x',
        message: { jsonrpc: '2.0', method: 'notifications/message', params: { level: 'info', data: 'hi' } },
      },
      {
        type: 'client-response',
        server: 's',
        sessionId: 'x',
        response: { jsonrpc: '2.0', id: 's1', result: { ok: true } },
      },
      { type: 'cancelled', server: 's', sessionId: 'x', requestId: 7, reason: 'user' },
      { type: 'sessions-ended', server: 's', principal: 'client:svc' },
      { type: 'session-deleted', server: 's', sessionId: 'x' },
      { type: 'session-changed', server: 's', sessionId: 'x' },
      { type: 'task-cancel', server: 's', taskId: 't', owner: 'client:svc' },
      {
        type: 'task-answers',
        server: 's',
        taskId: 't',
        owner: 'client:svc',
        responses: { word: { action: 'cancel' } },
      },
      { type: 'task-status', server: 's', taskId: 't', owner: 'client:svc', status: 'completed' },
    ];

    it.each(events.map((event) => [event.type, event] as const))(
      'carries a %s event unchanged to both instances',
      async (_type, event) => {
        const seenHere: McpBusEvent[] = [];
        const seenThere: McpBusEvent[] = [];
        here.subscribe((e) => seenHere.push(e));
        there.subscribe((e) => seenThere.push(e));
        await here.publish(event);
        await until(() => seenHere.length === 1 && seenThere.length === 1);
        expect(seenHere).toEqual([event]);
        expect(seenThere).toEqual([event]);
      },
    );

    it('delivers once per subscription, in publishing order, and stops after unsubscribing', async () => {
      const seen: string[] = [];
      const stop = there.subscribe((e) => seen.push(e.type === 'resource-updated' ? e.uri : e.type));
      await here.publish({ type: 'resource-updated', server: 's', uri: 'u:1' });
      await here.publish({ type: 'resource-updated', server: 's', uri: 'u:2' });
      await until(() => seen.length === 2);
      expect(seen).toEqual(['u:1', 'u:2']);
      stop();
      await here.publish({ type: 'resource-updated', server: 's', uri: 'u:3' });
      // u:3 may still be on its way to `there` (a bus between processes): the marker waits for its own event only.
      const marker: string[] = [];
      there.subscribe((e) => e.type === 'list-changed' && marker.push('later'));
      await here.publish({ type: 'list-changed', server: 's', list: 'prompts' });
      await until(() => marker.length === 1);
      expect(seen).toEqual(['u:1', 'u:2']);
    });

    it('keeps delivering to the others when one listener throws', async () => {
      const seen: string[] = [];
      there.subscribe(() => {
        throw new Error('listener bug');
      });
      there.subscribe((e) => seen.push(e.type));
      await here.publish({ type: 'list-changed', server: 's', list: 'resources' });
      await until(() => seen.length === 1);
      expect(seen).toEqual(['list-changed']);
    });
  });
}
