import { encodeSseComment, encodeSseEvent } from './sse.encoder';

describe('encodeSseEvent', () => {
  it('writes fields and one data line per line of data', () => {
    expect(encodeSseEvent({ id: '7', event: 'message', retry: 1000, data: 'a\nb\r\nc\rd' })).toBe(
      'id: 7\nevent: message\nretry: 1000\ndata: a\ndata: b\ndata: c\ndata: d\n\n',
    );
    expect(encodeSseEvent({ data: '' })).toBe('data: \n\n');
    expect(encodeSseEvent({ data: '{"a":1}' })).toBe('data: {"a":1}\n\n');
  });

  it('refuses values that would inject fields', () => {
    expect(() => encodeSseEvent({ id: '1\ndata: x', data: '' })).toThrow('SSE id');
    expect(() => encodeSseEvent({ id: 'a\0b', data: '' })).toThrow('SSE id');
    expect(() => encodeSseEvent({ event: 'a\rb', data: '' })).toThrow('SSE event');
    expect(() => encodeSseEvent({ retry: -1, data: '' })).toThrow('SSE retry');
    expect(() => encodeSseEvent({ retry: 1.5, data: '' })).toThrow('SSE retry');
  });
});

describe('encodeSseComment', () => {
  it('writes one comment line per line of text', () => {
    expect(encodeSseComment('ping')).toBe(': ping\n\n');
    expect(encodeSseComment('a\nb')).toBe(': a\n: b\n\n');
  });
});
