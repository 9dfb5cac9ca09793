import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { ScenarioCommand, ScenarioProcess } from './scenarios/scenario.process';

const root = join(__dirname, '..');
const HEADING = '### Desktop clients (Claude Desktop, Cursor…)';
const PLACEHOLDER = '/absolute/path/to/conduit';
const START = [join(root, 'scripts', 'start-app.js'), 'demo-server', '--stdio'];

interface DesktopConfig {
  mcpServers: Record<string, { command: string; args: string[] }>;
}

/** The JSON block of the README's desktop-client subsection: the first code block after its heading, in the section. */
function readmeConfig(): DesktopConfig {
  const readme = readFileSync(join(root, 'README.md'), 'utf8');
  const start = readme.indexOf(`\n${HEADING}\n`);
  if (start < 0) throw new Error(`README.md has no "${HEADING}" subsection`);
  const section = readme.slice(start + HEADING.length + 2).split(/\n#{1,3} /)[0];
  const block = /^```json\n([\s\S]*?)\n```$/m.exec(section);
  if (!block) throw new Error(`README.md: no \`\`\`json block under "${HEADING}"`);
  return JSON.parse(block[1]) as DesktopConfig;
}

function isJsonRpc(line: string): boolean {
  try {
    const message = JSON.parse(line) as unknown;
    return typeof message === 'object' && message !== null && (message as { jsonrpc?: unknown }).jsonrpc === '2.0';
  } catch {
    return false;
  }
}

describe('the desktop-client configuration in the README', () => {
  let cwd: string;
  let server: ScenarioProcess | undefined;

  beforeAll(() => {
    // Builds the demo when its build is missing or stale, as the other stdio suites do; stdin is closed, so it exits.
    const warmup = spawnSync(process.execPath, START, { cwd: root, input: '', encoding: 'utf8', timeout: 170_000 });
    expect(warmup.status).toBe(0);
    cwd = mkdtempSync(join(tmpdir(), 'conduit-desktop-'));
  }, 180_000);

  afterAll(async () => {
    await server?.stop();
    rmSync(cwd, { recursive: true, force: true });
  });

  it('starts the demo server as written, from a directory outside the repository, and it serves MCP on stdio', async () => {
    const servers = Object.values(readmeConfig().mcpServers);
    expect(servers).toHaveLength(1);
    const [{ command, args }] = servers;
    expect(args.some((arg) => arg.startsWith(`${PLACEHOLDER}/`))).toBe(true);
    expect(relative(root, cwd).startsWith('..')).toBe(true);

    const run: ScenarioCommand = {
      command,
      args: args.map((arg) => (arg.startsWith(`${PLACEHOLDER}/`) ? root + arg.slice(PLACEHOLDER.length) : arg)),
      cwd,
    };
    server = new ScenarioProcess(run);
    server.sendInitialize();
    server.send({ jsonrpc: '2.0', id: 2, method: 'tools/list' });

    expect(await server.response(1, 20_000)).toMatchObject({
      jsonrpc: '2.0',
      result: { protocolVersion: '2025-11-25', capabilities: { tools: {} } },
    });
    const listed = await server.response(2);
    const tools = (listed.result as { tools: Array<{ name: string }> }).tools;
    expect(tools.length).toBeGreaterThan(0);

    // End of stdin: the server exits, and everything it wrote on stdout is in `lines`.
    server.child.stdin.end();
    expect((await server.exited).code).toBe(0);
    expect(server.lines.filter((line) => !isJsonRpc(line))).toEqual([]);
    const answered = server.messages().filter((message) => 'id' in message && !('method' in message));
    expect(answered.map((message) => message.id)).toEqual([1, 2]);
  });
});
