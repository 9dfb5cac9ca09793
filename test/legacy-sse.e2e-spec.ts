import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import { answeringClient } from './support/sdk-client';
import { startDemoServer, RunningServer } from './support/demo-server';
import { interopScenarios } from './support/interop.scenarios';
import { HTTP_ADAPTERS } from './support/http-adapters';

describe.each(HTTP_ADAPTERS)('HTTP+SSE (2024-11-05 transport), with the official SDK 1.x client (%s)', (adapter) => {
  let server: RunningServer;

  beforeAll(async () => {
    server = await startDemoServer({}, adapter);
  });

  afterAll(async () => {
    await server.close();
  });

  interopScenarios({
    sessions: true,
    serverRequests: true,
    connect: async () => {
      const peer = answeringClient();
      const transport = peer.recorder.tap(new SSEClientTransport(new URL('/sse', server.url)));
      await peer.client.connect(transport);
      return peer;
    },
  });
});
