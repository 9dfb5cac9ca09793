'use strict';
// N concurrent request loops for a fixed time: for exchanges autocannon cannot express (an MRTR round trip needs
// the first answer's requestState in the second request). Each loop awaits `iteration()` back to back.
const { percentile } = require('./stats');

/** Resolves { done, errors, rate (per s), p50, p99 (ms per iteration), firstError }. */
async function runLoops({ concurrency, seconds, iteration }) {
  const until = performance.now() + seconds * 1000;
  const latencies = [];
  let errors = 0;
  let firstError;
  const start = performance.now();
  const loop = async (n) => {
    while (performance.now() < until) {
      const t = performance.now();
      try {
        await iteration(n);
        latencies.push(performance.now() - t);
      } catch (error) {
        errors++;
        firstError = firstError || error;
        if (errors > 1000) return; // a broken server: stop rather than spin
      }
    }
  };
  await Promise.all(Array.from({ length: concurrency }, (_, n) => loop(n)));
  const elapsed = (performance.now() - start) / 1000;
  return {
    done: latencies.length,
    errors,
    rate: Math.round(latencies.length / elapsed),
    p50: Math.round(percentile(latencies, 50) * 10) / 10,
    p99: Math.round(percentile(latencies, 99) * 10) / 10,
    firstError: firstError && firstError.message,
  };
}

module.exports = { runLoops };
