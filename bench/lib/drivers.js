'use strict';
// Runs lib/drive.js in a child process (pinned to CPU 1 when pinning, like the HTTP load) and returns its rows.
// BENCH_DRIVER_FLAGS (e.g. "--cpu-prof --cpu-prof-dir=bench/profiles") goes to the driver's node.
const { spawn } = require('node:child_process');
const path = require('node:path');
const { pinning, root } = require('./procs');

const live = new Set();
process.on('exit', () => {
  for (const child of live) {
    try {
      process.kill(child.pid, 'SIGKILL');
    } catch {}
  }
});

/** Resolves [{ inflight, runs: [{ cps, total, errors, firstError }, …] }, …]; rejects with the driver's stderr tail. */
function drive(spec, { log, timeoutMs } = {}) {
  // --no-warnings: the SDK client's HTTP transport hands one long-lived AbortSignal to every fetch, and undici adds a
  // listener per request, so Node prints a MaxListenersExceededWarning (with a stack) per call after ~1500 calls:
  // printing those would measure stderr, not the client.
  const flags = ['--no-warnings', ...(process.env.BENCH_DRIVER_FLAGS || '').split(' ').filter(Boolean)];
  const nodeArgs = [...flags, path.join(__dirname, 'drive.js'), JSON.stringify(spec)];
  const [cmd, args] = pinning ? ['taskset', ['-c', '1', process.execPath, ...nodeArgs]] : [process.execPath, nodeArgs];
  const child = spawn(cmd, args, {
    cwd: root,
    env: { ...process.env, NODE_ENV: 'production' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  live.add(child);
  let out = '';
  let err = '';
  child.stdout.on('data', (d) => (out += d));
  child.stderr.on('data', (d) => {
    err = (err + d).slice(-4000);
    if (log) for (const line of String(d).split('\n').filter(Boolean)) log(line);
  });
  // Generous: warm-up plus two runs per in-flight count plus start-up and close.
  const limit = timeoutMs ?? (spec.warmup + spec.duration * (spec.runs ?? 2) * spec.inflight.length + 60) * 1000;
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      try {
        process.kill(child.pid, 'SIGTERM');
      } catch {}
      setTimeout(() => {
        try {
          process.kill(child.pid, 'SIGKILL');
        } catch {}
      }, 3000).unref();
    }, limit);
    child.on('error', (error) => {
      clearTimeout(timer);
      live.delete(child);
      reject(error);
    });
    child.on('exit', (code, signal) => {
      clearTimeout(timer);
      live.delete(child);
      const m = /^RESULT (.*)$/m.exec(out);
      if (code === 0 && m) return resolve(JSON.parse(m[1]));
      reject(
        new Error(
          `driver ${spec.client} → ${spec.target.server || spec.target.url} exited with ${code ?? signal}: ${err.trim().split('\n').slice(-5).join(' | ')}`,
        ),
      );
    });
  });
}

/**
 * Drives several pairings with their runs interleaved — run 1 of every pairing, then run 2 — each run a driver process
 * of its own, so a machine whose speed drifts shifts every row alike. Resolves one `{ rows }` or `{ error }` per spec.
 */
async function driveInterleaved(specs, { log, label = (spec) => spec.client } = {}) {
  const results = specs.map(() => ({ rows: null }));
  for (let run = 0; run < 2; run++) {
    for (const [n, spec] of specs.entries()) {
      if (results[n].error) continue;
      log && log(`${label(spec)}: run ${run + 1}`);
      try {
        const rows = await drive({ ...spec, runs: 1 }, { log });
        if (!results[n].rows) results[n].rows = rows.map((row) => ({ inflight: row.inflight, runs: [] }));
        for (const row of rows) results[n].rows.find((r) => r.inflight === row.inflight).runs.push(...row.runs);
      } catch (error) {
        log && log(`${label(spec)}: failed: ${error.message}`);
        results[n] = { error: error.message };
      }
    }
  }
  return results;
}

module.exports = { drive, driveInterleaved };
