import path from 'node:path';
import { MessageTooLargeError, ServerExitedError } from '../../libs/client/src/transports/client-transport.errors';
import { INHERITED_ENV_VARS, inheritedEnvironment } from '../../libs/client/src/transports/inherited-environment';
import { StdioClientTransport } from '../../libs/client/src/transports/stdio-client.transport';
import { Recorder, initializeRequest, initializedNotification, waitFor } from './transport-test.fixtures';

const ROOT = path.resolve(__dirname, '../..');

// A tiny server: answers each line by method; see the cases below.
const ECHO_SERVER = `
const rl = require('node:readline').createInterface({ input: process.stdin });
const out = (m) => process.stdout.write(JSON.stringify(m) + '\\n');
rl.on('line', (line) => {
  const m = JSON.parse(line);
  switch (m.method) {
    case 'env':
      return out({ jsonrpc: '2.0', id: m.id, result: { secret: process.env.CONDUIT_TRANSPORT_SECRET ?? null, added: process.env.ADDED ?? null, home: process.env.HOME ?? null, nodeOptions: process.env.NODE_OPTIONS ?? null } });
    case 'garbage':
      process.stdout.write('this is not json\\n');
      return out({ jsonrpc: '2.0', id: m.id, result: {} });
    case 'huge':
      process.stdout.write('{"jsonrpc":"2.0","method":"huge","params":{"s":"' + 'a'.repeat(10 * 1024 * 1024) + '"}}\\n');
      return out({ jsonrpc: '2.0', id: m.id, result: { after: true } });
    case 'stderr':
      process.stderr.write('x'.repeat(100 * 1024) + '\\nfirst line\\nsecond line\\n');
      return out({ jsonrpc: '2.0', id: m.id, result: {} });
    case 'argv':
      return out({ jsonrpc: '2.0', id: m.id, result: { argv: process.argv.slice(1) } });
    case 'exit':
      return process.exit(3);
    default:
      return out({ jsonrpc: '2.0', id: m.id, result: { echo: m.params ?? null, size: line.length } });
  }
});
`;

const echoServer = () => new StdioClientTransport({ command: process.execPath, args: ['-e', ECHO_SERVER] });

