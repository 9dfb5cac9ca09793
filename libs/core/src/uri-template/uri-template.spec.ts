import fc from 'fast-check';
import { UriTemplate, UriTemplateError } from './uri-template';

// RFC 6570 section 3.2 variables.
const RFC_VARS = {
  count: ['one', 'two', 'three'],
  dom: ['example', 'com'],
  dub: 'me/too',
  hello: 'Hello World!',
  half: '50%',
  var: 'value',
  who: 'fred',
  base: 'http://example.com/home/',
  path: '/foo/bar',
  list: ['red', 'green', 'blue'],
  v: '6',
  x: '1024',
  y: '768',
  empty: '',
  undef: undefined,
  none: [],
};

describe('UriTemplate.expand', () => {
  it.each([
    ['{var}', 'value'],
    ['{hello}', 'Hello%20World%21'],
    ['{half}', '50%25'],
    ['O{empty}X', 'OX'],
    ['O{undef}X', 'OX'],
    ['O{none}X', 'OX'],
    ['{x,y}', '1024,768'],
    ['?{x,empty}', '?1024,'],
    ['?{undef,y}', '?768'],
    ['{var:3}', 'val'],
    ['{var:30}', 'value'],
    ['{list}', 'red,green,blue'],
    ['{list*}', 'red,green,blue'],
    ['{dub}', 'me%2Ftoo'],
    ['{+hello}', 'Hello%20World!'],
    ['{+half}', '50%25'],
    ['{base}index', 'http%3A%2F%2Fexample.com%2Fhome%2Findex'],
    ['{+base}index', 'http://example.com/home/index'],
    ['up{+path}{var}/here', 'up/foo/barvalue/here'],
    ['{+path:6}/here', '/foo/b/here'],
    ['{+x,hello,y}', '1024,Hello%20World!,768'],
    ['{#var}', '#value'],
    ['foo{#empty}', 'foo#'],
    ['foo{#undef}', 'foo'],
    ['{#path,x}/here', '#/foo/bar,1024/here'],
    ['{#list*}', '#red,green,blue'],
    ['X{.var}', 'X.value'],
    ['X{.x,y}', 'X.1024.768'],
    ['X{.empty}', 'X.'],
    ['X{.list*}', 'X.red.green.blue'],
    ['www{.dom*}', 'www.example.com'],
    ['{/who}', '/fred'],
    ['{/var,x}/here', '/value/1024/here'],
    ['{/list}', '/red,green,blue'],
    ['{/list*,path:4}', '/red/green/blue/%2Ffoo'],
    ['{;who}', ';who=fred'],
    ['{;half}', ';half=50%25'],
    ['{;v,empty,who}', ';v=6;empty;who=fred'],
    ['{;x,y,undef}', ';x=1024;y=768'],
    ['{;hello:5}', ';hello=Hello'],
    ['{;list*}', ';list=red;list=green;list=blue'],
    ['{?x,y,empty}', '?x=1024&y=768&empty='],
    ['{?var:3}', '?var=val'],
    ['{?list}', '?list=red,green,blue'],
    ['{?list*}', '?list=red&list=green&list=blue'],
    ['?fixed=yes{&x}', '?fixed=yes&x=1024'],
    ['{&count*}', '&count=one&count=two&count=three'],
    ['{?undef}', ''],
  ])('%s → %s', (template, expected) => {
    expect(UriTemplate.parse(template).expand(RFC_VARS)).toBe(expected);
  });

  it('encodes non-ASCII by UTF-8 and keeps valid percent triplets only where reserved is allowed', () => {
    expect(UriTemplate.parse('{v}').expand({ v: 'é😀%41' })).toBe('%C3%A9%F0%9F%98%80%2541');
    expect(UriTemplate.parse('{+v}').expand({ v: 'é%41%zz[]' })).toBe('%C3%A9%41%25zz[]');
    expect(UriTemplate.parse('{v}').expand({ v: 'a\uD800b' })).toBe('a%EF%BF%BDb');
  });
});

