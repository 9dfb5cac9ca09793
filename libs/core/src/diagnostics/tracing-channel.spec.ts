import { tracingChannel } from 'node:diagnostics_channel';
import { AsyncLocalStorage } from 'node:async_hooks';
import { publishTraceEnd, tracingObserved } from './tracing-channel';

describe('tracingObserved', () => {
  it.each(['start', 'end', 'asyncStart', 'asyncEnd', 'error'] as const)('is true with a subscriber of %s', (step) => {
    const channel = tracingChannel<unknown, object>(`core-spec:observed:${step}`);
    expect(tracingObserved(channel)).toBe(false);
    const listener = () => undefined;
    channel[step].subscribe(listener);
    expect(tracingObserved(channel)).toBe(true);
    channel[step].unsubscribe(listener);
    expect(tracingObserved(channel)).toBe(false);
  });

  it('is true with a store bound to start', () => {
    const channel = tracingChannel<unknown, object>('core-spec:observed:store');
    const store = new AsyncLocalStorage<number>();
    channel.start.bindStore(store, () => 1);
    expect(tracingObserved(channel)).toBe(true);
    channel.start.unbindStore(store);
    expect(tracingObserved(channel)).toBe(false);
  });
});

describe('publishTraceEnd', () => {
  function recorded(name: string) {
    const channel = tracingChannel<unknown, object>(name);
    const steps: string[] = [];
    const on = (step: string) => () => steps.push(step);
    const subscribers = {
      start: on('start'),
      end: on('end'),
      asyncStart: on('asyncStart'),
      asyncEnd: on('asyncEnd'),
      error: on('error'),
    };
    channel.subscribe(subscribers);
    return { channel, steps, stop: () => channel.unsubscribe(subscribers) };
  }

  it('publishes error, asyncStart, asyncEnd for a failure', () => {
    const { channel, steps, stop } = recorded('core-spec:end:failed');
    publishTraceEnd(channel, {}, true);
    stop();
    expect(steps).toEqual(['error', 'asyncStart', 'asyncEnd']);
  });

  it('publishes asyncStart, asyncEnd for a success', () => {
    const { channel, steps, stop } = recorded('core-spec:end:ok');
    publishTraceEnd(channel, {}, false);
    stop();
    expect(steps).toEqual(['asyncStart', 'asyncEnd']);
  });
});
