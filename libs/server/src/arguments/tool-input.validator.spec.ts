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

  it('refuses an invalid JSON Schema when it is declared', () => {
    expect(() =>
      createToolInputValidator({ type: 'object', properties: { n: { type: 'nonsense' } } } as never, schemas),
    ).toThrow(/Invalid JSON Schema/);
  });
});
