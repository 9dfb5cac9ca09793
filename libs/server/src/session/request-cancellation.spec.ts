import { RequestCancellation } from './request-cancellation';

describe('RequestCancellation', () => {
  it('is not aborted until abort() is called', () => {
    const cancellation = new RequestCancellation();
    expect(cancellation.aborted).toBe(false);
    expect(cancellation.signal.aborted).toBe(false);
  });

  it('aborts a signal made before the abort, once, with the first reason', () => {
    const cancellation = new RequestCancellation();
    const signal = cancellation.signal;
    const reasons: unknown[] = [];
    signal.addEventListener('abort', () => reasons.push(signal.reason));
    cancellation.abort('first');
    cancellation.abort('second');
    expect(cancellation.aborted).toBe(true);
    expect(reasons).toEqual(['first']);
  });

  it('hands out an aborted signal, carrying the reason, when asked for it only after the abort', () => {
    const cancellation = new RequestCancellation();
    const reason = new Error('client cancelled');
    cancellation.abort(reason);
    expect(cancellation.signal.aborted).toBe(true);
    expect(cancellation.signal.reason).toBe(reason);
    expect(cancellation.signal).toBe(cancellation.signal);
  });
});
