'use strict';
// How a stdio client spawns a bench server: `node bench/servers/<file>` (TypeScript ones compiled, through boot.js),
// behind `taskset -c 0` when pinning so the server runs on CPU 0 while the client loads from CPU 1.
const path = require('node:path');
const { pinning, root } = require('./procs');

/** { command, args, cwd, env } for the stdio server `file` (e.g. 'raw-stdio.js', 'conduit-stdio.ts'). */
function stdioCommand(file) {
  const servers = path.join(root, 'bench', 'servers');
  const script = file.endsWith('.ts') ? [path.join(servers, 'boot.js'), file.slice(0, -3)] : [path.join(servers, file)];
  const nodeArgs = [...(process.env.BENCH_NODE_FLAGS || '').split(' ').filter(Boolean), ...script];
  const [command, args] = pinning
    ? ['taskset', ['-c', '0', process.execPath, ...nodeArgs]]
    : [process.execPath, nodeArgs];
  // Clients that pass only a safelisted environment to their child get NODE_ENV explicitly.
  return { command, args, cwd: root, env: { NODE_ENV: 'production' } };
}

/** True while the process `pid` exists. */
function alive(pid) {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** After a client closed: the stdio child it spawned must be gone; SIGKILL it by PID if it is not after `graceMs`. */
async function reap(pid, graceMs = 2000) {
  if (!pid) return;
  const deadline = Date.now() + graceMs;
  while (alive(pid) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
  if (alive(pid)) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {}
  }
}

module.exports = { stdioCommand, alive, reap };
