import { ROOT_CONTEXT, TraceFlags, createContextKey, trace } from '@opentelemetry/api';
import { formatTraceparent, parseTraceparent, withRemoteParent } from './w3c-trace-context';

const TRACE_ID = '4bf92f3577b34da6a3ce929d0e0e4736';
const SPAN_ID = '00f067aa0ba902b7';

describe('W3C trace context', () => {
  it('parses a traceparent and its tracestate into a remote span context', () => {
    const parsed = parseTraceparent(`00-${TRACE_ID}-${SPAN_ID}-01`, 'congo=t61rcWkgMzE,rojo=00f067aa0ba902b7');
    expect(parsed).toMatchObject({
      traceId: TRACE_ID,
      spanId: SPAN_ID,
      traceFlags: TraceFlags.SAMPLED,
      isRemote: true,
    });
    expect(parsed?.traceState?.get('rojo')).toBe('00f067aa0ba902b7');
    expect(parseTraceparent(`00-${TRACE_ID}-${SPAN_ID}-00`)).toMatchObject({ traceFlags: 0, traceState: undefined });
  });

  it.each([
    ['none', undefined],
    ['another version', `01-${TRACE_ID}-${SPAN_ID}-01`],
    ['an all-zero trace id', `00-${'0'.repeat(32)}-${SPAN_ID}-01`],
    ['an all-zero span id', `00-${TRACE_ID}-${'0'.repeat(16)}-01`],
    ['a short span id', `00-${TRACE_ID}-${SPAN_ID.slice(1)}-01`],
  ])('refuses %s', (_, traceparent) => {
    expect(parseTraceparent(traceparent)).toBeUndefined();
  });

  it('sets the remote parent on the base context, keeping its other values; the base as it is without one', () => {
    const key = createContextKey('kept');
    const base = ROOT_CONTEXT.setValue(key, 'value');
    const withParent = withRemoteParent(base, `00-${TRACE_ID}-${SPAN_ID}-01`);
    expect(trace.getSpanContext(withParent)).toMatchObject({ traceId: TRACE_ID, spanId: SPAN_ID });
    expect(withParent.getValue(key)).toBe('value');
    expect(withRemoteParent(base, 'garbage')).toBe(base);
  });

  it('formats a span context as a traceparent, its flags as two hex digits', () => {
    expect(formatTraceparent({ traceId: TRACE_ID, spanId: SPAN_ID, traceFlags: TraceFlags.SAMPLED })).toBe(
      `00-${TRACE_ID}-${SPAN_ID}-01`,
    );
    expect(formatTraceparent({ traceId: TRACE_ID, spanId: SPAN_ID, traceFlags: 0 })).toBe(
      `00-${TRACE_ID}-${SPAN_ID}-00`,
    );
  });
});
