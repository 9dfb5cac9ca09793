import { ChildProcess, spawn, spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { RunningServer, startDemoServer } from './support/demo-server';

const root = join(__dirname, '..');
const START_APP = join(root, 'scripts', 'start-app.js');
const CLI_TIMEOUT_MS = 30_000;

interface CliRun {
  code: number | null;
  stdout: string;
  stderr: string;
  /** The CLI's process group: the CLI and whatever it spawned. */
  group: number;
}

const started = new Set<ChildProcess>();

function killGroup(pid: number | undefined): void {
  try {
    if (pid) process.kill(-pid, 'SIGKILL');
  } catch {
    // the group is gone already
  }
}

/** Runs `npm run client -- …` as `node scripts/start-app.js demo-client …`, with stdin not a terminal. */
function runCli(...args: string[]): Promise<CliRun> {
  // Its own process group, so that a stuck run is stopped with everything it spawned.
  const child = spawn(process.execPath, [START_APP, 'demo-client', ...args], {
    cwd: root,
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  started.add(child);
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (chunk) => (stdout += chunk));
  child.stderr!.on('data', (chunk) => (stderr += chunk));
  const timer = setTimeout(() => killGroup(child.pid), CLI_TIMEOUT_MS);
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      started.delete(child);
      resolve({ code, stdout, stderr, group: child.pid! });
    });
  });
}

/** The JSON the CLI printed: stdout must hold nothing else. */
function answerOf(run: CliRun): any {
  if (run.code !== 0) throw new Error(`the CLI exited with ${run.code}: ${run.stderr}`);
  return JSON.parse(run.stdout);
}

function groupAlive(group: number): boolean {
  try {
    process.kill(-group, 0);
    return true;
  } catch {
    return false;
  }
}

