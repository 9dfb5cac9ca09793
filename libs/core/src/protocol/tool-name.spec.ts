import { isSpecToolName } from './tool-name';

describe('isSpecToolName', () => {
  it('accepts the specification’s examples and the edge lengths', () => {
    for (const name of ['getUser', 'DATA_EXPORT_v2', 'admin.tools.list', 'a-b', 'x', 'y'.repeat(128)])
      expect(isSpecToolName(name)).toBe(true);
  });

  it('flags names outside the rule: empty, too long, spaces, commas, slashes, controls, bidi, non-ASCII', () => {
    for (const name of ['', 'y'.repeat(129), 'get user', 'a,b', 'ns/tool', '\u001b[31mred', 'evil\u202Etxt', 'café'])
      expect(isSpecToolName(name)).toBe(false);
    for (const value of [undefined, null, 42, {}]) expect(isSpecToolName(value)).toBe(false);
  });
});
