#!/usr/bin/env node
// The packaging test (`npm run test:packaging`, a step of .ci/run): what a Nest developer outside this repository
// gets. Packs every lib with `npm pack` (its prepack builds dist/), then in a temporary folder outside the repository
// makes two apps from test/packaging/apps/ and installs the tarballs and their peers into them with npm, as the
// README's Install section says:
//   cjs  a CommonJS Nest 11 app: a server (a DTO tool, a resource template, a prompt, a guard, Terminus health)
//        answered over HTTP by the official SDK client; a client app (McpClientModule with an @OnElicitation
//        handler) against it; @conduit-mcp/server/testing used in process; every README TypeScript example; OAuth
//        options refused with an install hint without the optional peer oauth4webapi.
//   esm  an ECMAScript-module app ("type": "module") importing @conduit-mcp/server, without the DTO packages; JWT
//        access tokens refused with an install hint without the optional peer jose.
// Each compiles with tsc, strict, skipLibCheck off: any error in the app or in our packages' declarations fails the
// test (an error inside a third-party package's own declarations is reported, not ours to fix). `--keep` keeps the
// temporary folder.
'use strict';
const { spawn, spawnSync } = require('node:child_process');
const fs = require('node:fs');
const net = require('node:net');
const os = require('node:os');
const path = require('node:path');
const { defaultMarkdownFiles, extractSnippets } = require('./readme-snippets');

const ROOT = path.resolve(__dirname, '..', '..');
const LIBS = ['core', 'server', 'client', 'redis', 'metrics'];
const keep = process.argv.includes('--keep');
const work = fs.mkdtempSync(path.join(os.tmpdir(), 'conduit-packaging-'));
const children = new Set();
const started = Date.now();

const log = (...args) => console.log(`[packaging +${((Date.now() - started) / 1000).toFixed(0)}s]`, ...args);

/** The version of `name` this repository tests with (its installed copy): the apps get exactly that. */
function testedVersion(name) {
  return JSON.parse(fs.readFileSync(path.join(ROOT, 'node_modules', name, 'package.json'), 'utf8')).version;
}

function run(command, args, options = {}) {
  const result = spawnSync(command, args, {
    encoding: 'utf8',
    timeout: options.timeoutMs ?? 300_000,
    maxBuffer: 64 * 1024 * 1024,
    ...options,
    env: { ...process.env, ...options.env },
  });
  if (result.error) throw new Error(`${command} ${args.join(' ')}: ${result.error.message}`);
  return result;
}

function runOk(command, args, options) {
  const result = run(command, args, options);
  if (result.status !== 0) {
    throw new Error(
      `${command} ${args.join(' ')} exited with ${result.status ?? result.signal}:\n${result.stdout}\n${result.stderr}`.trim(),
    );
  }
  return result;
}

function check(condition, message) {
  if (!condition) throw new Error(message);
}

// 1. The tarballs.
function pack() {
  const into = path.join(work, 'tarballs');
  fs.mkdirSync(into);
  const args = ['pack', '--json', '--pack-destination', into, ...LIBS.flatMap((lib) => ['--workspace', `libs/${lib}`])];
  const packed = JSON.parse(runOk('npm', args, { cwd: ROOT }).stdout);
  const tarballs = {};
  for (const entry of packed) {
    const lib = entry.name.replace('@conduit-mcp/', '');
    const files = entry.files.map((file) => file.path);
    for (const needed of ['package.json', 'LICENSE', 'README.md', 'dist/index.js', 'dist/index.d.ts'])
      check(files.includes(needed), `${entry.name}: the tarball lacks ${needed}`);
    const stray = files.filter((file) => !/^(package\.json|LICENSE|README\.md|dist\/.*\.(js|d\.ts|map))$/.test(file));
    check(stray.length === 0, `${entry.name}: the tarball holds files it should not: ${stray.slice(0, 5).join(', ')}`);
    check(!files.some((file) => /\.spec\./.test(file)), `${entry.name}: the tarball holds specs`);
    tarballs[lib] = path.join(into, entry.filename);
    log(`packed ${entry.filename}: ${files.length} files, ${(entry.size / 1024).toFixed(0)} KiB`);
  }
  check(
    LIBS.every((lib) => tarballs[lib]),
    `npm pack made ${Object.keys(tarballs).join(', ')}`,
  );
  return tarballs;
}

