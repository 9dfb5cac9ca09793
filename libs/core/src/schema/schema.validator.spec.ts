import { SchemaValidator } from './schema.validator';

describe('SchemaValidator', () => {
  const weather = {
    type: 'object',
    properties: {
      city: { type: 'string' },
      days: { type: 'integer', minimum: 1 },
      email: { type: 'string', format: 'email' },
    },
    required: ['city'],
    additionalProperties: false,
  };

  it('accepts valid data', () => {
    expect(new SchemaValidator().validate(weather, { city: 'Oslo', days: 3 })).toEqual({ valid: true });
  });

  it('reports every error in readable form', () => {
    const result = new SchemaValidator().validate(weather, { city: 7, days: 0, email: 'nope', extra: 1 });
    expect(result.valid).toBe(false);
    if (result.valid) return;
    expect(result.errors).toEqual(
      expect.arrayContaining([
        '/city must be string',
        '/days must be >= 1',
        '/email must match format "email"',
        "must NOT have additional property 'extra'",
      ]),
    );
    expect(new SchemaValidator().validate(weather, {})).toEqual({
      valid: false,
      errors: ["must have required property 'city'"],
    });
  });

  it('lists allowed enum values and sanitizes reflected keys', () => {
    const validator = new SchemaValidator();
    expect(validator.validate({ enum: ['a', 'b'] }, 'c')).toEqual({
      valid: false,
      errors: ['must be one of "a", "b"'],
    });
    const result = validator.validate(
      { type: 'object', additionalProperties: { type: 'string' } },
      { 'evil\u202E\nkey': 1 },
    );
    expect(result).toEqual({ valid: false, errors: ['/evilkey must be string'] });
  });

  it('caps the number of reported errors', () => {
    const result = new SchemaValidator().validate({ type: 'array', items: { type: 'string' } }, new Array(50).fill(1));
    expect(result.valid).toBe(false);
    if (result.valid) return;
    expect(result.errors).toHaveLength(21);
    expect(result.errors[20]).toBe('… and 30 more errors');
  });

  it('compiles each schema once, by identity and by content', () => {
    const validator = new SchemaValidator();
    const compiled = validator.compile(weather);
    expect(validator.compile(weather)).toBe(compiled);
    // A schema rebuilt with the same content (an elicitation schema literal, per request) is not compiled again.
    expect(validator.compile(JSON.parse(JSON.stringify(weather)))).toBe(compiled);
    expect(validator.compile({ ...weather, required: [] })).not.toBe(compiled);
  });

  it('keeps a bounded number of schemas by content, and still validates the rest correctly', () => {
    const validator = new SchemaValidator();
    const first = validator.compile({ type: 'string', maxLength: 0 });
    for (let n = 1; n <= 300; n++) {
      expect(validator.validate({ type: 'string', maxLength: n }, 'x'.repeat(n + 1))).toEqual({
        valid: false,
        errors: [expect.stringContaining('must NOT have more than')],
      });
    }
    const again = validator.compile({ type: 'string', maxLength: 0 });
    expect(again).not.toBe(first); // evicted: compiled anew, with the same verdicts
    expect(again('')).toEqual({ valid: true });
    expect(again('x')).toMatchObject({ valid: false });
  });

  it('compiles distinct schemas that share an $id', () => {
    const validator = new SchemaValidator();
    expect(validator.validate({ $id: 'https://example.com/point', type: 'string' }, 'a')).toEqual({ valid: true });
    expect(validator.validate({ $id: 'https://example.com/point', type: 'number' }, 1)).toEqual({ valid: true });
  });

  it('reads draft-07 schemas', () => {
    const validator = new SchemaValidator();
    const draft7 = {
      $schema: 'http://json-schema.org/draft-07/schema#',
      type: 'object',
      properties: { n: { $ref: '#/definitions/positive' } },
      definitions: { positive: { type: 'number', exclusiveMinimum: 0 } },
    };
    expect(() => validator.assertValid(draft7)).not.toThrow();
    expect(validator.validate(draft7, { n: 2 })).toEqual({ valid: true });
    expect(validator.validate(draft7, { n: 0 })).toEqual({ valid: false, errors: ['/n must be > 0'] });
  });

  it('checks a schema at start-up without compiling it, unless it has references: those compile now', () => {
    const validator = new SchemaValidator();
    const compile = jest.spyOn(validator as unknown as { compileWithAjv: () => unknown }, 'compileWithAjv');
    expect(() => validator.assertWellFormed({ type: 'nope' })).toThrow(/^Invalid JSON Schema: schema is invalid/);
    expect(() => validator.assertWellFormed({ type: 'string', pattern: '(' })).toThrow(/Invalid JSON Schema/);
    expect(() => validator.assertWellFormed([])).toThrow('Invalid JSON Schema: expected a schema object');
    const plain = { type: 'object', properties: { n: { type: 'integer', minimum: 1 } }, required: ['n'] };
    validator.assertWellFormed(plain);
    validator.assertWellFormed({ $schema: 'http://json-schema.org/draft-07/schema#', type: 'object' });
    expect(compile).not.toHaveBeenCalled();
    expect(() => validator.assertWellFormed({ properties: { a: { $ref: '#/missing' } } })).toThrow(
      /Invalid JSON Schema/,
    );
    const withRef = { $defs: { n: { type: 'integer' } }, properties: { n: { $ref: '#/$defs/n' } } };
    validator.assertWellFormed(withRef);
    expect(compile).toHaveBeenCalledTimes(2);
    expect(validator.validate(plain, { n: 0 })).toEqual({ valid: false, errors: ['/n must be >= 1'] });
    expect(compile).toHaveBeenCalledTimes(3);
  });

  it('rejects schemas that do not compile', () => {
    const validator = new SchemaValidator();
    expect(() => validator.assertValid({ type: 'nope' })).toThrow(/^Invalid JSON Schema: schema is invalid/);
    expect(() => validator.assertValid({ $ref: '#/missing' })).toThrow(/Invalid JSON Schema/);
    expect(() => validator.assertValid(null)).toThrow('Invalid JSON Schema: expected a schema object');
    expect(() => validator.validate({ type: 'nope' }, 1)).toThrow();
    expect(validator.isValidSchema({ type: 'nope' })).toBe(false);
    expect(validator.isValidSchema([])).toBe(false);
    expect(validator.isValidSchema(weather)).toBe(true);
  });
});
