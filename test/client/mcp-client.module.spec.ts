import { CanActivate, ExecutionContext, Injectable, Module, UseGuards } from '@nestjs/common';
import { Test, TestingModule } from '@nestjs/testing';
import { HealthCheckService, TerminusModule } from '@nestjs/terminus';
import { startDemoServer, RunningServer } from '../support/demo-server';
import {
  InjectMcpClient,
  McpClient,
  McpClientHealthIndicator,
  McpClientModule,
  McpClients,
  McpInputContext,
  OnElicitation,
  McpClientNotificationContext,
  OnLog,
  OnNotification,
  OnSampling,
} from '../../libs/client/src/index';
import { LiveSessions } from '../../libs/server/src/session/live-sessions';

class OnlyAlice implements CanActivate {
  canActivate(context: ExecutionContext): boolean {
    const ctx = context.getArgByIndex<McpInputContext>(1);
    return context.getType<string>() === 'mcp-client' && ctx.assigns.user === 'alice';
  }
}

@Injectable()
class Handlers {
  readonly samplings: Array<{ params: Record<string, unknown>; ctx: McpInputContext }> = [];
  readonly elicitations: McpInputContext[] = [];
  readonly notifications: string[] = [];
  readonly logs: unknown[] = [];

  @OnSampling()
  @UseGuards(OnlyAlice)
  sample(params: Record<string, unknown>, ctx: McpInputContext) {
    this.samplings.push({ params, ctx });
    return { role: 'assistant', content: { type: 'text', text: 'Sunny.' }, model: 'stub' };
  }

  @OnElicitation({ modes: ['form', 'url'] })
  elicit(_params: Record<string, unknown>, ctx: McpInputContext) {
    this.elicitations.push(ctx);
    return { action: 'accept', content: { confirm: true } };
  }

  @OnNotification()
  notification(_params: Record<string, unknown>, ctx: McpClientNotificationContext) {
    this.notifications.push(ctx.method);
  }

  @OnLog()
  log(entry: { level: string; data: unknown }) {
    this.logs.push([entry.level, entry.data]);
  }
}

@Injectable()
class UsesClient {
  constructor(@InjectMcpClient('demo') readonly client: McpClient) {}
}

describe('McpClientModule with decorated handlers, against the demo server over HTTP', () => {
  let server: RunningServer;
  let moduleRef: TestingModule;
  let handlers: Handlers;
  let client: McpClient;

  async function start(era: string) {
    @Module({
      imports: [
        McpClientModule.forRoot({
          name: 'module-test',
          assigns: { user: 'bob' },
          servers: [{ id: 'demo', transport: { type: 'http', url: server.url }, era }],
        }),
        TerminusModule,
      ],
      providers: [Handlers, UsesClient],
    })
    class ClientApp {}
    moduleRef = await Test.createTestingModule({ imports: [ClientApp] }).compile();
    await moduleRef.init();
    handlers = moduleRef.get(Handlers);
    client = moduleRef.get(UsesClient).client;
  }

  beforeAll(async () => {
    server = await startDemoServer();
  });
  afterEach(() => moduleRef.close());
  afterAll(() => server.close());

  it.each(['legacy', 'modern'])(
    'declares exactly the handled capabilities and answers through the handlers (%s)',
    async (era) => {
      await start(era);
      expect(client.state).toBe('connected');
      expect(moduleRef.get(McpClients).get('demo')).toBe(client);
      const added = await client.callTool('add_note', { title: 'T', body: 'b' });
      const id = String((added.content as Array<{ uri: string }>)[0].uri)
        .split('/')
        .pop();
      expect(await client.callTool('delete_note', { id })).toMatchObject({
        content: [{ text: 'Deleted the note "T".' }],
      });
      expect(handlers.elicitations[0]).toMatchObject({
        client: 'module-test',
        serverId: 'demo',
        era,
        mode: 'form',
        fields: { confirm: { sensitiveSuspected: false } },
      });
    },
  );

  it.each(['legacy', 'modern'])(
    'runs the user guard on a handler: a refused sampling fails the call, an allowed one passes (%s)',
    async (era) => {
      await start(era);
      await expect(client.callTool('summarize_forecast', { city: 'Oslo' })).rejects.toMatchObject({
        kind: era === 'modern' ? 'input_handler' : 'rpc',
      });
      expect(handlers.samplings).toEqual([]);
      const result = await client.callTool('summarize_forecast', { city: 'Oslo' }, { assigns: { user: 'alice' } });
      expect(result).toMatchObject({ content: [{ text: 'Sunny. (model: stub)' }] });
      expect(handlers.samplings[0].params).toMatchObject({ maxTokens: 200 });
      expect(handlers.samplings[0].ctx.assigns).toEqual({ user: 'alice' });
    },
  );

  it('opens a new legacy session when the server forgot the old one (HTTP 404)', async () => {
    await start('legacy');
    await client.ping();
    const sessions = server.app.get(LiveSessions);
    for (const session of [...sessions.values()]) sessions.delete(session.id);
    await expect(client.ping()).rejects.toMatchObject({ code: -32001 });
    await expect(client.ping()).resolves.toEqual({});
    expect(sessions.size).toBe(1);
  });

  it('hands log entries and notifications to @OnLog and @OnNotification, and reports health', async () => {
    await start('legacy');
    await client.setLogLevel('debug');
    await client.subscribe('notes://index');
    await client.callTool('weather_report', { steps: 2 });
    await client.callTool('add_note', { title: 'Watched', body: 'x' });
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(handlers.logs).toEqual([
      ['debug', { step: 1 }],
      ['debug', { step: 2 }],
    ]);
    expect(handlers.notifications).toEqual(
      expect.arrayContaining(['notifications/message', 'notifications/resources/updated']),
    );
    const health = await moduleRef
      .get(HealthCheckService)
      .check([() => moduleRef.get(McpClientHealthIndicator).isHealthy()]);
    expect(health).toMatchObject({
      status: 'ok',
      info: { 'mcp-clients': { status: 'up', demo: { up: true, era: 'legacy' } } },
    });
  });
});