// 2. An app: its sources from test/packaging/apps/<name>, a package.json of the tarballs and peers, npm install.
function makeApp(name, tarballs, { type, dependencies, devDependencies }) {
  const dir = path.join(work, name);
  fs.cpSync(path.join(__dirname, 'apps', name), dir, { recursive: true });
  const ours = Object.fromEntries(dependencies.ours.map((lib) => [`@conduit-mcp/${lib}`, `file:${tarballs[lib]}`]));
  const versions = (names) => Object.fromEntries(names.map((dep) => [dep, testedVersion(dep)]));
  const manifest = {
    name: `conduit-packaging-${name}`,
    version: '1.0.0',
    private: true,
    ...(type ? { type } : {}),
    dependencies: { ...ours, ...versions(dependencies.theirs) },
    devDependencies: versions(devDependencies),
    // The libs' own dependencies on @conduit-mcp/core and /server are registry versions: this run's tarballs stand
    // for them.
    overrides: { '@conduit-mcp/core': `file:${tarballs.core}`, '@conduit-mcp/server': `file:${tarballs.server}` },
  };
  fs.writeFileSync(path.join(dir, 'package.json'), `${JSON.stringify(manifest, null, 2)}\n`);
  log(`${name}: npm install`);
  runOk('npm', ['install', '--no-audit', '--no-fund', '--prefer-offline', '--loglevel=error'], {
    cwd: dir,
    timeoutMs: 600_000,
  });
  return dir;
}

// 3. tsc: errors in the app or in our packages fail; errors inside other packages' declarations are only reported.
function compile(dir) {
  const tsc = path.join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc');
  const result = run(process.execPath, [tsc, '-p', dir, '--pretty', 'false'], { cwd: dir });
  const errors = `${result.stdout}${result.stderr}`.split('\n').filter((line) => /error TS\d+/.test(line));
  const ours = errors.filter(
    (line) => !line.startsWith('node_modules/') || line.startsWith('node_modules/@conduit-mcp/'),
  );
  const theirs = errors.length - ours.length;
  if (theirs) log(`${path.basename(dir)}: ${theirs} type error(s) inside third-party declarations (not ours)`);
  check(ours.length === 0, `${path.basename(dir)} does not compile:\n${ours.join('\n')}`);
  check(result.status === 0 || theirs > 0, `tsc failed:\n${result.stdout}${result.stderr}`);
  log(`${path.basename(dir)}: compiled (strict, our declarations checked)`);
}

/** Starts `node <script>` in `dir`, resolves { child, port } at its `READY <port>` line. */
function startApp(dir, script, env = {}) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [script], {
      cwd: dir,
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    children.add(child);
    child.on('exit', () => children.delete(child));
    let out = '';
    const timer = setTimeout(() => reject(new Error(`${script}: no READY line in 30 s:\n${out}`)), 30_000);
    const onData = (data) => {
      out += data;
      const ready = /READY (\d+)/.exec(out);
      if (ready) {
        clearTimeout(timer);
        resolve({ child, port: Number(ready[1]) });
      }
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', (data) => (out += data));
    child.on('exit', (code, signal) => {
      clearTimeout(timer);
      reject(new Error(`${script} exited with ${code ?? signal} before READY:\n${out}`));
    });
  });
}

function stop(child) {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const kill = setTimeout(() => child.kill('SIGKILL'), 5_000);
    child.once('exit', () => {
      clearTimeout(kill);
      resolve();
    });
    child.kill('SIGTERM');
  });
}

