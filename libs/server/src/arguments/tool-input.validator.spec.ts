import 'reflect-metadata';
import { SchemaValidator } from '@conduit-mcp/core';
import { Type } from 'class-transformer';
import { IsInt, IsString, Min, ValidateNested } from 'class-validator';
import { createToolInputValidator } from './tool-input.validator';

class Address {
  @IsString()
  city: string;
}

class Person {
  @IsString()
  name: string;

  @IsInt()
  @Min(0)
  age: number;

  @ValidateNested()
  @Type(() => Address)
  address: Address;
}

describe('tool input validators', () => {
  const schemas = new SchemaValidator();

  it('generates a self-contained JSON Schema from a DTO, nested DTOs in $defs', () => {
    const { schema } = createToolInputValidator(Person, schemas);
    expect(schema).toMatchObject({
      type: 'object',
      properties: {
        name: { type: 'string' },
        age: { type: 'integer', minimum: 0 },
        address: { $ref: '#/$defs/Address' },
      },
      required: expect.arrayContaining(['name', 'age', 'address']),
      $defs: { Address: { properties: { city: { type: 'string' } } } },
    });
    expect(schemas.isValidSchema(schema)).toBe(true);
  });

  it('validates with class-validator and hands over an instance', async () => {
    const validator = createToolInputValidator(Person, schemas);
    const ok = await validator.check({ name: 'Ada', age: 36, address: { city: 'London' } });
    expect(ok.ok && ok.value).toBeInstanceOf(Person);
    const bad = await validator.check({ name: 1, age: -1, address: { city: 2 } });
    expect(bad).toEqual({
      ok: false,
      problems: expect.arrayContaining([
        expect.stringMatching(/name/),
        expect.stringMatching(/age/),
        expect.stringMatching(/address\.city/),
      ]),
    });
  });

  it('validates a raw JSON Schema with ajv, and an absent input accepts no-argument calls', async () => {
    const validator = createToolInputValidator(
      { type: 'object', properties: { n: { type: 'number' } }, required: ['n'] },
      schemas,
    );
    expect(await validator.check({ n: 1 })).toEqual({ ok: true, value: { n: 1 } });
    expect(await validator.check({})).toMatchObject({ ok: false });
    expect(createToolInputValidator(undefined, schemas).schema).toEqual({ type: 'object', properties: {} });
  });

  describe('arguments past their bounds', () => {
    const attack = () => Object.fromEntries(Array.from({ length: 200_000 }, (_, index) => [`k${index}`, index]));
    const invalidParams = expect.objectContaining({
      code: -32602,
      message: expect.stringMatching(/^Invalid arguments: /),
    });

    it('refuses 200 000 keys to a DTO tool with -32602 before class-transformer sees them, well within a second', async () => {
      const validator = createToolInputValidator(Person, schemas);
      const args = attack();
      const started = performance.now();
      await expect(validator.check(args)).rejects.toEqual(invalidParams);
      expect(performance.now() - started).toBeLessThan(1_000);
      expect(await validator.check({ name: 'Ada', age: 36, address: { city: 'London' } })).toMatchObject({ ok: true });
    });

    it('refuses 200 000 keys to a JSON Schema tool with -32602, open or closed, before ajv sees them', () => {
      for (const additionalProperties of [undefined, false]) {
        const validator = createToolInputValidator(
          {
            type: 'object',
            properties: { n: { type: 'number' } },
            ...(additionalProperties === false ? { additionalProperties } : {}),
          },
          schemas,
        );
        const args = attack();
        const started = performance.now();
        expect(() => validator.check(args)).toThrow(invalidParams);
        expect(performance.now() - started).toBeLessThan(1_000);
        expect(validator.check({ n: 1 })).toEqual({ ok: true, value: { n: 1 } });
      }
    });

    it('applies the limits it is given, and keeps reporting invalid arguments as problems', async () => {
      const validator = createToolInputValidator(
        { type: 'object', properties: { list: { type: 'array', items: { type: 'number' } } } },
        schemas,
        { maxKeys: 5 },
      );
      expect(() => validator.check({ list: [1, 2, 3, 4, 5] })).toThrow(/more than 5 object keys and array items/);
      expect(validator.check({ list: [1, 'x'] })).toMatchObject({ ok: false, problems: ['/list/1 must be number'] });
      const dto = createToolInputValidator(Person, schemas, { maxStringLength: 4 });
      await expect(dto.check({ name: 'Grace' })).rejects.toThrow(/a string at \/name is longer than 4 characters/);
    });
  });

  it('refuses an invalid JSON Schema when it is declared', () => {
    expect(() =>
      createToolInputValidator({ type: 'object', properties: { n: { type: 'nonsense' } } } as never, schemas),
    ).toThrow(/Invalid JSON Schema/);
  });
});
