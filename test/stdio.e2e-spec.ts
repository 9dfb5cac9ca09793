import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { join } from 'node:path';
import { answeringClient } from './support/sdk-client';
import { interopScenarios } from './support/interop.scenarios';

const root = join(__dirname, '..');

describe('stdio: the demo server as a child process, with the official SDK 1.x client', () => {
  interopScenarios({
    sessionNotifications: true,
    serverRequests: true,
    connect: async () => {
      const peer = answeringClient();
      const transport = new StdioClientTransport({
        command: process.execPath,
        args: [join(root, 'scripts', 'start-app.js'), 'demo-server', '--stdio'],
        cwd: root,
        stderr: 'pipe',
      });
      await peer.client.connect(peer.recorder.tap(transport));
      return peer;
    },
  });
});
