/** How long a request waits on a shared store (a session lookup, a new session's record, a replay) before giving up. */
export const STORE_WAIT_MS = 5_000;

/**
 * A shared store (sessions, events) failed or did not answer in time. The HTTP transports answer it with 503 and
 * `Retry-After`: the state may be back soon, and the client may retry; it is never a 500.
 */
export class StoreUnavailableError extends Error {
  constructor(
    readonly store: 'session' | 'event',
    cause: unknown,
  ) {
    super(`The ${store} store is unavailable: ${cause instanceof Error ? cause.message : String(cause)}`, { cause });
    this.name = 'StoreUnavailableError';
  }
}

/**
 * What `call` answers, bounded: rejects with a {@link StoreUnavailableError} when it throws, rejects or takes longer
 * than `waitMs`, so that no request hangs on a store that stopped answering. An answer given at once (a synchronous
 * store) is passed on as it is.
 */
export function storeCall<T>(
  store: 'session' | 'event',
  call: () => T | PromiseLike<T>,
  waitMs = STORE_WAIT_MS,
): Promise<T> {
  let answer: T | PromiseLike<T>;
  try {
    answer = call();
  } catch (error) {
    return Promise.reject(new StoreUnavailableError(store, error));
  }
  if (!isThenable(answer)) return Promise.resolve(answer);
  const pending = answer;
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new StoreUnavailableError(store, new Error(`no answer within ${waitMs} ms`))),
      waitMs,
    );
    timer.unref();
    pending.then(
      (value) => {
        clearTimeout(timer);
        resolve(value);
      },
      (error: unknown) => {
        clearTimeout(timer);
        reject(new StoreUnavailableError(store, error));
      },
    );
  });
}

function isThenable<T>(value: T | PromiseLike<T>): value is PromiseLike<T> {
  return typeof (value as PromiseLike<T> | undefined)?.then === 'function';
}
