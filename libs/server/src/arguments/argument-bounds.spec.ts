import 'reflect-metadata';
import fc from 'fast-check';
import { Type } from 'class-transformer';
import { IsInt, IsObject, IsOptional, IsString, ValidateNested } from 'class-validator';
import { ArgumentBounds, DEFAULT_ARGUMENT_LIMITS } from './argument-bounds';
import { dtoToJsonSchema } from './dto-schema.factory';

class Leg {
  @IsString()
  from: string;

  @IsString()
  to: string;
}

class Journey {
  @IsString()
  traveller: string;

  @IsOptional()
  @IsInt()
  seats?: number;

  @ValidateNested({ each: true })
  @Type(() => Leg)
  legs: Leg[];

  @IsOptional()
  @IsObject()
  notes?: Record<string, string>;
}

const manyKeys = (count: number, prefix = 'k') =>
  Object.fromEntries(Array.from({ length: count }, (_, index) => [`${prefix}${index}`, index]));

describe('ArgumentBounds', () => {
  describe('derived from a DTO class', () => {
    const bounds = ArgumentBounds.forSchema(dtoToJsonSchema(Journey), undefined, true);

    it('lets through arguments within the declared properties, unknown ones included', () => {
      expect(bounds.check({ traveller: 'Ada', seats: 2, legs: [{ from: 'Oslo', to: 'Bergen' }] })).toBeUndefined();
      expect(bounds.check({ traveller: 'Ada', stray: 1 })).toBeUndefined();
    });

    it('refuses an object with more keys than the class declares properties, naming them', () => {
      expect(bounds.check({ traveller: 'Ada', ...manyKeys(4) })).toBe(
        'Invalid arguments: the object at the top level has more keys than the 4 properties its schema declares (traveller, seats, legs, notes)',
      );
    });

    it('refuses the 200 000-key attack at the first key past the declared ones, well within a second', () => {
      const attack = manyKeys(200_000);
      const started = performance.now();
      expect(bounds.check(attack)).toMatch(/has more keys than the 4 properties/);
      expect(performance.now() - started).toBeLessThan(1_000);
    });

    it('follows nested DTOs through $ref, in arrays too', () => {
      const legs = [
        { from: 'a', to: 'b' },
        { from: 'a', to: 'b', via: 'c' },
      ];
      expect(bounds.check({ traveller: 'Ada', legs })).toBe(
        'Invalid arguments: the object at /legs/1 has more keys than the 2 properties its schema declares (from, to)',
      );
    });

    it('leaves an open object property (an index signature) to the general bounds', () => {
      expect(
        bounds.check({ traveller: 'Ada', notes: manyKeys(DEFAULT_ARGUMENT_LIMITS.maxObjectKeys) }),
      ).toBeUndefined();
      expect(bounds.check({ traveller: 'Ada', notes: manyKeys(DEFAULT_ARGUMENT_LIMITS.maxObjectKeys + 1) })).toBe(
        'Invalid arguments: the object at /notes has more than 256 keys (arguments.maxObjectKeys)',
      );
    });
  });

  describe('derived from a JSON Schema', () => {
    it('treats only additionalProperties: false (without patternProperties) as closed', () => {
      const properties = { a: { type: 'string' }, b: { type: 'string' } };
      const closed = ArgumentBounds.forSchema({ type: 'object', properties, additionalProperties: false }, {}, false);
      const open = ArgumentBounds.forSchema({ type: 'object', properties }, {}, false);
      const patterned = ArgumentBounds.forSchema(
        { type: 'object', properties, additionalProperties: false, patternProperties: { '^x': {} } },
        {},
        false,
      );
      const three = { a: '1', b: '2', c: '3' };
      expect(closed.check(three)).toMatch(/more keys than the 2 properties its schema declares \(a, b\)/);
      expect(open.check(three)).toBeUndefined();
      expect(patterned.check(three)).toBeUndefined();
      expect(ArgumentBounds.forSchema({ type: 'object', additionalProperties: false }, {}, false).check({ a: 1 })).toBe(
        'Invalid arguments: the object at the top level has keys, but its schema declares no properties',
      );
    });

    it('follows $defs and definitions references, recursive ones included', () => {
      const tree = {
        type: 'object',
        properties: { node: { $ref: '#/$defs/node' } },
        $defs: {
          node: {
            type: 'object',
            properties: { name: { type: 'string' }, children: { type: 'array', items: { $ref: '#/$defs/node' } } },
            additionalProperties: false,
          },
        },
      };
      const bounds = ArgumentBounds.forSchema(tree, {}, false);
      const deep = { node: { name: 'a', children: [{ name: 'b', children: [{ name: 'c', extra: 1, more: 2 }] }] } };
      expect(bounds.check(deep)).toMatch(/the object at \/node\/children\/0\/children\/0 has more keys than the 2/);
      const loop = { $ref: '#/$defs/a', $defs: { a: { $ref: '#/$defs/b' }, b: { $ref: '#/$defs/a' } } };
      expect(ArgumentBounds.forSchema(loop, {}, false).check({ any: 1 })).toBeUndefined();
      const legacy = {
        properties: { x: { $ref: '#/definitions/x' } },
        definitions: { x: { additionalProperties: false } },
      };
      expect(ArgumentBounds.forSchema(legacy, {}, false).check({ x: { y: 1 } })).toMatch(/at \/x has keys/);
    });
  });

  describe('the general bounds, whatever the schema', () => {
    const open = (limits = {}) => ArgumentBounds.forSchema({}, limits, false);

    it('counts object keys and array items in all', () => {
      const bounds = open({ maxKeys: 10 });
      expect(bounds.check({ list: [1, 2, 3, 4, 5, 6, 7, 8, 9] })).toBeUndefined();
      expect(bounds.check({ list: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10] })).toBe(
        'Invalid arguments: more than 10 object keys and array items in all (arguments.maxKeys)',
      );
      expect(bounds.check({ a: { b: [1, 2, 3] }, c: { d: [1, 2, 3] } })).toBeUndefined();
      expect(bounds.check({ a: { b: [1, 2, 3] }, c: { d: [1, 2, 3, 4] } })).toMatch(/more than 10 object keys/);
    });

    it('bounds the nesting depth, the arguments object being level 1', () => {
      const nest = (levels: number): Record<string, unknown> => (levels === 1 ? {} : { a: nest(levels - 1) });
      expect(open({ maxDepth: 3 }).check(nest(3))).toBeUndefined();
      expect(open({ maxDepth: 3 }).check(nest(4))).toBe(
        'Invalid arguments: the value at /a/a/a is nested deeper than 3 levels (arguments.maxDepth)',
      );
      expect(open({ maxDepth: 2 }).check({ list: [[1]] })).toMatch(/at \/list\/0 is nested deeper than 2/);
    });

    it('survives a deeply nested value without overflowing the stack', () => {
      let deep: unknown = 'bottom';
      for (let level = 0; level < 100_000; level++) deep = [deep];
      expect(open().check({ deep })).toMatch(/nested deeper than 32 levels/);
    });

    it('bounds the length of strings and of keys', () => {
      const bounds = open({ maxStringLength: 4 });
      expect(bounds.check({ abcd: 'abcd' })).toBeUndefined();
      expect(bounds.check({ text: ['ok', 'abcde'] })).toBe(
        'Invalid arguments: a string at /text/1 is longer than 4 characters (arguments.maxStringLength)',
      );
      expect(bounds.check({ abcde: 1 })).toBe(
        'Invalid arguments: a key at the top level is longer than 4 characters (arguments.maxStringLength)',
      );
    });

    it('echoes no control characters and no long keys in the path', () => {
      const message = open({ maxDepth: 2 }).check({ ['\u202eevil\n' + 'x'.repeat(1000)]: { a: {} } })!;
      expect(message).not.toMatch(/[\u202e\n]/);
      expect(message.length).toBeLessThan(300);
    });

    it('refuses a limit that is not a positive integer at start-up', () => {
      expect(() => open({ maxKeys: 0 })).toThrow('arguments.maxKeys must be a positive integer');
      expect(() => open({ maxDepth: 1.5 })).toThrow('arguments.maxDepth must be a positive integer');
      expect(() => open({ maxStringLength: undefined })).not.toThrow();
    });

    it('refuses exactly the values past a bound (compared with measuring the whole value)', () => {
      const limits = { maxKeys: 12, maxObjectKeys: 4, maxDepth: 4, maxStringLength: 6 };
      const bounds = open(limits);
      fc.assert(
        fc.property(
          fc.dictionary(fc.string({ maxLength: 8 }), fc.jsonValue({ maxDepth: 5 }), { maxKeys: 6 }),
          (args) => {
            const size = measure(args, 1);
            const within =
              size.keys <= limits.maxKeys &&
              size.objectKeys <= limits.maxObjectKeys &&
              size.depth <= limits.maxDepth &&
              size.string <= limits.maxStringLength;
            expect(bounds.check(args) === undefined).toBe(within);
          },
        ),
        { numRuns: 500 },
      );
    });
  });

  it('bounds whole params one level deeper and with room beside the arguments', () => {
    const bounds = ArgumentBounds.forParams({ maxDepth: 2, maxKeys: 10 });
    expect(bounds.check({ name: 't', arguments: { a: { b: 1 } } }, 'params')).toBeUndefined();
    expect(bounds.check({ name: 't', arguments: { a: { b: {} } } }, 'params')).toMatch(
      /^Invalid params: the value at \/arguments\/a\/b is nested deeper than 3 levels/,
    );
    expect(bounds.check({ name: 't', arguments: manyKeys(60) }, 'params')).toBeUndefined();
    expect(bounds.check({ name: 't', arguments: manyKeys(80) }, 'params')).toMatch(/more than 74 object keys/);
  });
});

interface Size {
  keys: number;
  objectKeys: number;
  depth: number;
  string: number;
}

/** Everything about a value's size that a bound looks at, measured over the whole value. */
function measure(value: unknown, depth: number): Size {
  if (typeof value === 'string') return { keys: 0, objectKeys: 0, depth: 0, string: value.length };
  if (typeof value !== 'object' || value === null) return { keys: 0, objectKeys: 0, depth: 0, string: 0 };
  const entries = Array.isArray(value) ? value.map((item) => ['', item] as const) : Object.entries(value);
  const size: Size = {
    keys: entries.length,
    objectKeys: Array.isArray(value) ? 0 : entries.length,
    depth,
    string: Array.isArray(value) ? 0 : Math.max(0, ...entries.map(([key]) => key.length)),
  };
  for (const [, item] of entries) {
    const inner = measure(item, depth + 1);
    size.keys += inner.keys;
    size.objectKeys = Math.max(size.objectKeys, inner.objectKeys);
    size.depth = Math.max(size.depth, inner.depth);
    size.string = Math.max(size.string, inner.string);
  }
  return size;
}
