type Corkable = NodeJS.WritableStream & { cork?: () => void; uncork?: () => void };
const corked = new WeakSet<object>();

/**
 * Holds what is written to `stream` until the current turn of the event loop ends, then writes it in one go. With
 * many requests in flight, answers finish together, and a pipe write per line (and stdout writes to pipes are
 * synchronous) was most of the cost of each. Streams that cannot cork are left alone.
 */
export function coalesceWrites(stream: NodeJS.WritableStream): void {
  const output = stream as Corkable;
  if (corked.has(output) || typeof output.cork !== 'function' || typeof output.uncork !== 'function') return;
  corked.add(output);
  output.cork();
  process.nextTick(() => {
    corked.delete(output);
    output.uncork!();
  });
}