/** A free TCP port on 127.0.0.1, for a README example that takes its port from PORT. */
function freePort() {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

async function sdkClient(url) {
  const { Client, StreamableHTTPClientTransport } = require('@modelcontextprotocol/client');
  const client = new Client({ name: 'packaging-sdk-client', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  return client;
}

async function refused(call) {
  try {
    const result = await call();
    return result && result.isError === true;
  } catch {
    return true;
  }
}

async function checkServer(dir) {
  const { child, port } = await startApp(dir, 'dist/server/main.js');
  try {
    const url = `http://127.0.0.1:${port}/mcp`;
    const sdk = await sdkClient(url);
    try {
      const { tools } = await sdk.listTools();
      check(
        JSON.stringify(tools.map((tool) => tool.name).sort()) === '["add","confirm"]',
        `tools/list: ${JSON.stringify(tools)}`,
      );
      const sum = await sdk.callTool({ name: 'add', arguments: { a: 2, b: 40 } });
      check(sum.structuredContent?.sum === 42, `add: ${JSON.stringify(sum)}`);
      check(await refused(() => sdk.callTool({ name: 'add', arguments: { a: 'two', b: 40 } })), 'add took bad args');
      check(await refused(() => sdk.callTool({ name: 'secret', arguments: {} })), 'the guard did not refuse secret');
      const note = await sdk.readResource({ uri: 'note://7' });
      check(note.contents[0]?.text === 'note 7', `resources/read: ${JSON.stringify(note)}`);
      const prompt = await sdk.getPrompt({ name: 'greet', arguments: { name: 'Ada' } });
      check(JSON.stringify(prompt.messages).includes('Say hello to Ada.'), `prompts/get: ${JSON.stringify(prompt)}`);
    } finally {
      await sdk.close();
    }
    const health = await fetch(`http://127.0.0.1:${port}/health`);
    const body = await health.json();
    check(health.status === 200 && body.status === 'ok', `health: ${health.status} ${JSON.stringify(body)}`);
    log('cjs: server answered the SDK client (tools, DTO validation, guard, resource template, prompt, health)');

    const client = runOk(process.execPath, ['dist/client/main.js'], {
      cwd: dir,
      env: { MCP_URL: url },
      timeoutMs: 60_000,
    });
    const result = /^RESULT (.*)$/m.exec(client.stdout);
    check(result && JSON.parse(result[1]).content?.[0]?.text === 'confirmed', `client app: ${client.stdout}`);
    log('cjs: client app called the server, its @OnElicitation handler answered');
  } finally {
    await stop(child);
  }
}

async function checkReadmeExample(dir) {
  // The README's first example ("A first tool"), run as written: it listens on PORT (default 3000).
  const port = await freePort();
  const child = spawn(process.execPath, ['dist/snippets/readme-1.js'], {
    cwd: dir,
    env: { ...process.env, PORT: String(port) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.add(child);
  try {
    const deadline = Date.now() + 30_000;
    for (;;) {
      try {
        const sdk = await sdkClient(`http://127.0.0.1:${port}/mcp`);
        const { tools } = await sdk.listTools();
        await sdk.close();
        check(tools.length > 0, 'the README example serves no tool');
        log(`cjs: the README's first example runs (tools: ${tools.map((tool) => tool.name).join(', ')})`);
        return;
      } catch (error) {
        if (Date.now() > deadline || child.exitCode !== null) throw new Error(`README example: ${error.message}`);
        await new Promise((resolve) => setTimeout(resolve, 250));
      }
    }
  } finally {
    await stop(child);
  }
}

async function checkEsm(dir) {
  const { child, port } = await startApp(dir, 'dist/main.js');
  try {
    const sdk = await sdkClient(`http://127.0.0.1:${port}/mcp`);
    const echoed = await sdk.callTool({ name: 'echo', arguments: { text: 'from esm' } });
    await sdk.close();
    check(echoed.content?.[0]?.text === 'from esm', `esm echo: ${JSON.stringify(echoed)}`);
    log('esm: the ES-module app started and answered');
  } finally {
    await stop(child);
  }
}

// jose is an optional peer: an app that asks for JWT access tokens without it installed stops at start-up, told
// what to install (rather than failing on the first request).
function checkJoseMissing(dir) {
  check(
    !fs.existsSync(path.join(dir, 'node_modules', 'jose')),
    'esm: jose is installed, the check would prove nothing',
  );
  const result = run(process.execPath, ['dist/main.js', '--jwt-auth'], { cwd: dir, timeoutMs: 60_000 });
  const output = `${result.stdout}\n${result.stderr}`;
  check(result.status !== 0, `esm --jwt-auth started without jose:\n${output}`);
  check(output.includes('needs the package "jose": npm install jose'), `esm --jwt-auth: ${output}`);
  log('esm: without jose, JWT auth stops at start-up naming the package to install');
}

// oauth4webapi is an optional peer of the client: a server given OAuth options without it installed is refused when
// its transport is made (at connect), told what to install.
function checkOAuth4WebApiMissing(dir) {
  check(
    !fs.existsSync(path.join(dir, 'node_modules', 'oauth4webapi')),
    'cjs: oauth4webapi is installed, the check would prove nothing',
  );
  const script =
    "require('@conduit-mcp/client').createClientTransport({ type: 'http', url: 'https://mcp.example.com/mcp', auth: {} })";
  const result = run(process.execPath, ['-e', script], { cwd: dir, timeoutMs: 60_000 });
  const output = `${result.stdout}\n${result.stderr}`;
  check(result.status !== 0, `cjs: OAuth options were accepted without oauth4webapi:\n${output}`);
  check(output.includes('needs the package "oauth4webapi": npm install oauth4webapi'), `cjs OAuth: ${output}`);
  log('cjs: without oauth4webapi, OAuth options are refused naming the package to install');
}

/** The README's (and docs') TypeScript examples, as modules of the app. */
function snippets() {
  return defaultMarkdownFiles().flatMap((file) => extractSnippets(file));
}

function writeSnippets(dir) {
  const into = path.join(dir, 'src', 'snippets');
  fs.mkdirSync(into, { recursive: true });
  const all = snippets();
  for (const snippet of all) fs.writeFileSync(path.join(into, `${snippet.name}.ts`), `${snippet.code}\nexport {};\n`);
  log(`cjs: ${all.length} README examples to compile`);
}

async function main() {
  log(`working in ${work}`);
  const tarballs = pack();
  const nest = ['@nestjs/common', '@nestjs/core', '@nestjs/platform-express', 'reflect-metadata', 'rxjs'];
  const cjsPackages = [
    ...nest,
    '@nestjs/terminus',
    'class-validator',
    'class-transformer',
    'class-validator-jsonschema',
  ];
  const cjs = makeApp('cjs', tarballs, {
    dependencies: {
      ours: LIBS,
      theirs: [...cjsPackages, ...snippetPackages(cjsPackages)],
    },
    devDependencies: ['typescript', '@types/node', '@nestjs/testing'],
  });
  writeSnippets(cjs);
  compile(cjs);
  const testing = runOk(process.execPath, ['dist/server/testing-check.js'], { cwd: cjs, timeoutMs: 60_000 });
  check(testing.stdout.includes('TESTING OK'), `@conduit-mcp/server/testing: ${testing.stdout}`);
  log('cjs: @conduit-mcp/server/testing drove the app in process');
  await checkServer(cjs);
  await checkReadmeExample(cjs);
  checkOAuth4WebApiMissing(cjs);

  const esm = makeApp('esm', tarballs, {
    type: 'module',
    dependencies: { ours: ['core', 'server'], theirs: nest },
    devDependencies: ['typescript', '@types/node'],
  });
  compile(esm);
  await checkEsm(esm);
  checkJoseMissing(esm);
  log('all packaging checks passed');
}

/** The packages the README's examples import beyond `listed`, at the versions this repository tests. */
function snippetPackages(listed) {
  const imported = new Set();
  for (const snippet of snippets()) {
    for (const [, name] of snippet.code.matchAll(/from '((?:@[^/']+\/)?[^/']+)[^']*'/g)) imported.add(name);
  }
  return [...imported].filter(
    (name) => !name.startsWith('node:') && !name.startsWith('@conduit-mcp/') && !listed.includes(name),
  );
}

main()
  .catch((error) => {
    console.error(`[packaging] FAILED: ${error.stack || error.message}`);
    process.exitCode = 1;
  })
  .finally(async () => {
    for (const child of children) child.kill('SIGKILL');
    if (keep) log(`kept ${work}`);
    else fs.rmSync(work, { recursive: true, force: true });
  });
