import Ajv2020, { ErrorObject, ValidateFunction } from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import { sanitizeText } from '../text/text.sanitizer';

/** Outcome of validating data against a schema; error lines read like `/city must be string`. */
export type ValidationResult = { valid: true } | { valid: false; errors: string[] };

/** A compiled schema, ready to validate data. */
export type CompiledSchema = (data: unknown) => ValidationResult;

const DRAFT_2020_12 = 'https://json-schema.org/draft/2020-12/schema';
const MAX_ERRORS = 20;

/**
 * JSON Schema (2020-12) validation with formats. Each schema object is compiled once and cached
 * by identity, so pass the same object for repeated validations. Schemas declaring another
 * dialect (draft-07 tool schemas are common) are read as 2020-12.
 */
export class SchemaValidator {
  private readonly ajv = new Ajv2020({ strict: false, allErrors: true, addUsedSchema: false });
  private readonly cache = new WeakMap<object, CompiledSchema>();

  constructor() {
    addFormats(this.ajv);
  }

  /** Compiles (or returns the cached) validator for `schema`; throws when the schema is invalid. */
  compile(schema: object): CompiledSchema {
    let compiled = this.cache.get(schema);
    if (!compiled) {
      const validate = this.compileWithAjv(schema);
      compiled = (data) => (validate(data) ? { valid: true } : { valid: false, errors: describe(validate.errors) });
      this.cache.set(schema, compiled);
    }
    return compiled;
  }

  /** Validates `data` against `schema`; throws only when the schema itself is invalid. */
  validate(schema: object, data: unknown): ValidationResult {
    return this.compile(schema)(data);
  }

  /** Throws an Error naming the problem when `schema` does not compile; meant for startup checks. */
  assertValid(schema: unknown): void {
    if (typeof schema !== 'object' || schema === null || Array.isArray(schema)) {
      throw new Error('Invalid JSON Schema: expected a schema object');
    }
    try {
      this.compile(schema);
    } catch (error) {
      throw new Error(`Invalid JSON Schema: ${error instanceof Error ? error.message : String(error)}`);
    }
  }

  /** Whether `schema` is a schema object that compiles. */
  isValidSchema(schema: unknown): boolean {
    try {
      this.assertValid(schema);
      return true;
    } catch {
      return false;
    }
  }

  private compileWithAjv(schema: object): ValidateFunction {
    const dialect = (schema as { $schema?: unknown }).$schema;
    const source = dialect === undefined || dialect === DRAFT_2020_12 ? schema : withoutDialect(schema);
    const validate = this.ajv.compile(source);
    // Ajv also caches by object, strongly; drop its entry so the WeakMap alone decides the lifetime.
    this.ajv.removeSchema(source);
    return validate;
  }
}

function withoutDialect(schema: object): object {
  const { $schema: _dialect, ...rest } = schema as Record<string, unknown>;
  return rest;
}

function describe(errors: ErrorObject[] | null | undefined): string[] {
  const list = errors ?? [];
  const lines = list.slice(0, MAX_ERRORS).map((error) => sanitizeText(describeOne(error)));
  if (list.length > MAX_ERRORS) lines.push(`… and ${list.length - MAX_ERRORS} more errors`);
  return lines;
}

function describeOne({ instancePath, keyword, message, params }: ErrorObject): string {
  let text = message ?? 'is invalid';
  if (keyword === 'additionalProperties') text = `must NOT have additional property '${params.additionalProperty}'`;
  if (keyword === 'enum') {
    text = `must be one of ${(params.allowedValues as unknown[]).map((value) => JSON.stringify(value)).join(', ')}`;
  }
  return instancePath ? `${instancePath} ${text}` : text;
}
