import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Server } from 'node:http';
import { answeringClient } from './support/sdk-client';
import { startDemoServer, RunningServer } from './support/demo-server';
import { HTTP_ADAPTERS } from './support/http-adapters';

describe.each(HTTP_ADAPTERS)(
  'Streamable HTTP: a dropped stream resumes with Last-Event-ID (official SDK 1.x client, %s)',
  (adapter) => {
    let server: RunningServer;

    beforeAll(async () => {
      server = await startDemoServer({}, adapter);
    });

    afterAll(async () => {
      await server.close();
    });

    it('delivers the progress and the result sent after the connection dropped', async () => {
      const peer = answeringClient();
      const transport = new StreamableHTTPClientTransport(new URL(server.url), {
        reconnectionOptions: {
          initialReconnectionDelay: 50,
          maxReconnectionDelay: 200,
          reconnectionDelayGrowFactor: 1.5,
          maxRetries: 5,
        },
      });
      await peer.client.connect(peer.recorder.tap(transport));
      const httpServer = server.app.getHttpServer() as Server;
      const progress: number[] = [];
      let dropped = false;
      const result = await peer.client.callTool({ name: 'weather_report', arguments: { steps: 6 } }, undefined, {
        onprogress: (p) => {
          progress.push(p.progress);
          if (p.progress === 2 && !dropped) {
            dropped = true;
            httpServer.closeAllConnections();
          }
        },
      });
      expect(dropped).toBe(true);
      expect(result.content).toEqual([{ type: 'text', text: 'Report compiled in 6 steps.' }]);
      // Nothing lost and nothing repeated across the reconnection.
      expect(progress).toEqual([1, 2, 3, 4, 5, 6]);
      await peer.client.close();
      expect(peer.recorder.problems()).toEqual([]);
    });
  },
);
