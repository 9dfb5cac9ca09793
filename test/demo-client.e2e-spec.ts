import { ChildProcess, spawn, spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { INestApplication } from '@nestjs/common';
import { RunningServer, startDemoServer } from './support/demo-server';
import { createHttpApp } from './support/http-adapters';
import { ScriptedServer, startScriptedServer } from './support/scripted-mcp.server';
import { tasksModule } from './support/tasks-fixture';
import { browseAuthorization } from './support/oidc-as.fixture';
import { OAUTH_DEMO_TOOLS, useOAuthDemo } from './support/oauth-demo.process';

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

/** A CLI run in progress: its end, and each line it writes on stderr meanwhile. */
interface RunningCli {
  done: Promise<CliRun>;
  /** The first stderr line (so far or to come) that matches; rejects when the CLI ends without one. */
  stderrLine(pattern: RegExp): Promise<RegExpMatchArray>;
}

/** Starts `npm run client -- …` as `node scripts/start-app.js demo-client …`, with stdin not a terminal. */
function startCli(...args: string[]): RunningCli {
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
  const done = new Promise<CliRun>((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      started.delete(child);
      resolve({ code, stdout, stderr, group: child.pid! });
    });
  });
  const stderrLine = (pattern: RegExp) =>
    new Promise<RegExpMatchArray>((resolve, reject) => {
      const look = () => {
        const found = stderr
          .split('\n')
          .slice(0, -1)
          .map((line) => line.match(pattern))
          .find(Boolean);
        if (!found) return false;
        child.stderr!.off('data', look);
        resolve(found);
        return true;
      };
      if (look()) return;
      child.stderr!.on('data', look);
      void done.then((run) => reject(new Error(`The CLI ended (${run.code}) without ${pattern}: ${run.stderr}`)));
    });
  return { done, stderrLine };
}

