import { Test } from '@nestjs/testing';
import { createInMemoryTransportPair } from '@conduit-mcp/core';
import { InMemoryEventBus } from '../events/in-memory-event.bus';
import { McpModule } from '../mcp.module';
import { McpServer } from '../mcp.server';
import { InMemorySessionStore } from '../session/in-memory-session.store';
import { InMemoryTaskStore } from '../tasks/in-memory-task.store';
import { InMemoryEventStore } from '../transports/http/event.store';
import { McpHealthIndicator } from './mcp.health';
import { McpStateHealth } from './state-health.interface';

type Health = () => Promise<McpStateHealth>;

/** A server whose stores and bus answer `health()` as given (none: the part has no health()), serving one session. */
async function serverWith(health: {
  sessionStore?: Health;
  eventStore?: Health;
  eventBus?: Health;
  taskStore?: Health;
}) {
  const withHealth = <T extends object>(part: T, answer: Health | undefined): T =>
    answer ? Object.assign(part, { health: answer }) : part;
  const moduleRef = await Test.createTestingModule({
    imports: [
      McpModule.forRoot({
        name: 'h',
        version: '1',
        http: false,
        sessionStore: withHealth(new InMemorySessionStore(), health.sessionStore),
        eventStore: withHealth(new InMemoryEventStore(), health.eventStore),
        eventBus: withHealth(new InMemoryEventBus(), health.eventBus),
        taskStore: withHealth(new InMemoryTaskStore(), health.taskStore),
      }),
    ],
  }).compile();
  await moduleRef.init();
  moduleRef.get(McpServer).connect(createInMemoryTransportPair()[1]); // a transport serves it
  return moduleRef;
}

describe('McpHealthIndicator', () => {
  const up: Health = async () => ({ up: true, status: 'ready' });

  it('reports no state when no store or bus has a health() (the in-memory defaults)', async () => {
    const moduleRef = await serverWith({});
    try {
      expect(await moduleRef.get(McpHealthIndicator).isHealthy()).toEqual({
        mcp: { status: 'up', server: 'h', registryLoaded: true, transports: ['memory'], sessions: 1 },
      });
    } finally {
      await moduleRef.close();
    }
  });

  it('reports the stores and the bus that have a health() under state, up when all are', async () => {
    const moduleRef = await serverWith({ sessionStore: up, eventStore: up, eventBus: up, taskStore: up });
    try {
      const { mcp } = await moduleRef.get(McpHealthIndicator).isHealthy();
      expect(mcp).toMatchObject({
        status: 'up',
        state: {
          sessionStore: { up: true, status: 'ready' },
          eventStore: { up: true, status: 'ready' },
          eventBus: { up: true, status: 'ready' },
          taskStore: { up: true, status: 'ready' },
        },
      });
    } finally {
      await moduleRef.close();
    }
  });

  it('is down when one of them is down', async () => {
    const moduleRef = await serverWith({ sessionStore: up, eventBus: async () => ({ up: false, status: 'end' }) });
    try {
      const { mcp } = await moduleRef.get(McpHealthIndicator).isHealthy();
      expect(mcp).toMatchObject({
        status: 'down',
        state: { sessionStore: { up: true }, eventBus: { up: false, status: 'end' } },
      });
    } finally {
      await moduleRef.close();
    }
  });

  it('counts a health() that takes longer than 2 s as down', async () => {
    const moduleRef = await serverWith({ taskStore: () => new Promise<never>(() => undefined), sessionStore: up });
    jest.useFakeTimers({ doNotFake: ['setImmediate', 'nextTick', 'queueMicrotask'] });
    try {
      const checked = moduleRef.get(McpHealthIndicator).isHealthy();
      await jest.advanceTimersByTimeAsync(1_999);
      let settled = false;
      void checked.then(() => (settled = true));
      await Promise.resolve();
      expect(settled).toBe(false);
      await jest.advanceTimersByTimeAsync(1);
      const { mcp } = await checked;
      expect(mcp).toMatchObject({
        status: 'down',
        state: { sessionStore: { up: true }, taskStore: { up: false, error: 'no answer within 2000 ms' } },
      });
    } finally {
      jest.useRealTimers();
      await moduleRef.close();
    }
  });
});
