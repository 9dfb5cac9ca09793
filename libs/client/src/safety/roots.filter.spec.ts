import { filterRoots } from './roots.filter';

const uris = (roots: unknown[]) => {
  const result = filterRoots({ roots });
  return result.ok ? result.value.roots.map((root) => root.uri) : undefined;
};

describe('filterRoots', () => {
  it('keeps local file roots with their names and _meta', () => {
    expect(
      filterRoots({
        roots: [{ uri: 'file:///work', name: 'work', _meta: { k: 1 } }, { uri: 'file:///home/ada/project' }],
        _meta: { page: 1 },
      }),
    ).toEqual({
      ok: true,
      value: {
        roots: [{ uri: 'file:///work', name: 'work', _meta: { k: 1 } }, { uri: 'file:///home/ada/project' }],
        _meta: { page: 1 },
      },
    });
  });

  it('normalizes localhost, case and the scheme-only form to file:///', () => {
    expect(uris([{ uri: 'file://localhost/work' }, { uri: 'FILE://LocalHost/work' }, { uri: 'file:/work' }])).toEqual([
      'file:///work',
      'file:///work',
      'file:///work',
    ]);
  });

  it('resolves . and .. segments, plain and percent-encoded', () => {
    expect(
      uris([
        { uri: 'file:///work/./src/../lib' },
        { uri: 'file:///work/%2e%2e/etc' },
        { uri: 'file:///work/.%2E/.%2e/x' },
        { uri: 'file:///work/%2E/y' },
        { uri: 'file:///../../etc' },
      ]),
    ).toEqual(['file:///work/lib', 'file:///etc', 'file:///x', 'file:///work/y', 'file:///etc']);
  });

  it('drops query and fragment', () => {
    expect(uris([{ uri: 'file:///work?x=1#top' }])).toEqual(['file:///work']);
  });

  it('keeps other characters percent-encoded', () => {
    expect(uris([{ uri: 'file:///my work/%E2%80%AE' }])).toEqual(['file:///my%20work/%E2%80%AE']);
  });

  it('drops everything else silently', () => {
    expect(
      uris([
        { uri: 'file://server/share' },
        { uri: 'file://127.0.0.1/work' },
        { uri: 'file:///work/..%2f..%2fetc' },
        { uri: 'file:///work/%2F' },
        { uri: 'file:///a%00b' },
        { uri: 'https://example.com/work' },
        { uri: 'ftp://localhost/work' },
        { uri: '/work' },
        { uri: 'work' },
        { uri: 'file://localhost:80/x' },
        { uri: 42 },
        { name: 'no uri' },
        'file:///work',
        null,
      ]),
    ).toEqual([]);
  });

  it('sanitizes names and omits empty or non-string ones', () => {
    const result = filterRoots({
      roots: [
        { uri: 'file:///a', name: 'evil\u202egnp.exe\n' },
        { uri: 'file:///b', name: '\u2028' },
        { uri: 'file:///c', name: 7 },
        { uri: 'file:///d', name: 'x'.repeat(1000) },
      ],
    });
    expect(result.ok && result.value.roots.map((root) => root.name)).toEqual([
      'evilgnp.exe',
      undefined,
      undefined,
      `${'x'.repeat(255)}…`,
    ]);
  });

  it.each([
    ['undefined', undefined],
    ['an array', []],
    ['no roots', {}],
    ['roots not an array', { roots: { uri: 'file:///a' } }],
  ])('refuses a result that is %s with -32603', (_, result) => {
    expect(filterRoots(result)).toEqual({
      ok: false,
      error: { code: -32603, message: 'roots result must have a roots array' },
    });
  });
});
