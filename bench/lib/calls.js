'use strict';
// A closed-loop measurement: `inflight` callers, each awaiting its call before starting the next, for `seconds`.
// Calls/s is completed calls over elapsed wall time; failed calls are counted apart (and not as throughput).

/** Resolves { cps, total, errors, firstError }. */
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
  await Promise.all(Array.from({ length: inflight }, caller));
  const elapsed = (performance.now() - start) / 1000;
  return {
    cps: Math.round(total / elapsed),
    total,
    errors,
    firstError: firstError && String(firstError.message || firstError).slice(0, 300),
  };
}

module.exports = { closedLoop };
