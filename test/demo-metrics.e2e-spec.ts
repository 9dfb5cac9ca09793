import { DemoProcess, startDemoProcess } from './support/demo.process';
import { modernMeta, modernToolCall } from './support/modern-http.client';

// `METRICS=1 npm start`: the demo serves Prometheus metrics of its MCP server on /metrics; without it, no such route.

const READY = 'MCP endpoint: ';

/** The base URL the demo printed in its banner. */
function baseOf(demo: DemoProcess): string {
  const match = /MCP endpoint: (http:\/\/127\.0\.0\.1:\d+)\/mcp/.exec(demo.output());
  if (!match) throw new Error(`No endpoint in the demo's banner:\n${demo.output()}`);
  return match[1];
}

function callForecast(base: string) {
  return modernToolCall(`${base}/mcp`, 1, 'forecast', { arguments: { city: 'Lisbon', days: 1 }, _meta: modernMeta() });
}

describe('the demo with METRICS=1', () => {
  let demo: DemoProcess;

  beforeAll(async () => {
    demo = await startDemoProcess([], { PORT: '0', METRICS: '1' }, READY, 170_000);
  }, 180_000);

  afterAll(() => demo?.stop());

  it('prints the metrics URL and serves the calls it answered on GET /metrics', async () => {
    const base = baseOf(demo);
    expect(demo.output()).toContain(`metrics: ${base}/metrics`);
    expect(await callForecast(base)).toMatchObject({ status: 200, json: { result: { resultType: 'complete' } } });
    const scrape = await fetch(`${base}/metrics`);
    expect(scrape.status).toBe(200);
    expect(scrape.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
    const text = await scrape.text();
    const line = text
      .split('\n')
      .find(
        (l) =>
          l.startsWith('mcp_server_operation_duration_seconds_count{') &&
          l.includes('mcp_method_name="tools/call"') &&
          l.includes('gen_ai_tool_name="forecast"'),
      );
    expect(line).toMatch(/mcp_protocol_version="2026-07-28".*network_transport="tcp"\} 1$/);
  });

  it('stops on SIGTERM with exit code 0', async () => {
    process.kill(demo.child.pid!, 'SIGTERM');
    expect(await demo.exited).toBe(0);
  });
});

describe('the demo without METRICS', () => {
  let demo: DemoProcess;

  beforeAll(async () => {
    demo = await startDemoProcess([], { PORT: '0' }, READY, 170_000);
  }, 180_000);

  afterAll(() => demo?.stop());

  it('has no /metrics route', async () => {
    const base = baseOf(demo);
    expect(demo.output()).not.toContain('metrics:');
    expect((await fetch(`${base}/metrics`)).status).toBe(404);
  });
});
