'use strict';
// Server child processes: start (pinned to CPU 0 when possible), wait for "READY <port>", read RSS, stop by PID.
const { spawn, execFileSync } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');

const root = path.resolve(__dirname, '..', '..');
const live = new Set();

function hasTaskset() {
  try {
    execFileSync('taskset', ['-V'], { stdio: 'ignore' });
    return os.cpus().length >= 2;
  } catch {
    return false;
  }
}
const pinning = hasTaskset();

/**
 * Starts `bench/servers/<file>` (or `<serversDir>/<file>`: a baseline's); resolves { child, pid, port } once it
 * printed READY.
 */
function startServer(file, env = {}, timeoutMs = 60_000, serversDir = undefined) {
  // TypeScript servers run compiled (bench/.build, see lib/build.js) through boot.js.
  const servers = serversDir ?? path.join(root, 'bench', 'servers');
  const script = file.endsWith('.ts') ? [path.join(servers, 'boot.js'), file.slice(0, -3)] : [path.join(servers, file)];
  // BENCH_NODE_FLAGS (e.g. "--cpu-prof --cpu-prof-dir=bench/profiles") goes to every server's node.
  const nodeArgs = [
    ...(env.BENCH_NODE_FLAGS ?? process.env.BENCH_NODE_FLAGS ?? '').split(' ').filter(Boolean),
    ...script,
  ];
  const [cmd, args] = pinning ? ['taskset', ['-c', '0', process.execPath, ...nodeArgs]] : [process.execPath, nodeArgs];
  const child = spawn(cmd, args, {
    cwd: root,
    env: { ...process.env, ...env, NODE_ENV: 'production' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  live.add(child);
  child.on('exit', () => live.delete(child));
  let stderr = '';
  child.stderr.on('data', (d) => (stderr = (stderr + d).slice(-4000)));
  return new Promise((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => fail(new Error(`${file}: no READY within ${timeoutMs} ms`)), timeoutMs);
    const fail = (error) => {
      clearTimeout(timer);
      stopServer(child).finally(() => reject(new Error(`${error.message}\n${stderr}`)));
    };
    child.on('exit', (code) => fail(new Error(`${file} exited with ${code}`)));
    child.stdout.on('data', (d) => {
      out += d;
      const m = /READY (\d+)/.exec(out);
      if (m) {
        clearTimeout(timer);
        child.removeAllListeners('exit');
        child.on('exit', () => live.delete(child));
        child.stdout.resume();
        resolve({ child, pid: child.pid, port: Number(m[1]) });
      }
    });
  });
}

/** Resident set size of a process in MB (VmRSS), or null. */
function rssMb(pid) {
  try {
    const m = /VmRSS:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Math.round(Number(m[1]) / 102.4) / 10 : null;
  } catch {
    return null;
  }
}

// Clock ticks per second of /proc/<pid>/stat's CPU times (USER_HZ: 100 on Linux unless `getconf` says otherwise).
const clockTicks = (() => {
  try {
    return Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
  } catch {
    return 100;
  }
})();

/**
 * CPU seconds a process has used so far (user + system, from /proc/<pid>/stat), or null. On a shared host a run's
 * req/s moves with what the neighbours do; the CPU a server spends per request moves far less.
 */
function cpuSeconds(pid) {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / clockTicks; // utime, stime (fields 14 and 15 of stat)
  } catch {
    return null;
  }
}

/** SIGTERM by PID, SIGKILL after 3 s. */
function stopServer(child) {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      try {
        process.kill(child.pid, 'SIGKILL');
      } catch {}
    }, 3000);
    child.once('exit', () => {
      clearTimeout(timer);
      resolve();
    });
    try {
      process.kill(child.pid, 'SIGTERM');
    } catch {
      clearTimeout(timer);
      resolve();
    }
  });
}

function killAllSync() {
  for (const child of live) {
    try {
      process.kill(child.pid, 'SIGKILL');
    } catch {}
  }
}

module.exports = { startServer, stopServer, killAllSync, rssMb, cpuSeconds, pinning, root };
