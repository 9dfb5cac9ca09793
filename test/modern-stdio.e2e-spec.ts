import { ChildProcessWithoutNullStreams, spawn, spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { waitFor } from './support/interop.scenarios';
import { connectModernStdio } from './support/modern-client';
import { modernScenarios } from './support/modern.scenarios';
import { ROUNDS_STDIO } from './support/rounds-fixture.stdio';
import { WireSchema } from './support/wire-schema';

const root = join(__dirname, '..');
const START = [join(root, 'scripts', 'start-app.js'), 'demo-server', '--stdio'];
const DEMO = { command: process.execPath, args: START, cwd: root };
const MODERN = '2026-07-28';
const META = {
  'io.modelcontextprotocol/protocolVersion': MODERN,
  'io.modelcontextprotocol/clientInfo': { name: 'raw-stdio', version: '1' },
  'io.modelcontextprotocol/clientCapabilities': {},
};

// Each 2.x connect spawns two children (the SDK's discover probe runs on a sibling); the rounds fixture runs on ts-node.
jest.setTimeout(60_000);

/** The demo server as a bare child process: raw lines in, parsed lines out. */
class RawStdioServer {
  readonly lines: Array<Record<string, unknown>> = [];
  private readonly child: ChildProcessWithoutNullStreams;
  private readonly exited: Promise<number | null>;
  private buffer = '';

  constructor() {
    this.child = spawn(process.execPath, START, { cwd: root, stdio: ['pipe', 'pipe', 'pipe'] });
    this.exited = new Promise((resolve) => this.child.on('exit', resolve));
    this.child.stderr.resume();
    this.child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      this.buffer += chunk;
      let newline: number;
      while ((newline = this.buffer.indexOf('\n')) >= 0) {
        const line = this.buffer.slice(0, newline);
        this.buffer = this.buffer.slice(newline + 1);
        if (line.trim()) this.lines.push(JSON.parse(line));
      }
    });
  }

  /** Sends one request and resolves with its response, checked against the 2026-07-28 schema. */
  async request(id: number, method: string, params?: Record<string, unknown>): Promise<Record<string, unknown>> {
    this.child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id, method, ...(params ? { params } : {}) })}\n`);
    const deadline = Date.now() + 20_000;
    for (;;) {
      const response = this.lines.find((line) => line.id === id && !('method' in line));
      if (response) {
        expect(WireSchema.for(MODERN).check(response, method)).toEqual([]);
        return response;
      }
      if (Date.now() > deadline) throw new Error(`no response to ${method}`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }

  /** Ends stdin and waits for the exit; kills the child if it lingers. */
  async close(): Promise<number | null> {
    this.child.stdin.end();
    const timer = setTimeout(() => this.child.kill('SIGKILL'), 10_000);
    const code = await this.exited;
    clearTimeout(timer);
    return code;
  }
}

describe('stdio, modern era (2026-07-28): the demo server as a child process, with the official SDK 2.x client', () => {
  beforeAll(() => {
    // Builds the demo once (when stale) so each test's children start quickly; stdin is closed, so it then exits.
    const warmup = spawnSync(process.execPath, START, { cwd: root, input: '', encoding: 'utf8', timeout: 170_000 });
    expect(warmup.status).toBe(0);
  }, 180_000);

  modernScenarios({
    transport: 'stdio',
    connect: (options) => connectModernStdio(DEMO, options),
    connectRounds: (options) => connectModernStdio(ROUNDS_STDIO, options),
    handlerAborted: (rounds, requestId) =>
      waitFor(() => rounds.stderr.includes(`handler aborted: ${JSON.stringify(requestId)}`)),
  });

  describe('the envelope of a modern request (raw lines)', () => {
    let server: RawStdioServer;

    beforeEach(() => {
      server = new RawStdioServer();
    });

    afterEach(async () => {
      expect(await server.close()).toBe(0);
      expect(server.lines.filter((line) => 'method' in line && 'id' in line)).toEqual([]);
    });

    it('answers server/discover without initialize', async () => {
      const response = await server.request(1, 'server/discover', { _meta: META });
      expect(response.result).toMatchObject({
        resultType: 'complete',
        supportedVersions: expect.arrayContaining([MODERN, '2025-11-25']),
        _meta: { 'io.modelcontextprotocol/serverInfo': { name: 'conduit-demo' } },
      });
    });

    it('refuses a request without the required _meta fields with -32602', async () => {
      const response = await server.request(2, 'tools/list', {
        _meta: { 'io.modelcontextprotocol/protocolVersion': MODERN },
      });
      expect(response).toMatchObject({ id: 2, error: { code: -32602 } });
    });

    it('refuses an unsupported version with -32022, listing the supported ones', async () => {
      const response = await server.request(3, 'tools/list', {
        _meta: { ...META, 'io.modelcontextprotocol/protocolVersion': '1900-01-01' },
      });
      expect(response).toMatchObject({
        id: 3,
        error: {
          code: -32022,
          data: { requested: '1900-01-01', supported: expect.arrayContaining([MODERN, '2025-11-25']) },
        },
      });
    });

    it('refuses server/discover itself at an unsupported version with -32022, so a probing client does not fall back', async () => {
      const response = await server.request(31, 'server/discover', {
        _meta: { ...META, 'io.modelcontextprotocol/protocolVersion': '1900-01-01' },
      });
      expect(response).toMatchObject({
        id: 31,
        error: { code: -32022, data: { requested: '1900-01-01', supported: expect.arrayContaining([MODERN]) } },
      });
    });

    it('answers an unknown method, and those removed in 2026-07-28, with -32601', async () => {
      expect(await server.request(4, 'no/such/method', { _meta: META })).toMatchObject({
        id: 4,
        error: { code: -32601 },
      });
      expect(await server.request(5, 'ping', { _meta: META })).toMatchObject({ id: 5, error: { code: -32601 } });
      expect(await server.request(51, 'logging/setLevel', { _meta: META, level: 'info' })).toMatchObject({
        id: 51,
        error: { code: -32601 },
      });
      expect(await server.request(52, 'resources/subscribe', { _meta: META, uri: 'notes://index' })).toMatchObject({
        id: 52,
        error: { code: -32601 },
      });
    });

    it('serves modern requests statelessly: each carries its own capabilities', async () => {
      // One request declares elicitation, the next does not: the second must not be asked for it.
      const asked = await server.request(6, 'tools/call', {
        _meta: { ...META, 'io.modelcontextprotocol/clientCapabilities': { elicitation: { form: {} } } },
        name: 'delete_note',
        arguments: { id: 'welcome' },
      });
      expect(asked.result).toMatchObject({
        resultType: 'input_required',
        inputRequests: { confirm: { method: 'elicitation/create' } },
      });
      const refused = await server.request(7, 'tools/call', {
        _meta: META,
        name: 'delete_note',
        arguments: { id: 'welcome' },
      });
      expect(refused).toMatchObject({ id: 7, error: { code: -32021 } });
    });
  });
});
