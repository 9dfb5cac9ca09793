import * as fc from 'fast-check';
import { decideEra, namesModernRevision } from './era.decision';
import { META_PROTOCOL_VERSION } from './revisions';

const named = { _meta: { [META_PROTOCOL_VERSION]: '2026-07-28' } };

describe('decideEra', () => {
  it('is modern when the transport saw a modern revision', () => {
    expect(decideEra({}, 'modern', false)).toBe('modern');
  });

  it('is modern when the message names its revision in _meta, whatever the hint', () => {
    expect(decideEra(named, undefined, false)).toBe('modern');
    expect(decideEra(named, 'legacy', false)).toBe('modern');
  });

  it('is modern for a method only the modern era has', () => {
    expect(decideEra(undefined, undefined, true)).toBe('modern');
  });

  it('is legacy otherwise: no _meta revision, no modern hint, a method both eras have', () => {
    expect(decideEra(undefined, undefined, false)).toBe('legacy');
    expect(decideEra({ _meta: {} }, 'legacy', false)).toBe('legacy');
    expect(decideEra({ _meta: null }, undefined, false)).toBe('legacy');
  });

  it('never decides legacy for a message that names a modern revision (property)', () => {
    fc.assert(
      fc.property(
        fc.constantFrom<'legacy' | 'modern' | undefined>('legacy', 'modern', undefined),
        fc.boolean(),
        (hint, only) => decideEra(named, hint, only) === 'modern',
      ),
    );
  });
});

describe('namesModernRevision', () => {
  it('looks for the protocol version key in an object _meta only', () => {
    expect(namesModernRevision(named)).toBe(true);
    expect(namesModernRevision({ _meta: 'x' })).toBe(false);
    expect(namesModernRevision(undefined)).toBe(false);
  });
});
