import { readTraceContext } from './trace-context';

const PARENT = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01';

describe('readTraceContext', () => {
  it('keeps a well-formed traceparent and tracestate', () => {
    expect(readTraceContext({ traceparent: PARENT, tracestate: 'congo=t61rcWkgMzE', other: 1 })).toEqual({
      traceparent: PARENT,
      tracestate: 'congo=t61rcWkgMzE',
    });
  });

  it('drops a tracestate without a traceparent, and a bad tracestate', () => {
    expect(readTraceContext({ tracestate: 'a=b' })).toEqual({});
    expect(readTraceContext({ traceparent: PARENT, tracestate: 'a=b\n' })).toEqual({ traceparent: PARENT });
    expect(readTraceContext({ traceparent: PARENT, tracestate: 'a'.repeat(513) })).toEqual({ traceparent: PARENT });
    expect(readTraceContext({ traceparent: PARENT, tracestate: 7 })).toEqual({ traceparent: PARENT });
  });

  it.each([
    ['another version', '01-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01'],
    ['upper case', '00-4BF92F3577B34DA6A3CE929D0E0E4736-00f067aa0ba902b7-01'],
    ['an all-zero trace id', `00-${'0'.repeat(32)}-00f067aa0ba902b7-01`],
    ['an all-zero parent id', `00-4bf92f3577b34da6a3ce929d0e0e4736-${'0'.repeat(16)}-01`],
    ['a trailing field', `${PARENT}-00`],
    ['a number', 42],
  ])('refuses a traceparent with %s', (_, traceparent) => {
    expect(readTraceContext({ traceparent, tracestate: 'a=b' })).toEqual({});
  });

  it('reads nothing from what is not an object', () => {
    expect(readTraceContext(undefined)).toEqual({});
    expect(readTraceContext('00-…')).toEqual({});
    expect(readTraceContext(null)).toEqual({});
  });
});
