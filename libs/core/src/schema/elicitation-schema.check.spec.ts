import { checkElicitationSchema } from './elicitation-schema.check';

describe('checkElicitationSchema', () => {
  it('accepts every form the spec allows', () => {
    const schema = {
      type: 'object',
      properties: {
        name: { type: 'string', title: 'Name', minLength: 1, maxLength: 50 },
        email: { type: 'string', format: 'email' },
        born: { type: 'string', format: 'date' },
        age: { type: 'integer', minimum: 0 },
        score: { type: 'number' },
        agree: { type: 'boolean', default: false },
        color: { type: 'string', enum: ['red', 'green'] },
        legacy: { type: 'string', enum: ['a', 'b'], enumNames: ['A', 'B'] },
        size: {
          type: 'string',
          oneOf: [
            { const: 's', title: 'Small' },
            { const: 'l', title: 'Large' },
          ],
        },
        tags: { type: 'array', items: { type: 'string', enum: ['x', 'y'] }, minItems: 1 },
        pets: { type: 'array', items: { anyOf: [{ const: 'cat', title: 'Cat' }] } },
      },
      required: ['name', 'email'],
    };
    expect(checkElicitationSchema(schema)).toEqual([]);
  });

  it('rejects non-object roots', () => {
    expect(checkElicitationSchema(null)).toEqual(['schema must be an object']);
    expect(checkElicitationSchema({ type: 'array', items: {} })).toEqual([
      'type must be "object"',
      'properties must be an object',
    ]);
  });

  it('rejects nesting, unknown types and bad formats', () => {
    const problems = checkElicitationSchema({
      type: 'object',
      properties: {
        address: { type: 'object', properties: { street: { type: 'string' } } },
        site: { type: 'string', format: 'hostname' },
        list: { type: 'array', items: { type: 'string' } },
        ref: { type: 'string', $ref: '#/x' },
        any: { anyOf: [{ type: 'string' }] },
        num: { type: 'number', allOf: [] },
        choice: { type: 'string', oneOf: [{ const: 'a' }] },
        empty: { type: 'string', enum: [] },
        labels: { type: 'string', enum: ['a'], enumNames: ['A', 'B'] },
      },
      required: ['missing'],
    });
    expect(problems).toEqual([
      'required names unknown property "missing"',
      'property "address": type must be one of string, number, integer, boolean, array',
      'property "site": format must be one of email, uri, date, date-time',
      'property "list": items must be a string enum',
      'property "ref": $ref is not allowed',
      'property "any": type must be one of string, number, integer, boolean, array',
      'property "num": allOf is not allowed',
      'property "choice": oneOf must be a non-empty array of { const, title } strings',
      'property "empty": enum must be a non-empty array of strings',
      'property "labels": enumNames must be strings, one per enum value',
    ]);
  });
});