describe('StdioClientTransport', () => {
  const open: StdioClientTransport[] = [];
  const track = (transport: StdioClientTransport) => (open.push(transport), transport);

  afterEach(async () => {
    await Promise.all(open.splice(0).map((transport) => transport.close()));
  });

  it('exchanges JSON lines with the child and closes it by ending its stdin', async () => {
    const transport = track(echoServer());
    const recorder = new Recorder(transport);
    await transport.start();
    await transport.send({ jsonrpc: '2.0', id: 1, method: 'hello', params: { text: 'é😀\u2028' } });
    expect(await recorder.response(1)).toEqual({
      jsonrpc: '2.0',
      id: 1,
      result: { echo: { text: 'é😀\u2028' }, size: expect.any(Number) },
    });
    const started = Date.now();
    await transport.close();
    expect(Date.now() - started).toBeLessThan(1_500);
    expect(transport.exitCode).toBe(0);
    expect(recorder.closes).toBe(1);
    await transport.close();
    expect(recorder.closes).toBe(1);
    await expect(transport.send({ jsonrpc: '2.0', method: 'late' })).rejects.toThrow('not open');
  });

  it('gives the child only the safelisted environment plus config.env', async () => {
    process.env.CONDUIT_TRANSPORT_SECRET = 'hunter2';
    process.env.NODE_OPTIONS = '--max-old-space-size=200';
    try {
      const transport = track(
        new StdioClientTransport({ command: process.execPath, args: ['-e', ECHO_SERVER], env: { ADDED: 'yes' } }),
      );
      const recorder = new Recorder(transport);
      await transport.start();
      await transport.send({ jsonrpc: '2.0', id: 1, method: 'env' });
      expect((await recorder.response(1)).result).toEqual({
        secret: null,
        added: 'yes',
        home: process.env.HOME ?? null,
        nodeOptions: null,
      });
    } finally {
      delete process.env.CONDUIT_TRANSPORT_SECRET;
      delete process.env.NODE_OPTIONS;
    }
  });

  it('builds the environment from the safelist only, skipping exported shell functions', () => {
    const env = inheritedEnvironment({
      PATH: '/bin',
      HOME: '/home/u',
      AWS_SECRET_ACCESS_KEY: 'k',
      SHELL: '() { :; }; echo pwned',
    });
    expect(env).toEqual({ PATH: '/bin', HOME: '/home/u' });
    expect(INHERITED_ENV_VARS).not.toContain('NODE_OPTIONS');
  });

  it('spawns without a shell', async () => {
    const transport = track(
      new StdioClientTransport({
        command: process.execPath,
        args: ['-e', ECHO_SERVER, '$(echo injected)', '; exit 9'],
      }),
    );
    const recorder = new Recorder(transport);
    await transport.start();
    await transport.send({ jsonrpc: '2.0', id: 1, method: 'argv' });
    expect((await recorder.response(1)).result.argv).toEqual(['$(echo injected)', '; exit 9']);
  });

  it('rejects start() clearly when the command does not exist, and never fires onclose', async () => {
    const transport = track(new StdioClientTransport({ command: 'conduit-no-such-command-xyz' }));
    const recorder = new Recorder(transport);
    await expect(transport.start()).rejects.toThrow(
      'Cannot start MCP server "conduit-no-such-command-xyz": spawn conduit-no-such-command-xyz ENOENT',
    );
    await transport.close();
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(recorder.closes).toBe(0);
  });

  it('reports a stdout line that is not JSON through onerror, not onmessage', async () => {
    const transport = track(echoServer());
    const recorder = new Recorder(transport);
    await transport.start();
    await transport.send({ jsonrpc: '2.0', id: 1, method: 'garbage' });
    await recorder.response(1);
    expect(recorder.messages).toHaveLength(1);
    expect(recorder.errors.map((e) => e.message)).toEqual(['The server wrote a stdout line that is not JSON']);
  });

  it('drops a stdout line over 10 MiB, reports it, and goes on with the next line', async () => {
    const transport = track(echoServer());
    const recorder = new Recorder(transport);
    await transport.start();
    await transport.send({ jsonrpc: '2.0', id: 1, method: 'huge' });
    expect(await recorder.response(1, 15_000)).toEqual({ jsonrpc: '2.0', id: 1, result: { after: true } });
    expect(recorder.messages).toHaveLength(1);
    expect(recorder.errors).toHaveLength(1);
    expect(recorder.errors[0]).toBeInstanceOf(MessageTooLargeError);
    expect(recorder.errors[0].message).toBe('Message from the server exceeds 10485760 bytes; dropped');
  });

  it('keeps the last 64 KiB of stderr and hands each stderr line to onstderr', async () => {
    const transport = track(echoServer());
    const lines: string[] = [];
    transport.onstderr = (line) => lines.push(line);
    const recorder = new Recorder(transport);
    await transport.start();
    await transport.send({ jsonrpc: '2.0', id: 1, method: 'stderr' });
    await recorder.response(1);
    await waitFor(() => lines.includes('second line'));
    // The 100 KiB line is over the line limit of the callback and is skipped; the ring keeps its tail.
    expect(lines).toEqual(['first line', 'second line']);
    expect(Buffer.byteLength(transport.stderr)).toBe(64 * 1024);
    expect(transport.stderr.endsWith('x\nfirst line\nsecond line\n')).toBe(true);
  });

  it('fires onclose once when the child exits by itself, with its exit code', async () => {
    const transport = track(echoServer());
    const recorder = new Recorder(transport);
    await transport.start();
    expect(transport.exitCode).toBeUndefined();
    await transport.send({ jsonrpc: '2.0', id: 1, method: 'exit' });
    await waitFor(() => recorder.closes === 1);
    expect(transport.exitCode).toBe(3);
    expect(transport.exitSignal).toBeNull();
    await expect(transport.send({ jsonrpc: '2.0', method: 'late' })).rejects.toThrow(
      `The MCP server "${process.execPath}" exited with code 3 and wrote nothing to stderr`,
    );
    await transport.close();
    expect(recorder.closes).toBe(1);
  });

  it('says how a child that ended on its own ended, quoting the last lines of its stderr (sanitized)', async () => {
    const dies = `process.stderr.write('starting\\n' + 'noise\\n'.repeat(20) + 'Error: missing \\u001b[31mconfig\\u001b[0m\\n    at main\\n'); process.exit(2)`;
    const transport = track(new StdioClientTransport({ command: process.execPath, args: ['-e', dies] }));
    const recorder = new Recorder(transport);
    await transport.start();
    await waitFor(() => recorder.closes === 1);
    const reason = transport.closeReason!;
    expect(reason).toBeInstanceOf(ServerExitedError);
    expect(reason).toMatchObject({ exitCode: 2, signal: null });
    expect(reason.message).toBe(
      `The MCP server "${process.execPath}" exited with code 2; the end of its stderr: noise | noise | noise | Error: missing [31mconfig[0m | at main`,
    );
    await expect(transport.send({ jsonrpc: '2.0', id: 1, method: 'ping' })).rejects.toBe(reason);
  });

  it('names the signal that ended a child, and gives no reason for a child it closed itself', async () => {
    const killed = track(
      new StdioClientTransport({ command: process.execPath, args: ['-e', "process.kill(process.pid, 'SIGTERM')"] }),
    );
    const recorder = new Recorder(killed);
    await killed.start();
    await waitFor(() => recorder.closes === 1);
    expect(killed.closeReason?.message).toMatch(/was ended by SIGTERM and wrote nothing to stderr$/);

    const closed = track(echoServer());
    await closed.start();
    await closed.close();
    expect(closed.closeReason).toBeUndefined();
  });

  it('sends SIGTERM to a child that ignores the end of its stdin', async () => {
    const transport = track(
      new StdioClientTransport({ command: process.execPath, args: ['-e', 'setInterval(() => {}, 1000)'] }),
    );
    await transport.start();
    const started = Date.now();
    await transport.close();
    const took = Date.now() - started;
    expect(transport.exitSignal).toBe('SIGTERM');
    expect(took).toBeGreaterThanOrEqual(1_900);
    expect(took).toBeLessThan(3_500);
  });

  it('sends SIGKILL to a child that also ignores SIGTERM', async () => {
    const transport = track(
      new StdioClientTransport({
        command: process.execPath,
        args: ['-e', "process.on('SIGTERM', () => {}); setInterval(() => {}, 1000); process.stderr.write('ready\\n')"],
      }),
    );
    const lines: string[] = [];
    transport.onstderr = (line) => lines.push(line);
    const recorder = new Recorder(transport);
    await transport.start();
    await waitFor(() => lines.includes('ready')); // the SIGTERM handler is installed
    const pid = transport.pid as number;
    const started = Date.now();
    await transport.close();
    const took = Date.now() - started;
    expect(transport.exitSignal).toBe('SIGKILL');
    expect(took).toBeGreaterThanOrEqual(3_900);
    expect(took).toBeLessThan(6_000);
    expect(recorder.closes).toBe(1);
    expect(() => process.kill(pid, 0)).toThrow(); // gone
  }, 15_000);

  it('waits for the pipe to drain when the child is slow to read', async () => {
    const transport = track(
      new StdioClientTransport({
        command: process.execPath,
        args: [
          '-e',
          "setTimeout(() => process.stdin.on('data', () => {}), 400); process.stdin.on('end', () => process.exit(0))",
        ],
      }),
    );
    await transport.start();
    let sent = false;
    const sending = transport
      .send({ jsonrpc: '2.0', method: 'big', params: { s: 'a'.repeat(4 * 1024 * 1024) } })
      .then(() => (sent = true));
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(sent).toBe(false);
    await sending;
    expect(sent).toBe(true);
  });

  describe('against the demo server (node scripts/start-app.js demo-server --stdio)', () => {
    let transport: StdioClientTransport;
    let recorder: Recorder;

    beforeAll(async () => {
      transport = new StdioClientTransport({
        command: process.execPath,
        args: ['scripts/start-app.js', 'demo-server', '--stdio'],
        cwd: ROOT,
      });
      recorder = new Recorder(transport);
      await transport.start();
      // The first start builds the app when its build is stale; a failed build ends the child early.
      await transport.send(initializeRequest(0));
      await Promise.race([
        recorder.response(0, 120_000),
        waitFor(() => recorder.closes > 0, 120_000).then(() =>
          Promise.reject(new Error(`The demo server exited:\n${transport.stderr}`)),
        ),
      ]);
    }, 130_000);

    afterAll(async () => {
      await transport.close();
    });

    it('initializes, lists tools and calls one with progress', async () => {
      expect(recorder.messages[0].result).toMatchObject({
        protocolVersion: '2025-11-25',
        serverInfo: { name: expect.any(String) },
      });
      await transport.send(initializedNotification);
      await transport.send({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} });
      const tools = (await recorder.response(1)).result.tools.map((tool: { name: string }) => tool.name);
      expect(tools).toEqual(expect.arrayContaining(['forecast', 'weather_report']));
      await transport.send({
        jsonrpc: '2.0',
        id: 2,
        method: 'tools/call',
        params: { name: 'weather_report', arguments: { steps: 3 }, _meta: { progressToken: 'p' } },
      });
      expect((await recorder.response(2)).result.content).toEqual([
        { type: 'text', text: 'Report compiled in 3 steps.' },
      ]);
      expect(recorder.notifications('notifications/progress').map((n) => n.params.progress)).toEqual([1, 2, 3]);
      expect(recorder.errors).toEqual([]);
    });

    it('stops the server (and its own child) on close', async () => {
      await transport.close();
      expect(transport.exitCode).toBe(0);
      expect(recorder.closes).toBe(1);
    });
  });
});
