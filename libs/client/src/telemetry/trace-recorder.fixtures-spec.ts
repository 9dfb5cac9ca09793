// Test helper of the telemetry specs (the `-spec.ts` suffix keeps it out of the library build and jest's test list).
import { tracingChannel } from 'node:diagnostics_channel';

export type TracePhase = 'start' | 'end' | 'asyncStart' | 'asyncEnd' | 'error';

/** Every sub-channel publication of one tracing channel: the phase, the context object, and a copy taken then. */
export interface TraceRecorder<T extends object> {
  readonly log: Array<{ phase: TracePhase; trace: T; copy: T }>;
  /** The phases published for `trace`, in order. */
  phasesOf(trace: T): TracePhase[];
  /** The distinct context objects, in the order of their `start`. */
  traces(): T[];
  stop(): void;
}

/** Subscribes to every sub-channel of the tracing channel `name`; `onStart` runs in the `start` subscriber. */
export function recordTraces<T extends object>(name: string, onStart?: (trace: T) => void): TraceRecorder<T> {
  const channels = tracingChannel<unknown, T>(name);
  const log: TraceRecorder<T>['log'] = [];
  const record = (phase: TracePhase) => (trace: T) => {
    if (phase === 'start') onStart?.(trace);
    log.push({ phase, trace, copy: { ...trace } });
  };
  const subscribers = {
    start: record('start'),
    end: record('end'),
    asyncStart: record('asyncStart'),
    asyncEnd: record('asyncEnd'),
    error: record('error'),
  };
  channels.subscribe(subscribers);
  return {
    log,
    phasesOf: (trace) => log.filter((entry) => entry.trace === trace).map((entry) => entry.phase),
    traces: () => log.filter((entry) => entry.phase === 'start').map((entry) => entry.trace),
    stop: () => channels.unsubscribe(subscribers),
  };
}
