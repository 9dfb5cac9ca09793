import { LEGACY_REVISIONS, MODERN_REVISIONS } from '../protocol/revisions';
import { checkBatchRevision, checkBatchShape, revisionAllowsBatches } from './jsonrpc.batch';

const ping = (id: number) => ({ jsonrpc: '2.0', id, method: 'ping' });

describe('revisionAllowsBatches', () => {
  it('allows batches up to 2025-03-26 only', () => {
    const allowed = [...LEGACY_REVISIONS, ...MODERN_REVISIONS].filter(revisionAllowsBatches);
    expect(allowed.sort()).toEqual(['2024-11-05', '2025-03-26']);
  });
});

describe('checkBatchShape', () => {
  it('accepts a batch up to the length bound', () => {
    expect(checkBatchShape([ping(1), ping(2)], 2)).toEqual({ ok: true });
  });

  it('refuses an empty batch', () => {
    expect(checkBatchShape([], 2)).toEqual({ ok: false, message: 'Invalid Request: empty batch' });
  });

  it('refuses a batch past the bound, without looking at its messages', () => {
    const long = new Array<unknown>(1_000_000);
    expect(checkBatchShape(long, 32)).toEqual({
      ok: false,
      message: 'Invalid Request: a batch may hold at most 32 messages',
    });
  });

  it('refuses initialize anywhere in a batch', () => {
    const batch = [ping(1), 'junk', null, [], { jsonrpc: '2.0', id: 2, method: 'initialize', params: {} }];
    expect(checkBatchShape(batch, 10)).toEqual({
      ok: false,
      message: 'Invalid Request: initialize must not be part of a batch',
    });
  });
});

describe('checkBatchRevision', () => {
  it('accepts 2025-03-26 and 2024-11-05', () => {
    expect(checkBatchRevision('2025-03-26')).toEqual({ ok: true });
    expect(checkBatchRevision('2024-11-05')).toEqual({ ok: true });
  });

  it.each(['2025-06-18', '2025-11-25', '2026-07-28'] as const)('refuses %s, naming it', (revision) => {
    const verdict = checkBatchRevision(revision);
    expect(verdict.ok).toBe(false);
    expect(!verdict.ok && verdict.message).toContain(`revision ${revision}`);
  });
});
