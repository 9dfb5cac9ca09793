import { EnvelopeSource, ModernEnvelope } from './modern-envelope';

const modern: EnvelopeSource = {
  era: () => 'modern',
  revision: () => '2026-07-28',
  capabilities: () => ({}),
  clientInfo: () => ({ name: 'c', version: '1' }),
  logLevel: () => undefined,
};

const tool = (name: string) => ({
  name,
  inputSchema: { type: 'object', properties: { city: { type: 'string', 'x-mcp-header': 'City' } } },
});

describe('ModernEnvelope: the tool declarations it keeps', () => {
  it('are bounded in bytes: a server listing ever new, long tool names cannot grow them past the budget', () => {
    const envelope = new ModernEnvelope(modern, 10_000, 1024 * 1024);
    const names = Array.from({ length: 100 }, (_, n) => `${n}-${'t'.repeat(100 * 1024)}`);
    for (const name of names) expect(envelope.learnTool(tool(name))).toBe(true);
    const known = names.filter((name) => envelope.knowsTool(name));
    // 100 kB each in a 1 MiB budget: the newest ten at most, the oldest forgotten first.
    expect(known.length).toBeLessThanOrEqual(10);
    expect(known.length).toBeGreaterThan(0);
    expect(known).toEqual(names.slice(names.length - known.length));
    expect(envelope.headers('tools/call', { name: names[99], arguments: { city: 'Oslo' } })).toMatchObject({
      'Mcp-Param-City': 'Oslo',
    });
  });

  it('keeps no declaration larger than the whole budget, and forgets nothing for it', () => {
    const envelope = new ModernEnvelope(modern, 10_000, 1_000);
    envelope.learnTool(tool('small'));
    expect(envelope.learnTool(tool('x'.repeat(2_000)))).toBe(true);
    expect(envelope.knowsTool('x'.repeat(2_000))).toBe(false);
    expect(envelope.knowsTool('small')).toBe(true);
  });
});
