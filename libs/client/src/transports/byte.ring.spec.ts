import { ByteRing } from './byte.ring';

describe('ByteRing', () => {
  it('keeps everything under its capacity', () => {
    const ring = new ByteRing(8);
    ring.push(Buffer.from('abc'));
    ring.push(Buffer.from('de'));
    expect(ring.toString()).toBe('abcde');
  });

  it('keeps the last bytes, trimming whole and partial chunks', () => {
    const ring = new ByteRing(8);
    for (const chunk of ['abc', 'def', 'ghi', 'jk']) ring.push(Buffer.from(chunk));
    expect(ring.toString()).toBe('defghijk');
    ring.push(Buffer.from('l'));
    expect(ring.toString()).toBe('efghijkl');
  });

  it('keeps the tail of a chunk larger than its capacity', () => {
    const ring = new ByteRing(4);
    ring.push(Buffer.from('ab'));
    ring.push(Buffer.from('0123456789'));
    expect(ring.toString()).toBe('6789');
    ring.push(Buffer.from('x'));
    expect(ring.toString()).toBe('789x');
  });
});
