import { ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Logger } from '@nestjs/common';
import type { McpBusEvent } from '@conduit-mcp/server';
import { eventBusContract } from '@conduit-mcp/server/contracts';
import { Redis, RedisOptions } from 'ioredis';
import { TEST_REDIS_URL, deleteKeys, testPrefix, testRedis } from '../redis-test.fixtures-spec';
import { RedisEventBus, RedisEventBusOptions } from './redis-event.bus';

const WAIT_MS = 5_000;

async function until(condition: () => boolean | Promise<boolean>, what = 'the condition'): Promise<void> {
  const deadline = Date.now() + WAIT_MS;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`${what} did not hold in time`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

// Connections and buses a test opened, closed after it (with the keys under its prefixes, though pub/sub makes none).
const opened: Redis[] = [];
const buses: RedisEventBus[] = [];
const prefixes: string[] = [];

function track(redis: Redis): Redis {
  redis.on('error', () => undefined); // failures are what some tests make; the assertions look at the results
  opened.push(redis);
  return redis;
}

function freshPrefix(label: string): string {
  const prefix = testPrefix(`bus-${label}`);
  prefixes.push(prefix);
  return prefix;
}

/** A bus with connections of its own, as the module builds it: a fail-fast publisher and a duplicate subscriber. */
function bus(prefix: string, options: Partial<RedisEventBusOptions> = {}, url = TEST_REDIS_URL): RedisEventBus {
  const publisher = track(new Redis(url, fastFailing()));
  const subscriber = track(publisher.duplicate({ enableOfflineQueue: true }));
  const created = new RedisEventBus(publisher, subscriber, { prefix, ...options });
  buses.push(created);
  return created;
}

function fastFailing(extra: RedisOptions = {}): RedisOptions {
  return { maxRetriesPerRequest: 1, commandTimeout: 2_000, connectTimeout: 2_000, ...extra };
}

async function closeAll(): Promise<void> {
  await Promise.all(buses.splice(0).map((b) => b.close()));
  const cleaner = testRedis();
  try {
    for (const prefix of prefixes.splice(0)) await deleteKeys(cleaner, prefix);
  } finally {
    cleaner.disconnect();
  }
  // An ended connection has no socket left; disconnecting it again would start a timer that nothing clears.
  for (const redis of opened.splice(0)) if (redis.status !== 'end') redis.disconnect();
}

/** How many subscribers a shard channel has. */
async function shardSubscribers(redis: Redis, channel: string): Promise<number> {
  const reply = (await redis.pubsub('SHARDNUMSUB', channel)) as [string, number];
  return Number(reply[1]);
}

/** A raw connection that records what arrives on `channel`. */
async function listenRaw(channel: string): Promise<string[]> {
  const raw = track(testRedis());
  const got: string[] = [];
  raw.on('smessage', (name: string, message: string) => {
    if (name === channel) got.push(message);
  });
  await raw.ssubscribe(channel);
  return got;
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  if (!address || typeof address === 'string') throw new Error('no port');
  return address.port;
}

const listChanged = (server: string): McpBusEvent => ({ type: 'list-changed', server, list: 'tools' });
const updated = (server: string, uri: string): McpBusEvent => ({ type: 'resource-updated', server, uri });

let warn: jest.SpyInstance;
let error: jest.SpyInstance;

beforeEach(() => {
  warn = jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
  error = jest.spyOn(Logger.prototype, 'error').mockImplementation(() => undefined);
  jest.spyOn(Logger.prototype, 'log').mockImplementation(() => undefined);
});

afterEach(async () => {
  await closeAll();
  jest.restoreAllMocks();
});

// Two instances on one fresh prefix, each with its own pair of connections; subscribed before the contract publishes.
eventBusContract([
  [
    'RedisEventBus, one channel for every server',
    async () => {
      const prefix = freshPrefix('contract');
      const here = bus(prefix);
      const there = bus(prefix);
      await Promise.all([here.ready(), there.ready()]);
      return { here, there };
    },
  ],
  [
    'RedisEventBus, a channel per server',
    async () => {
      const prefix = freshPrefix('contract-servers');
      const here = bus(prefix, { servers: ['s'] });
      const there = bus(prefix, { servers: ['other', 's'] });
      await Promise.all([here.ready(), there.ready()]);
      return { here, there };
    },
  ],
]);

describe('RedisEventBus', () => {
  it('subscribes on Redis lazily, at the first subscribe(); ready() resolves once the subscription is active', async () => {
    const prefix = freshPrefix('lazy');
    const channel = `${prefix}bus:s`;
    const probe = track(testRedis());
    const b = bus(prefix, { servers: ['s'] });
    expect(await shardSubscribers(probe, channel)).toBe(0);
    b.subscribe(() => undefined);
    await b.ready();
    expect(await shardSubscribers(probe, channel)).toBe(1);
  });

  it('publishes on the event server’s channel; a bus for server a hears no event of server b', async () => {
    const prefix = freshPrefix('servers');
    const forA = bus(prefix, { servers: ['a'] });
    const sender = bus(prefix, { servers: ['b'] });
    const seenByA: McpBusEvent[] = [];
    forA.subscribe((event) => seenByA.push(event));
    await forA.ready();
    const onB = await listenRaw(`${prefix}bus:b`);
    await sender.publish(updated('b', 'u:for-b'));
    await sender.publish(updated('a', 'u:for-a'));
    // Redis keeps the publishing order towards one subscriber: once a's event is in, b's would have been before it.
    await until(() => seenByA.length === 1 && onB.length === 1, "a's event");
    expect(seenByA).toEqual([updated('a', 'u:for-a')]);
    expect(JSON.parse(onB[0])).toMatchObject({ from: sender.instanceId, event: updated('b', 'u:for-b') });
  });

  it('without servers, carries every server’s events on the one channel <prefix>bus', async () => {
    const prefix = freshPrefix('one-channel');
    const here = bus(prefix);
    const there = bus(prefix);
    const seen: McpBusEvent[] = [];
    there.subscribe((event) => seen.push(event));
    await there.ready();
    const raw = await listenRaw(`${prefix}bus`);
    await here.publish(listChanged('x'));
    await here.publish(listChanged('y'));
    await until(() => seen.length === 2 && raw.length === 2, 'both events');
    expect(seen).toEqual([listChanged('x'), listChanged('y')]);
  });

  it('carries the session-deleted and session-changed events, and drops them without a session id', async () => {
    const prefix = freshPrefix('session-events');
    const here = bus(prefix, { servers: ['s'] });
    const there = bus(prefix, { servers: ['s'] });
    const seen: McpBusEvent[] = [];
    there.subscribe((event) => seen.push(event));
    await there.ready();
    const raw = track(testRedis());
    const forged = { from: 'someone-else', event: { type: 'session-deleted', server: 's', sessionId: '' } };
    await raw.spublish(`${prefix}bus:s`, JSON.stringify(forged));
    const deleted: McpBusEvent = { type: 'session-deleted', server: 's', sessionId: 'x' };
    const changed: McpBusEvent = { type: 'session-changed', server: 's', sessionId: 'y' };
    await here.publish(deleted);
    await here.publish(changed);
    await until(() => seen.length === 2, 'both session events');
    expect(seen).toEqual([deleted, changed]);
  });

  it('hands its own events to its listeners once: directly, not again from Redis', async () => {
    const prefix = freshPrefix('own');
    const self = bus(prefix);
    const other = bus(prefix);
    const seen: string[] = [];
    self.subscribe((event) => seen.push(event.type === 'resource-updated' ? event.uri : event.type));
    await self.ready();
    await self.publish(updated('s', 'u:own'));
    expect(seen).toEqual(['u:own']); // delivered before publish() resolved
    // The own message came back on the subscriber before this one (published later), and was skipped.
    await other.publish(updated('s', 'u:marker'));
    await until(() => seen.includes('u:marker'), 'the marker');
    expect(seen).toEqual(['u:own', 'u:marker']);
  });

  it('drops malformed and foreign messages without throwing, logs each kind once, and keeps delivering', async () => {
    const prefix = freshPrefix('junk');
    const channel = `${prefix}bus:s`;
    const receiver = bus(prefix, { servers: ['s'], maxEventBytes: 2_048 });
    const sender = bus(prefix, { servers: ['s'] });
    const seen: McpBusEvent[] = [];
    receiver.subscribe((event) => seen.push(event));
    await receiver.ready();
    const envelope = (event: unknown) => JSON.stringify({ from: 'someone-else', event });
    const junk = [
      'x'.repeat(3_000), // oversize
      '{not json', // not-json
      JSON.stringify(['an', 'array']), // not-envelope
      JSON.stringify({ event: listChanged('s') }), // not-envelope: no sender
      envelope({ type: 'tasks-exploded', server: 's' }), // unknown-type
      envelope({ type: 'list-changed', server: 's', list: 'widgets' }), // bad-fields
      envelope({ type: 'resource-updated', server: 's' }), // bad-fields
      envelope({ type: 'session-message', server: 's', sessionId: 'x', message: { jsonrpc: '1.0' } }), // bad-fields
      envelope({ type: 'cancelled', server: 's', sessionId: 'x', requestId: 1.5 }), // bad-fields
      envelope({ type: 'client-response', server: 's', sessionId: 'x', response: { jsonrpc: '2.0', method: 'm' } }),
      envelope(listChanged('not-s')), // wrong-server
    ];
    const raw = track(testRedis());
    for (const message of [...junk, ...junk]) await raw.spublish(channel, message);
    await sender.publish(listChanged('s'));
    await until(() => seen.length === 1, 'the well-formed event');
    expect(seen).toEqual([listChanged('s')]);
    const drops = warn.mock.calls.map(([message]) => String(message)).filter((m) => m.startsWith('Dropped'));
    expect(drops).toHaveLength(6);
    for (const reason of [
      'larger than maxEventBytes',
      'not JSON',
      'not an event envelope',
      'unknown type',
      'missing or malformed fields',
      'another server',
    ])
      expect(drops.filter((message) => message.includes(reason))).toHaveLength(1);
  });

  it('delivers an oversize event on this instance only, and publish() rejects saying so', async () => {
    const prefix = freshPrefix('oversize');
    const here = bus(prefix, { maxEventBytes: 1_024 });
    const there = bus(prefix);
    const seenHere: string[] = [];
    const seenThere: string[] = [];
    here.subscribe((event) => seenHere.push(event.type === 'resource-updated' ? event.uri : event.type));
    there.subscribe((event) => seenThere.push(event.type === 'resource-updated' ? event.uri : event.type));
    await there.ready();
    const big = updated('s', `u:${'x'.repeat(2_000)}`);
    await expect(here.publish(big)).rejects.toThrow(/delivered on this instance only: .*over maxEventBytes \(1024\)/);
    expect(seenHere).toHaveLength(1);
    await here.publish(updated('s', 'u:marker'));
    await until(() => seenThere.length === 1, 'the marker');
    expect(seenThere).toEqual(['u:marker']);
  });

  it('refuses to carry a malformed event to Redis, after delivering it locally as the in-memory bus would', async () => {
    const prefix = freshPrefix('malformed-out');
    const here = bus(prefix);
    const seen: unknown[] = [];
    here.subscribe((event) => seen.push(event));
    const bogus = { type: 'bogus', server: 's' } as unknown as McpBusEvent;
    await expect(here.publish(bogus)).rejects.toThrow(
      /not published, delivered on this instance only: an event of an unknown type/,
    );
    const cyclic = { jsonrpc: '2.0' as const, method: 'notifications/message', params: {} as Record<string, unknown> };
    cyclic.params.self = cyclic;
    const event: McpBusEvent = { type: 'session-message', server: 's', sessionId: 'x', message: cyclic };
    await expect(here.publish(event)).rejects.toThrow(/session-message event that cannot be serialized/);
    expect(seen).toEqual([bogus, event]);
    expect(warn.mock.calls.filter(([message]) => String(message).startsWith('Not published'))).toHaveLength(2);
  });

  it('keeps local delivery when Redis is unreachable: listeners are called, publish() rejects, health() is down', async () => {
    const port = await freePort(); // nothing listens there
    const noRetry: RedisOptions = { enableOfflineQueue: false, retryStrategy: () => null };
    const publisher = track(new Redis(`redis://127.0.0.1:${port}`, fastFailing(noRetry)));
    const subscriber = track(publisher.duplicate());
    const offline = new RedisEventBus(publisher, subscriber, { prefix: freshPrefix('offline') });
    buses.push(offline);
    const seen: McpBusEvent[] = [];
    offline.subscribe((event) => seen.push(event));
    await expect(offline.publish(listChanged('s'))).rejects.toThrow(/publishing a list-changed event failed/);
    expect(seen).toEqual([listChanged('s')]);
    await expect(offline.ready(1_000)).rejects.toThrow(/subscribing failed|not subscribed within/);
    expect(await offline.health()).toMatchObject({ up: false });
    expect(warn.mock.calls.some(([message]) => String(message).startsWith('Publishing on Redis failed'))).toBe(true);
  });

  it('reports health through a ping of the publishing connection', async () => {
    const b = bus(freshPrefix('health'));
    expect(await b.health()).toEqual({ up: true, status: 'ready', latencyMs: expect.any(Number) });
  });

  it('keeps calling the other local listeners when one throws, and logs the failure', async () => {
    const b = bus(freshPrefix('throwing'));
    const seen: string[] = [];
    b.subscribe(() => {
      throw new Error('listener bug');
    });
    b.subscribe((event) => seen.push(event.type));
    await b.publish(listChanged('s'));
    expect(seen).toEqual(['list-changed']);
    expect(error).toHaveBeenCalledWith(expect.stringContaining('listener bug'));
  });

  it('close() unsubscribes from Redis and stops delivery; a closed bus refuses publish and subscribe', async () => {
    const prefix = freshPrefix('close');
    const channel = `${prefix}bus:s`;
    const probe = track(testRedis());
    const closing = bus(prefix, { servers: ['s'] });
    const staying = bus(prefix, { servers: ['s'] });
    const seenClosing: string[] = [];
    const seenStaying: string[] = [];
    closing.subscribe((event) => seenClosing.push(event.type));
    staying.subscribe((event) => seenStaying.push(event.type));
    await Promise.all([closing.ready(), staying.ready()]);
    expect(await shardSubscribers(probe, channel)).toBe(2);
    await closing.close();
    expect(await shardSubscribers(probe, channel)).toBe(1);
    await staying.publish(listChanged('s'));
    expect(seenStaying).toEqual(['list-changed']);
    await expect(closing.publish(listChanged('s'))).rejects.toThrow(/closed/);
    expect(() => closing.subscribe(() => undefined)).toThrow(/closed/);
    await expect(closing.ready()).rejects.toThrow(/closed/);
    await closing.close(); // idempotent
    expect(seenClosing).toEqual([]);
  });

  it('refuses bad options and arguments with errors that name them', () => {
    const redis = track(testRedis());
    const other = track(testRedis());
    const make = (options: unknown) => new RedisEventBus(redis, other, options as RedisEventBusOptions);
    expect(() => make(undefined)).toThrow(/options \{ prefix/);
    expect(() => make({ prefix: '' })).toThrow(/prefix must be a string of 1 to 200/);
    expect(() => make({ prefix: 'p:', servers: [] })).toThrow(/servers must be a list of 1 to 1000/);
    expect(() => make({ prefix: 'p:', servers: ['a', ''] })).toThrow(/each server name/);
    expect(() => make({ prefix: 'p:', servers: ['a', 'a'] })).toThrow(/names a server twice/);
    expect(() => make({ prefix: 'p:', maxEventBytes: 0 })).toThrow(/maxEventBytes must be an integer/);
    expect(() => make({ prefix: 'p:', maxEventBytes: 1.5 })).toThrow(/maxEventBytes must be an integer/);
    expect(() => new RedisEventBus(redis, redis, { prefix: 'p:' })).toThrow(
      /subscriber must be a connection of its own/,
    );
    const b = make({ prefix: freshPrefix('args') });
    buses.push(b);
    expect(() => b.subscribe('nope' as never)).toThrow(/listener must be a function/);
    return expect(b.ready(0)).rejects.toThrow(/positive timeout/);
  });
});

describe('RedisEventBus across a Redis restart', () => {
  const started: ChildProcess[] = [];
  let dir: string;

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'conduit-bus-redis-'));
  });

  afterEach(async () => {
    await closeAll(); // while the server runs: a connection left reconnecting would hold a timer after disconnect()
    for (const child of started.splice(0)) await stop(child);
    rmSync(dir, { recursive: true, force: true });
  });

  async function startRedis(port: number): Promise<ChildProcess> {
    const args = ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir];
    const child = spawn('redis-server', args, { stdio: ['ignore', 'pipe', 'pipe'] });
    started.push(child);
    await new Promise<void>((resolve, reject) => {
      let output = '';
      const timer = setTimeout(() => reject(new Error(`redis-server did not start in time: ${output}`)), WAIT_MS);
      child.stdout?.on('data', (chunk: Buffer) => {
        output = (output + chunk.toString()).slice(-2_000);
        if (output.includes('Ready to accept connections')) {
          clearTimeout(timer);
          resolve();
        }
      });
      child.once('error', (failure) => {
        clearTimeout(timer);
        reject(failure);
      });
      child.once('exit', (code) => {
        clearTimeout(timer);
        reject(new Error(`redis-server exited (${code}): ${output}`));
      });
    });
    return child;
  }

  async function stop(child: ChildProcess): Promise<void> {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGKILL');
    await exited;
  }

  function nextReady(redis: Redis): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error('the subscriber did not reconnect in time')), WAIT_MS);
      redis.once('ready', () => {
        clearTimeout(timer);
        resolve();
      });
    });
  }

  it('loses what is published during the outage, and delivers again once ioredis re-subscribes', async () => {
    const port = await freePort();
    await startRedis(port);
    const url = `redis://127.0.0.1:${port}`;
    const prefix = freshPrefix('restart');
    const reconnecting: RedisOptions = { enableOfflineQueue: false, retryStrategy: () => 50 };
    const publisherA = track(new Redis(url, fastFailing(reconnecting)));
    const a = new RedisEventBus(publisherA, track(publisherA.duplicate({ enableOfflineQueue: true })), { prefix });
    const publisherB = track(new Redis(url, fastFailing(reconnecting)));
    const subscriberB = track(publisherB.duplicate({ enableOfflineQueue: true }));
    const b = new RedisEventBus(publisherB, subscriberB, { prefix });
    buses.push(a, b);
    const seen: string[] = [];
    b.subscribe((event) => seen.push(event.type === 'resource-updated' ? event.uri : event.type));
    await b.ready();
    await until(() => publisherA.status === 'ready', 'the publisher connection');
    await a.publish(updated('s', 'u:before'));
    await until(() => seen.length === 1, 'the first event');

    const reconnected = nextReady(subscriberB);
    await stop(started[0]);
    await until(() => publisherA.status !== 'ready', 'the outage');
    await expect(a.publish(updated('s', 'u:during'))).rejects.toThrow(/publishing a resource-updated event failed/);
    await startRedis(port);
    await reconnected;
    await until(async () => {
      try {
        return (await shardSubscribers(publisherA, `${prefix}bus`)) === 1;
      } catch {
        return false; // the publisher is still reconnecting
      }
    }, 'the re-subscription');
    await a.publish(updated('s', 'u:after'));
    await until(() => seen.length === 2, 'the event after the restart');
    expect(seen).toEqual(['u:before', 'u:after']);
  });
});
