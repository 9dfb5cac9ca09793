import { Injectable, Module } from '@nestjs/common';
import { Test, TestingModule } from '@nestjs/testing';
import {
  McpClientModule,
  McpClientModuleOptions,
  McpInputSituation,
  McpInputRefusal,
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
});
