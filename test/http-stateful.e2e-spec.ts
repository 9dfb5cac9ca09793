import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { answeringClient } from './support/sdk-client';
import { startDemoServer, RunningServer } from './support/demo-server';
import { interopScenarios } from './support/interop.scenarios';
import { HTTP_ADAPTERS } from './support/http-adapters';

describe.each(HTTP_ADAPTERS)('Streamable HTTP, stateful sessions, with the official SDK 1.x client (%s)', (adapter) => {
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
      const transport = peer.recorder.tap(new StreamableHTTPClientTransport(new URL(server.url)));
      await peer.client.connect(transport);
      expect(transport.sessionId).toMatch(/^[0-9a-f-]{36}$/);
      return peer;
    },
  });

  it('lists and runs the guarded tool for a caller with the admin key', async () => {
    const peer = answeringClient();
    const transport = new StreamableHTTPClientTransport(new URL(server.url), {
      requestInit: { headers: { 'X-Admin-Key': 'demo-admin' } },
    });
    await peer.client.connect(peer.recorder.tap(transport));
    const { tools } = await peer.client.listTools();
    expect(tools.map((tool) => tool.name)).toContain('reset_notes');
    const result = await peer.client.callTool({ name: 'reset_notes' });
    expect(result.content).toEqual([{ type: 'text', text: expect.stringMatching(/^Deleted \d+ notes\.$/) }]);
    await transport.terminateSession();
    await peer.client.close();
    expect(peer.recorder.problems()).toEqual([]);
  });
});
