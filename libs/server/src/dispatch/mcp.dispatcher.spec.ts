import { Logger, Module } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { RawClient } from '../../../../test/support/raw-client';
import { McpModule, McpServer } from '../index';

describe('McpDispatcher: notifications without a handler', () => {
  let app: Awaited<ReturnType<ReturnType<typeof Test.createTestingModule>['compile']>>;
  let client: RawClient;
  let debug: jest.SpyInstance;

  beforeEach(async () => {
    debug = jest.spyOn(Logger.prototype, 'debug').mockImplementation(() => undefined);
    jest.spyOn(Logger.prototype, 'log').mockImplementation(() => undefined);
    @Module({ imports: [McpModule.forRoot({ name: 'notify', version: '1.0.0', http: false })] })
    class NotifyModule {}
    app = await (await Test.createTestingModule({ imports: [NotifyModule] }).compile()).init();
    client = RawClient.connect(app.get(McpServer));
    await client.initialize();
  });

  afterEach(async () => {
    await client.close();
    await app.close();
    jest.restoreAllMocks();
  });

  const ignored = () =>
    debug.mock.calls.map(([message]) => String(message)).filter((message) => message.startsWith('Ignored'));

  it('logs an unknown notification at debug level, its name sanitized, and answers nothing', async () => {
    await client.notify('notifications/unknown\u202e\n');
    expect((await client.request('ping')).result).toEqual({});
    expect(ignored()).toEqual(['Ignored notification notifications/unknown: no handler for it']);
    expect(client.received.filter((m) => !('id' in m))).toEqual([]);
  });

  it('clamps a long name to 128 characters', async () => {
    await client.notify(`x/${'y'.repeat(500)}`);
    await client.request('ping');
    const [message] = ignored();
    expect(message).toBe(`Ignored notification x/${'y'.repeat(125)}…: no handler for it`);
  });

  it('does not log notifications it handles', async () => {
    await client.notify('notifications/initialized');
    await client.notify('notifications/cancelled', { requestId: 'none' });
    await client.request('ping');
    expect(ignored()).toEqual([]);
  });

  it('limits a flood: a burst of logs, then no more, whatever the names', async () => {
    for (let i = 0; i < 200; i++) await client.notify(i % 2 ? `flood/${i}` : 'flood/same');
    expect((await client.request('ping')).result).toEqual({});
    // A burst of 10, refilled at 10 a minute: the 200 take well under the 6 s one more would need.
    expect(ignored().length).toBeGreaterThanOrEqual(10);
    expect(ignored().length).toBeLessThanOrEqual(11);
    expect(client.received.filter((m) => !('id' in m))).toEqual([]);
  });
});
