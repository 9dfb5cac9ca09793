import { healthIndicatorResult } from './health-indicator.result';

describe('healthIndicatorResult', () => {
  it('builds the Terminus shape { [key]: { ...details, status } }', () => {
    expect(healthIndicatorResult('mcp', true, { transports: ['http'] })).toEqual({
      mcp: { transports: ['http'], status: 'up' },
    });
    expect(healthIndicatorResult('mcp', false, { transports: [] })).toEqual({
      mcp: { transports: [], status: 'down' },
    });
  });

  it('does not change the details it was given', () => {
    const details = { sessions: 2 };
    healthIndicatorResult('mcp', true, details);
    expect(details).toEqual({ sessions: 2 });
  });

  it('refuses details with a "status" key, which would hide the verdict', () => {
    expect(() => healthIndicatorResult('mcp', true, { status: 'fine' })).toThrow('"status" is a reserved key');
  });
});
