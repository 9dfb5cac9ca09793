'use strict';
// A closed-loop measurement: `inflight` callers, each awaiting its call before starting the next, for `seconds`.
// Calls/s is completed calls over elapsed wall time; failed calls are counted apart (and not as throughput).
// cpuUsPerCall is this process's CPU time (user + system) over the completed calls: the client's own cost, steadier
// than calls/s when a neighbour slows the host.

/** Resolves { cps, total, errors, firstError, cpuUsPerCall }. */
async function closedLoop(call, text, inflight, seconds) {
  const deadline = performance.now() + seconds * 1000;
  let total = 0;
  let errors = 0;
  let firstError;
  const caller = async () => {
    while (performance.now() < deadline) {
      try {
        await call(text);
        total++;
      } catch (error) {
        errors++;
        firstError ??= error;
        // A broken connection fails every call at once; do not spin the CPU until the deadline.
        await new Promise((r) => setTimeout(r, 10));
      }
    }
  };
  const start = performance.now();
  const cpuBefore = process.cpuUsage();
  await Promise.all(Array.from({ length: inflight }, caller));
  const cpu = process.cpuUsage(cpuBefore);
  const elapsed = (performance.now() - start) / 1000;
  return {
    cps: Math.round(total / elapsed),
    total,
    errors,
    cpuUsPerCall: total ? Math.round(((cpu.user + cpu.system) / total) * 100) / 100 : null,
    firstError: firstError && String(firstError.message || firstError).slice(0, 300),
  };
}

module.exports = { closedLoop };
