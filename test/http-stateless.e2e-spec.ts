import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { answeringClient } from './support/sdk-client';
import { startDemoServer, RunningServer } from './support/demo-server';
import { interopScenarios } from './support/interop.scenarios';
import { HTTP_ADAPTERS } from './support/http-adapters';

describe.each(HTTP_ADAPTERS)('Streamable HTTP, stateless mode, with the official SDK 1.x client (%s)', (adapter) => {
  let server: RunningServer;

  beforeAll(async () => {
    server = await startDemoServer({ sessionMode: 'stateless' }, adapter);
  });

  afterAll(async () => {
    await server.close();
  });

  interopScenarios({
    // Without a session nothing the client sets lasts, and there is no stream outside a request nor one for questions.
    sessions: false,
    serverRequests: false,
    connect: async () => {
      const peer = answeringClient();
      const transport = peer.recorder.tap(new StreamableHTTPClientTransport(new URL(server.url)));
      await peer.client.connect(transport);
      expect(transport.sessionId).toBeUndefined();
      return peer;
    },
  });
});
