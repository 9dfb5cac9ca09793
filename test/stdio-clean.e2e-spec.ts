import { MODERN_META, ScenarioProcess } from './scenarios/scenario.process';
import { STDIO_APP } from './scenarios/stdio/stdio.app';

// The child runs on ts-node, which compiles the app and the libs at start.
jest.setTimeout(90_000);

describe('stdio: stdout carries nothing but protocol', () => {
  let server: ScenarioProcess;

  afterEach(() => server.stop());

  it("sends a tool's console output and process.stdout writes to stderr, uncoloured, and no HTTP-only warning", async () => {
    server = new ScenarioProcess(STDIO_APP);
    server.sendInitialize();
    server.send({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'noisy', arguments: {} } });
    server.send({
      jsonrpc: '2.0',
      id: 3,
      method: 'tools/call',
      params: { name: 'noisy', arguments: {}, _meta: MODERN_META },
    });
    expect(await server.response(2)).toMatchObject({ result: { content: [{ type: 'text', text: 'noisy done' }] } });
    expect(await server.response(3)).toMatchObject({ result: { content: [{ type: 'text', text: 'noisy done' }] } });
    server.child.stdin.end();
    expect((await server.exited).code).toBe(0);

    // Every line on stdout is a JSON-RPC message: the three responses, nothing else.
    const messages = server.lines.map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(messages.map((message) => [message.jsonrpc, message.id])).toEqual([
      ['2.0', 1],
      ['2.0', 2],
      ['2.0', 3],
    ]);
    for (const text of [
      'console.log while the app starts',
      'a warning while the app starts',
      'console.log from a tool',
      'console.info from a tool',
      'console.debug from a tool',
      "from: 'console.dir'",
      'console.table',
      'Trace: console.trace from a tool',
      'junk written to process.stdout',
      'Starting Nest application',
    ]) {
      expect(server.stderr).toContain(text);
    }
    expect(server.stderr).not.toContain('\x1b[');
    // The per-process requestState key matters to several instances behind one HTTP endpoint, never to stdio.
    expect(server.stderr).not.toContain('requestState');
  });
});
