import { createClientTransport } from './client-transport.factory';
import { SseClientTransport } from './sse-client.transport';
import { StdioClientTransport } from './stdio-client.transport';
import { StreamableHttpClientTransport } from './streamable-http-client.transport';

describe('createClientTransport', () => {
  it('builds the transport each config type names', () => {
    const stdio = createClientTransport({ type: 'stdio', command: 'node', args: ['server.js'] });
    expect(stdio).toBeInstanceOf(StdioClientTransport);
    expect(stdio.origin).toBeUndefined();

    const http = createClientTransport({ type: 'http', url: 'https://weather.example:8443/mcp' });
    expect(http).toBeInstanceOf(StreamableHttpClientTransport);
    expect(http.origin).toBe('https://weather.example:8443');

    const sse = createClientTransport({ type: 'sse', url: 'http://127.0.0.1:3000/sse' });
    expect(sse).toBeInstanceOf(SseClientTransport);
    expect(sse.origin).toBe('http://127.0.0.1:3000');
  });

  it('throws on an unknown type or an invalid URL', () => {
    expect(() => createClientTransport({ type: 'ws', url: 'ws://x' } as never)).toThrow(
      'Unknown MCP transport type: ws',
    );
    expect(() => createClientTransport({ type: 'http', url: 'not a url' })).toThrow();
  });
});
