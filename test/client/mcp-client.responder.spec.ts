import { Injectable, Module } from '@nestjs/common';
import { Test, TestingModule } from '@nestjs/testing';
import {
  McpClientModule,
  McpClientModuleOptions,
  McpInputSituation,
  McpInputRefusal,
  OnNotification,
  OnSampling,
} from '../../libs/client/src/index';
import { McpClientResponder } from '../../libs/client/src/responder/mcp-client.responder';

@Injectable()
class Sampler {
  calls = 0;

  @OnSampling()
  sample() {
    this.calls++;
    return { role: 'assistant', content: { type: 'text', text: 'ok' }, model: 'm' };
  }
}

/** A notification handler that holds the queue until the test opens the gate. */
@Injectable()
class SlowListener {
  static gate: Promise<void> = Promise.resolve();
  handled = 0;

  @OnNotification('notifications/resources/updated')
  async updated() {
    await SlowListener.gate;
    this.handled++;
  }
}

const ctx = (serverId = 'srv'): McpInputSituation => ({
  client: 'responder-test',
  serverId,
  era: 'modern',
  assigns: {},
  relatedRequestId: undefined,
  signal: new AbortController().signal,
  callsInFlight: 1,
  origin: undefined,
});

describe('McpClientResponder: what the module answers with', () => {
  const modules: TestingModule[] = [];
  afterEach(async () => Promise.all(modules.splice(0).map((moduleRef) => moduleRef.close())));

  async function responder(options: Partial<McpClientModuleOptions>, providers: Array<new () => object> = []) {
    @Module({ imports: [McpClientModule.forRoot({ name: 'responder-test', servers: [], ...options })], providers })
    class App {}
    const moduleRef = await Test.createTestingModule({ imports: [App] }).compile();
    await moduleRef.init();
    modules.push(moduleRef);
    return Object.assign(moduleRef.get(McpClientResponder), { moduleRef });
  }

  it('declares no capability at all ({}) when no question handler exists', async () => {
    expect((await responder({})).capabilities('srv')).toEqual({});
  });

  it('refuses sampling over the input budget with rejectionCode -1 by default, before the handler runs', async () => {
    const answers = await responder({ inputRateLimit: { rate: 0.001, burst: 1 } }, [Sampler]);
    const params = { messages: [{ role: 'user', content: { type: 'text', text: 'hi' } }], maxTokens: 10 };
    await expect(answers.answer('sampling/createMessage', params, ctx())).resolves.toMatchObject({ model: 'm' });
    const refused = await answers.answer('sampling/createMessage', params, ctx()).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(McpInputRefusal);
    expect(refused).toMatchObject({ code: -1, message: 'Too many requests for input from this server' });
    expect(answers.moduleRef.get(Sampler).calls).toBe(1);
  });

  it('drops notifications past maxQueuedNotificationBytes while a handler is slow, whatever their count', async () => {
    let open!: () => void;
    SlowListener.gate = new Promise((resolve) => (open = resolve));
    const answers = await responder({ maxQueuedNotificationBytes: 4 * 1024 * 1024 }, [SlowListener]);
    answers.moduleRef.useLogger(false);
    const server = { client: 'responder-test', serverId: 'srv', era: 'legacy' as const };
    // 40 notifications of 1 MiB each (a server that floods a client whose handler is busy): far below 1 000 items.
    const big = 'u'.repeat(1024 * 1024);
    for (let n = 0; n < 40; n++)
      answers.notify('notifications/resources/updated', { uri: `file:///${n}`, big }, server);
    open();
    await answers.drain();
    // All 40 arrived before the first was handled: 4 MiB hold three of them, the rest were dropped.
    expect(answers.moduleRef.get(SlowListener).handled).toBeLessThanOrEqual(4);
    expect(answers.moduleRef.get(SlowListener).handled).toBeGreaterThanOrEqual(2);
  });
});