function runCli(...args: string[]): Promise<CliRun> {
  return startCli(...args).done;
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

  it('refuses the OAuth options with a stdio server, and with --header Authorization (exit 2)', async () => {
    const stdio = await runCli('--oauth', '--', process.execPath, 'server.js', 'tools');
    expect(stdio).toEqual(expect.objectContaining({ code: 2, stdout: '' }));
    expect(stdio.stderr).toMatch(/--oauth, --client-id, --client-secret and --scope are for an HTTP server/);
    const both = await runCli('--client-id', 'c', '--header', 'Authorization=Bearer tok-xyz', server.url, 'tools');
    expect(both).toEqual(expect.objectContaining({ code: 2, stdout: '' }));
    expect(both.stderr).toMatch(/exclude each other/);
    expect(both.stderr).not.toContain('tok-xyz');
  });

  describe('--oauth, against the demo behind OAuth (npm run start:oauth) and its development authorization server', () => {
    const DEMO_USER = { user: 'demo', password: 'demo' };
    const demo = useOAuthDemo(60_000, 90_000);

    /** The authorization URL the CLI printed, and the redirect URI (its loopback listener) it names. */
    async function printedAuthorization(cli: RunningCli): Promise<{ url: URL; redirectUri: URL }> {
      const [, printed] = await cli.stderrLine(/^Open this URL to authorize: (\S+)$/);
      const url = new URL(printed);
      return { url, redirectUri: new URL(url.searchParams.get('redirect_uri')!) };
    }

    it('prints the authorization URL, gets the redirect on 127.0.0.1, and lists every tool', async () => {
      const cli = startCli('--oauth', demo.resource, 'tools');
      const { url, redirectUri } = await printedAuthorization(cli);
      expect(url.origin).toBe(demo.issuer);
      expect(redirectUri.href).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/callback$/);
      // A client of its own (dynamic registration), not the demo's pre-registered one; PKCE; the resource named.
      expect(url.searchParams.get('client_id')).not.toBe('conduit-demo');
      expect(url.searchParams.get('code_challenge_method')).toBe('S256');
      expect(url.searchParams.get('resource')).toBe(demo.resource);

      const callback = await browseAuthorization(demo.issuer, url, DEMO_USER);
      expect(`${callback.origin}${callback.pathname}`).toBe(redirectUri.href);
      const page = await fetch(callback);
      expect(page.status).toBe(200);
      expect(await page.text()).toContain('Authorization complete; you can close this window.');

      const tools = answerOf(await cli.done);
      expect(tools.map((tool: { name: string }) => tool.name).sort()).toEqual(OAUTH_DEMO_TOOLS);
      // The listener went with the CLI.
      await expect(fetch(callback)).rejects.toThrow();
    });

    it('--scope notes:read: asks for that scope only, and the notebook tools that need more are not listed', async () => {
      const cli = startCli('--scope', 'notes:read', demo.resource, 'tools');
      const { url } = await printedAuthorization(cli);
      expect(url.searchParams.get('scope')?.split(' ')).toContain('notes:read');
      expect(url.searchParams.get('scope')).not.toMatch(/notes:write|admin/);
      await fetch(await browseAuthorization(demo.issuer, url, DEMO_USER));
      const tools = answerOf(await cli.done);
      expect(tools.map((tool: { name: string }) => tool.name).sort()).toEqual([
        'forecast',
        'summarize_forecast',
        'weather_report',
      ]);
    });

    it('an authorization the person refuses: one error line, exit 1, nothing on stdout', async () => {
      // The era pinned: with auto, a failed server/discover probe falls back to initialize, which asks again.
      const cli = startCli('--era', 'modern', '--oauth', demo.resource, 'tools');
      const { url, redirectUri } = await printedAuthorization(cli);
      // What the authorization server sends back when the person says no.
      redirectUri.search = new URLSearchParams({
        error: 'access_denied',
        state: url.searchParams.get('state')!,
        iss: demo.issuer,
      }).toString();
      const page = await fetch(redirectUri);
      expect(await page.text()).toContain('Authorization not completed');
      const run = await cli.done;
      expect(run).toEqual(expect.objectContaining({ code: 1, stdout: '' }));
      expect(run.stderr.trim().split('\n').at(-1)).toMatch(/^error: .*access_denied/);
    });
  });

  describe('call --task, against a server with task tools', () => {
    let tasks: INestApplication;
    let url: string;

    beforeAll(async () => {
      tasks = await createHttpApp(tasksModule({ path: '/mcp' }), 'express');
      await tasks.listen(0, '127.0.0.1');
      url = `http://127.0.0.1:${(tasks.getHttpServer().address() as { port: number }).port}/mcp`;
    });

    afterAll(async () => {
      await tasks?.close();
    });

    it.each(['modern', 'legacy'])(
      '%s era: runs the tool as a task, logs each change of its status, prints its result',
      async (era) => {
        const run = await runCli('--era', era, url, 'call', 'confirm', 'file=notes.txt', '--task');
        // The question inside the task is declined: stdin is not a terminal.
        expect(answerOf(run).content).toEqual([{ type: 'text', text: 'kept notes.txt' }]);
        const statuses = [...run.stderr.matchAll(/task [0-9a-f]{8}… (\w+)/g)].map((line) => line[1]);
        expect(statuses).toEqual(['working', 'input_required', 'working', 'completed']);
      },
    );

    it('refuses --task for anything but call (exit 2)', async () => {
      const run = await runCli(url, 'tools', '--task');
      expect(run).toEqual(expect.objectContaining({ code: 2, stdout: '' }));
      expect(run.stderr).toMatch(/--task is for call/);
    });
  });

  describe('against a server that writes terminal escapes into everything it sends', () => {
    // ESC (ANSI sequences: clear screen, colours, a window-title OSC ended by BEL), C1 CSI, bidi overrides and
    // isolates, zero-width characters.
    const TERMINAL_CONTROL =
      /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200b-\u200f\u2028\u2029\u202a-\u202e\u2060\u2066-\u2069\ufeff]/;
    const EVIL_TOOL = '\u001b[31mred\u202etool';
    let hostile: ScriptedServer;

    beforeAll(async () => {
      hostile = await startScriptedServer({
        serverInfo: { name: '\u001b[2J\u001b[31mEvil\u202eServer', version: '1.0\u001b]0;pwned\u0007' },
        instructions: 'Use \u001b[1mbold\u001b[0m\u2066 tools\r\nnow \u009b31m',
        answer: (method) => {
          if (method === 'tools/list')
            return {
              result: {
                tools: [
                  {
                    name: EVIL_TOOL,
                    description: 'desc \u001b[5mblink\u001b[0m\r\n\u200bnext',
                    inputSchema: { type: 'object', properties: { '\u202eevil': { type: 'string' } } },
                  },
                  { name: 'fine_tool', description: 'plain', inputSchema: { type: 'object' } },
                ],
              },
            };
          return { error: { code: -32603, message: 'boom \u001b[31mred\u001b[0m \u202eevil\u0007' } };
        },
        before: (method) =>
          method === 'tools/call'
            ? [
                {
                  jsonrpc: '2.0',
                  method: 'notifications/message',
                  params: { level: 'info', logger: '\u001b[31mlog', data: 'line \u001b[2Jcleared\u202e' },
                },
              ]
            : [],
      });
    });

    afterAll(async () => {
      await hostile?.close();
    });

    it.each(['legacy', 'modern'])(
      'tools (%s era): prints no control, bidi or zero-width character, and flags the name outside the spec',
      async (era) => {
        const run = await runCli('--verbose', '--era', era, hostile.url, 'tools');
        expect(run.stdout).not.toMatch(TERMINAL_CONTROL);
        expect(run.stderr).not.toMatch(TERMINAL_CONTROL);
        // JSON.stringify alone would print ESC as the text \u001b, but U+202E and U+009B raw.
        expect(run.stdout).not.toContain('\\u001b');
        const tools = answerOf(run);
        expect(tools).toEqual([
          expect.objectContaining({
            name: '[31mredtool',
            description: 'desc [5mblink[0m\nnext',
            inputSchema: { type: 'object', properties: { evil: { type: 'string' } } },
            warning: "name outside the specification's rule (1-128 characters of A-Z a-z 0-9 _ . -); shown sanitized",
          }),
          { name: 'fine_tool', description: 'plain', inputSchema: { type: 'object' } },
        ]);
        expect(run.stderr).toContain('tool "[31mredtool": name outside the specification');
        expect(run.stderr).toContain('Connected to [2J[31mEvilServer 1.0]0;pwned');
        expect(run.stderr).toContain('Instructions: Use [1mbold[0m tools now 31m');
      },
    );

    it('call: the server’s log line and its error message are printed sanitized, on one line', async () => {
      const run = await runCli('--verbose', '--era', 'legacy', hostile.url, 'call', 'fine_tool');
      expect(run).toEqual(expect.objectContaining({ code: 1, stdout: '' }));
      expect(run.stderr).not.toMatch(TERMINAL_CONTROL);
      expect(run.stderr).toContain('info [31mlog: line [2Jcleared');
      expect(run.stderr).toMatch(/^error: boom \[31mred\[0m evil \(code -32603\)$/m);
    });
  });
});