describe('demo-client: the command-line client as a child process', () => {
  let server: RunningServer;

  beforeAll(async () => {
    // Builds both apps once (when stale), so that each run below starts quickly; `--help` and a closed stdin exit at once.
    for (const warmup of [
      [START_APP, 'demo-client', '--help'],
      [START_APP, 'demo-server', '--stdio'],
    ]) {
      const built = spawnSync(process.execPath, warmup, { cwd: root, input: '', encoding: 'utf8', timeout: 170_000 });
      expect(built.status).toBe(0);
    }
    server = await startDemoServer();
  }, 360_000);

  afterEach(() => {
    for (const child of started) killGroup(child.pid);
    started.clear();
  });

  afterAll(async () => {
    await server?.close();
  });

  it('tools: prints the tool list as JSON on stdout', async () => {
    const tools = answerOf(await runCli(server.url, 'tools'));
    expect(tools.map((tool: { name: string }) => tool.name)).toEqual(
      expect.arrayContaining(['forecast', 'delete_note', 'summarize_forecast']),
    );
  });

  it('call forecast city=Oslo days=2: key=value arguments, JSON values parsed (days is a number)', async () => {
    const result = answerOf(await runCli(server.url, 'call', 'forecast', 'city=Oslo', 'days=2'));
    expect(result.isError).toBeUndefined();
    expect(result.structuredContent).toEqual(expect.objectContaining({ city: 'Oslo' }));
    expect(result.structuredContent.days).toHaveLength(2);
  });

  it('read notes://index: prints the resource contents', async () => {
    const result = answerOf(await runCli(server.url, 'read', 'notes://index'));
    expect(result.contents[0]).toEqual(expect.objectContaining({ uri: 'notes://index', mimeType: 'application/json' }));
    expect(JSON.parse(result.contents[0].text)).toEqual(
      expect.arrayContaining([expect.objectContaining({ id: 'welcome' })]),
    );
  });

  it('prompts: prints the prompt list', async () => {
    const prompts = answerOf(await runCli(server.url, 'prompts'));
    expect(prompts).toEqual(expect.arrayContaining([expect.objectContaining({ name: 'trip_brief' })]));
  });

  it('-- command args…: spawns a stdio server, lists its tools, and stops it on exit', async () => {
    const run = await runCli('--', 'node', 'scripts/start-app.js', 'demo-server', '--stdio', 'tools');
    expect(answerOf(run).map((tool: { name: string }) => tool.name)).toContain('forecast');
    expect(groupAlive(run.group)).toBe(false); // no server left behind
  });

  it.each(['modern', 'legacy'])(
    'declines elicitation when stdin is not a terminal (%s era): delete_note keeps the note',
    async (era) => {
      const run = await runCli('--era', era, server.url, 'call', 'delete_note', 'id=welcome');
      expect(answerOf(run).content).toEqual([{ type: 'text', text: 'Kept the note.' }]);
      expect(run.stderr).toMatch(/Declined "Delete the note "Welcome"\?"/);
      const index = answerOf(await runCli(server.url, 'read', 'notes://index'));
      expect(JSON.parse(index.contents[0].text)).toEqual(
        expect.arrayContaining([expect.objectContaining({ id: 'welcome' })]),
      );
    },
  );

  it('refuses sampling unless told how, and answers with --sample-with as the model "cli-fixed"', async () => {
    const refused = await runCli(server.url, 'call', 'summarize_forecast', 'city=Oslo');
    expect(refused.code).toBe(1);
    expect(refused.stdout).toBe('');
    expect(refused.stderr).toMatch(/error: .*capability/i);
    const answered = answerOf(
      await runCli('--sample-with', 'Mild and dry.', server.url, 'call', 'summarize_forecast', 'city=Oslo'),
    );
    expect(answered.content[0].text).toBe('Mild and dry. (model: cli-fixed)');
  });

  it('--header NAME=VALUE: sends the header to a server that needs one; without it, one clear error line and exit 1', async () => {
    const guarded = await startDemoServer({
      authenticator: {
        authenticate: (facts) =>
          facts.headers['x-api-key'] === 'k-123'
            ? { ok: true, auth: { subject: 'cli', scopes: [], claims: {} } }
            : { ok: false, status: 401, challenge: 'ApiKey' },
      },
    });
    try {
      const refused = await runCli(guarded.url, 'tools');
      expect(refused).toEqual(expect.objectContaining({ code: 1, stdout: '' }));
      expect(refused.stderr.trim().split('\n')).toHaveLength(1);
      expect(refused.stderr).toMatch(/^error: .*HTTP 401/);
      const tools = answerOf(await runCli('--header', 'X-Api-Key=k-123', guarded.url, 'tools'));
      expect(tools.map((tool: { name: string }) => tool.name)).toContain('forecast');
    } finally {
      await guarded.close();
    }
  });

  it('refuses --header for a stdio server, and a header that is not NAME=VALUE', async () => {
    const stdio = await runCli('--header', 'A=b', '--', process.execPath, 'server.js', 'tools');
    expect(stdio).toEqual(expect.objectContaining({ code: 2, stdout: '' }));
    expect(stdio.stderr).toMatch(/--header is for an HTTP server/);
    const malformed = await runCli('--header', 'no value', server.url, 'tools');
    expect(malformed.code).toBe(2);
    expect(malformed.stderr).toMatch(/--header needs NAME=VALUE/);
  });

  it('a server that is not there: one line naming the URL and the cause, exit 1', async () => {
    const gone = await startDemoServer();
    const url = gone.url;
    await gone.close();
    const run = await runCli(url, 'tools');
    expect(run).toEqual(expect.objectContaining({ code: 1, stdout: '' }));
    expect(run.stderr.trim()).toMatch(
      new RegExp(
        `^error: .*Cannot reach the MCP server at ${url.replace(/[.]/g, '\\.')}: connection refused \\(ECONNREFUSED\\)$`,
      ),
    );
  });

  it('refuses a bad command line with exit code 2 and nothing on stdout', async () => {
    const run = await runCli(server.url, 'call');
    expect(run).toEqual(expect.objectContaining({ code: 2, stdout: '' }));
    expect(run.stderr).toMatch(/call needs a tool name/);
  });
});
