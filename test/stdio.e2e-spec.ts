import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { spawn, spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { answeringClient } from './support/sdk-client';
import { interopScenarios } from './support/interop.scenarios';

const root = join(__dirname, '..');

const START = [join(root, 'scripts', 'start-app.js'), 'demo-server', '--stdio'];

describe('stdio: the demo server as a child process, with the official SDK 1.x client', () => {
  beforeAll(() => {
    // Builds the demo once (when stale) so each test's child starts quickly; stdin is closed, so it then exits.
    const warmup = spawnSync(process.execPath, START, { cwd: root, input: '', encoding: 'utf8', timeout: 170_000 });
    expect(warmup.status).toBe(0);
  }, 180_000);

  it('writes nothing but JSON-RPC on stdout, logs on stderr, and exits when stdin closes', async () => {
    const child = spawn(process.execPath, START, { cwd: root, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => (stdout += chunk));
    child.stderr.on('data', (chunk) => (stderr += chunk));
    const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
    const send = (message: object) => child.stdin.write(`${JSON.stringify(message)}\n`);
    send({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
    });
    send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    send({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'forecast', arguments: { city: 'Oslo' } } });
    child.stdin.write('not json\n');
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    child.stdin.end();
    expect(await exited).toBe(0);
    const lines = stdout
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line));
    // The parse error is answered at once, the requests when their handlers finish: order is not fixed.
    expect(lines).toHaveLength(3);
    expect(lines).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ id: 1, result: expect.objectContaining({ protocolVersion: '2025-11-25' }) }),
        expect.objectContaining({
          id: 2,
          result: expect.objectContaining({ structuredContent: expect.objectContaining({ city: 'Oslo' }) }),
        }),
        { jsonrpc: '2.0', error: expect.objectContaining({ code: -32700 }) },
      ]),
    );
    expect(stderr).toMatch(/MCP server "conduit-demo"/);
  }, 30_000);

  interopScenarios({
    sessions: true,
    serverRequests: true,
    connect: async () => {
      const peer = answeringClient();
      const transport = new StdioClientTransport({
        command: process.execPath,
        args: START,
        cwd: root,
        stderr: 'pipe',
      });
      await peer.client.connect(peer.recorder.tap(transport));
      return peer;
    },
  });
});
