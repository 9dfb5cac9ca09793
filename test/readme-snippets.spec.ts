import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { PeerProcess, spawnHttpPeer } from './support/client-peer.process';
import { WrittenSnippet, typeCheckSnippets } from './support/snippet.compiler';

// Plain CommonJS, shared with the packaging test (test/packaging/run.js).
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { writeSnippets } = require('./packaging/readme-snippets') as {
  writeSnippets(outDir: string, files?: string[]): WrittenSnippet[];
};

const root = join(__dirname, '..');
const EXTRACTOR = join(__dirname, 'packaging', 'readme-snippets.js');
const RUNNER = join(__dirname, 'support', 'snippet.runner.cjs');

describe('README snippets', () => {
  let dir: string;
  let snippets: WrittenSnippet[];

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'conduit-snippets-'));
    // Outside the repository, a snippet resolves its imports the way a reader's app does: through node_modules.
    symlinkSync(join(root, 'node_modules'), join(dir, 'node_modules'), 'junction');
    snippets = writeSnippets(join(dir, 'snippets'));
  });

  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('type-checks every ```ts block of README.md and docs/ against the libs, as a module of its own', () => {
    expect(snippets.length).toBeGreaterThan(0);
    expect(typeCheckSnippets(snippets)).toEqual([]);
  });

  describe('the first example ("A first tool"), run as written', () => {
    let server: PeerProcess | undefined;
    let client: Client | undefined;

    afterAll(async () => {
      await client?.close();
      await server?.stop();
    });

    it('serves greet: a validated DTO in, a text block out', async () => {
      const first = snippets.find((s) => s.name === 'readme-1')!;
      server = await spawnHttpPeer(RUNNER, [first.path], 30_000);
      client = new Client({ name: 'readme-snippets', version: '1.0.0' });
      await client.connect(new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${server.port}/mcp`)));

      const greeted = await client.callTool({ name: 'greet', arguments: { name: 'Ada' } });
      expect(greeted).toEqual({ content: [{ type: 'text', text: 'Hello, Ada!' }] });
      const refused = await client.callTool({ name: 'greet', arguments: { name: '' } });
      expect(refused.isError).toBe(true);
    }, 60_000);
  });

  describe('the extractor (test/packaging/readme-snippets.js)', () => {
    const markdown = [
      '# Doc',
      '',
      '<!-- snippet:',
      "import { McpTool } from '@conduit-mcp/server';",
      '-->',
      '',
      '```ts',
      'export const tool = McpTool;',
      '```',
      '',
      '```bash',
      'npm test',
      '```',
      '',
      '- a list item:',
      '',
      '  <!-- snippet: declare const n: number; -->',
      '  ```typescript',
      '  export const twice = n * 2;',
      '  ```',
      '',
      '<!-- an ordinary comment -->',
      '```ts',
      'export const plain = 1;',
      '```',
      '',
    ].join('\n');

    it('writes each ts block, its hidden prelude first, and says where it comes from', () => {
      const file = join(dir, 'guide.md');
      writeFileSync(file, markdown);
      const out = join(dir, 'extracted');
      const run = spawnSync(process.execPath, [EXTRACTOR, out, file], { cwd: dir, encoding: 'utf8' });

      expect(run.status).toBe(0);
      expect(run.stdout.trim().split('\n')).toEqual([
        `${join(out, 'guide-1.ts')}\tguide.md:8`,
        `${join(out, 'guide-2.ts')}\tguide.md:19`,
        `${join(out, 'guide-3.ts')}\tguide.md:24`,
      ]);
      expect(readFileSync(join(out, 'guide-1.ts'), 'utf8')).toBe(
        "import { McpTool } from '@conduit-mcp/server';\nexport const tool = McpTool;\n",
      );
      expect(readFileSync(join(out, 'guide-2.ts'), 'utf8')).toBe(
        'declare const n: number;\nexport const twice = n * 2;\n',
      );
      expect(readFileSync(join(out, 'guide-3.ts'), 'utf8')).toBe('export const plain = 1;\n');
    });

    it('maps each code line back to its Markdown line, prelude included', () => {
      const file = join(dir, 'guide.md');
      writeFileSync(file, markdown);
      const [first, second] = writeSnippets(join(dir, 'mapped'), [file]);

      expect(first.lines).toEqual([4, 8]);
      expect(second.lines).toEqual([17, 19]);
    });
  });
});