describe('UriTemplate.parse', () => {
  it('lists variable names in order', () => {
    expect(UriTemplate.parse('x://{a}/{+b}{?c,d*}{&e:3}').variableNames).toEqual(['a', 'b', 'c', 'd', 'e']);
    expect(UriTemplate.parse('plain').variableNames).toEqual([]);
    expect(String(UriTemplate.parse('a{b}'))).toBe('a{b}');
  });

  it.each([
    ['x{a', /unclosed '\{' at position 1/],
    ['x}a', /unmatched '\}' at position 1/],
    ['{}', /empty expression/],
    ['{+}', /no variable/],
    ['{a b}', /bad variable "a b"/],
    ['{a,}', /bad variable ""/],
    ['{a.}', /bad variable "a."/],
    ['{a:0}', /bad variable "a:0"/],
    ['{a:10000}', /bad variable/],
    ['{a*:3}', /bad variable/],
    ['{a{b}', /'\{' inside the expression/],
    ['{=a}', /reserved operator '='/],
    ['{a}/{a}', /variable "a" appears more than once/],
    ['{?a,a}', /variable "a" appears more than once/],
    [Array.from({ length: 33 }, (_, i) => `{v${i}}`).join(''), /more than 32 expressions/],
    ['x'.repeat(1025), /longer than 1024 characters/],
  ])('rejects %s', (template, message) => {
    expect(() => UriTemplate.parse(template)).toThrow(UriTemplateError);
    expect(() => UriTemplate.parse(template)).toThrow(message);
  });

  it('accepts percent-encoded and dotted names, and the limits themselves', () => {
    expect(UriTemplate.parse('{a%20b,c.d}').variableNames).toEqual(['a%20b', 'c.d']);
    expect(() => UriTemplate.parse(Array.from({ length: 32 }, (_, i) => `{v${i}}`).join(''))).not.toThrow();
    expect(() => UriTemplate.parse(`{a}${'x'.repeat(1021)}`)).not.toThrow();
  });
});

describe('UriTemplate.match', () => {
  const match = (template: string, uri: string) => UriTemplate.parse(template).match(uri);

  it('reads simple variables up to the next literal, not across /, ? or #', () => {
    expect(match('weather://stations/{id}', 'weather://stations/oslo-1')).toEqual({ id: 'oslo-1' });
    expect(match('weather://stations/{id}', 'weather://stations/')).toEqual({ id: '' });
    expect(match('weather://stations/{id}', 'weather://stations/a/b')).toBeNull();
    expect(match('weather://stations/{id}', 'weather://station/a')).toBeNull();
    expect(match('users/{id}.json', 'users/a.b.json')).toEqual({ id: 'a.b' });
    expect(match('{a}-{b}', 'x-y-z')).toEqual({ a: 'x', b: 'y-z' });
    expect(match('{a}/x', 'q?/x')).toBeNull();
  });

  it('percent-decodes values and refuses malformed escapes', () => {
    expect(match('s/{id}', 's/Oslo%20S%C3%A9')).toEqual({ id: 'Oslo Sé' });
    expect(match('s/{id}', 's/%zz')).toBeNull();
    expect(match('s/{id}', 's/%C3')).toBeNull();
  });

  it('lets reserved expansion span slashes', () => {
    expect(match('file:///{+path}', 'file:///a/b/c.txt')).toEqual({ path: 'a/b/c.txt' });
    expect(match('{+base}/x/{id}', 'a/b/x/1')).toEqual({ base: 'a/b', id: '1' });
    expect(match('{+path}{?q}', '/a/b?q=1')).toEqual({ path: '/a/b', q: '1' });
    expect(match('doc{#frag}', 'doc#a/b?c')).toEqual({ frag: 'a/b?c' });
    expect(match('doc{#frag}', 'doc')).toEqual({});
  });

  it('reads path segments, labels and positional lists', () => {
    expect(match('{/segments*}', '/a/b/c')).toEqual({ segments: ['a', 'b', 'c'] });
    expect(match('x{/a,b}', 'x/1/2')).toEqual({ a: '1', b: '2' });
    expect(match('x{/a,b}', 'x/1')).toEqual({ a: '1' });
    expect(match('x{/a,b}', 'x/1/2/3')).toBeNull();
    expect(match('x{/a,rest*}', 'x/1/2/3')).toEqual({ a: '1', rest: ['2', '3'] });
    expect(match('{/a}{/b}', '/1/2')).toEqual({ a: '1', b: '2' });
    expect(match('www{.dom*}', 'www.example.com')).toEqual({ dom: ['example', 'com'] });
    expect(match('{x,y}', '1024,768')).toEqual({ x: '1024', y: '768' });
    expect(match('{x,y}', '1,2,3')).toBeNull();
    expect(match('{list*}', 'a,b')).toEqual({ list: ['a', 'b'] });
    expect(match('{list}', 'a,b')).toEqual({ list: 'a,b' });
  });

  it('reads query and matrix parameters by name, in any order', () => {
    expect(match('search{?q,lang}', 'search?lang=en&q=x%20y')).toEqual({ q: 'x y', lang: 'en' });
    expect(match('search{?q,lang}', 'search')).toEqual({});
    expect(match('search{?q}', 'search?utm=1&q=2')).toEqual({ q: '2' });
    expect(match('search{?q}', 'search?q')).toEqual({ q: '' });
    expect(match('search{?q}', 'search/x')).toBeNull();
    expect(match('x{?a}{&b}', 'x?b=2&a=1')).toEqual({ a: '1', b: '2' });
    expect(match('x{?list*}', 'x?list=a&list=b')).toEqual({ list: ['a', 'b'] });
    expect(match('x{?q}{#f}', 'x?q=1#top')).toEqual({ q: '1', f: 'top' });
    expect(match('m{;x,y}', 'm;y=2;x')).toEqual({ x: '', y: '2' });
    expect(match('{a}{?q}', 'abc?q=1')).toEqual({ a: 'abc', q: '1' });
  });

  it('refuses URIs over 8192 characters', () => {
    const template = UriTemplate.parse('{+all}');
    expect(template.match('a'.repeat(8192))).toEqual({ all: 'a'.repeat(8192) });
    expect(template.match('a'.repeat(8193))).toBeNull();
  });

  it('answers hostile inputs without backtracking', () => {
    const hostile = 'a'.repeat(8000);
    expect(match('{a}{b}{c}x', hostile)).toBeNull();
    expect(match('{+a}{+b}{+c}x', hostile)).toBeNull();
    expect(match('{a}{b}{c}x', `${hostile}x`)).toEqual({ a: expect.stringMatching(/^a{8000}$/), b: '', c: '' });
    const many = UriTemplate.parse(`${Array.from({ length: 32 }, (_, i) => `{+v${i}}`).join('a')}!`);
    expect(many.match(hostile)).toBeNull();
    expect(many.match(`${hostile}!`)).toMatchObject({ v0: '', v30: '', v31: 'a'.repeat(8000 - 31) });
  });

  it('round-trips expansion for string values', () => {
    const text = fc.string({ unit: 'grapheme', maxLength: 12 });
    const reserved = text.filter((s) => !s.includes('%'));
    const cases: [string, fc.Arbitrary<Record<string, string>>][] = [
      ['res://{a}/x/{b}', fc.record({ a: text, b: text })],
      ['file:///{+path}', fc.record({ path: reserved })],
      ['{a}{?q,r}', fc.record({ a: text, q: text, r: text })],
      ['x{.ext}', fc.record({ ext: text })],
      ['{/p}{;m}{?q}{&r}{#f}', fc.record({ p: text, m: text, q: text, r: text, f: reserved })],
    ];
    for (const [source, vars] of cases) {
      const template = UriTemplate.parse(source);
      fc.assert(
        fc.property(vars, (values) => {
          expect(template.match(template.expand(values))).toEqual(values);
        }),
      );
    }
  });

  it('round-trips exploded lists of non-empty values', () => {
    // Not '.', which is unreserved and so stays raw, making `{.list*}` ambiguous (RFC 6570 §3.2.5).
    const item = fc.string({ unit: 'grapheme', minLength: 1, maxLength: 6 }).filter((s) => !s.includes('.'));
    const items = fc.array(item, { minLength: 1, maxLength: 5 });
    for (const source of ['{/list*}', 'x{.list*}', '{?list*}', '{;list*}', '{list*}']) {
      const template = UriTemplate.parse(source);
      fc.assert(fc.property(items, (list) => expect(template.match(template.expand({ list }))).toEqual({ list })));
    }
  });
});
