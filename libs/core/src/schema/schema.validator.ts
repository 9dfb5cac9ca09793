import Ajv2020, { ErrorObject, ValidateFunction } from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import { sanitizeText } from '../text/text.sanitizer';

/** Outcome of validating data against a schema; error lines read like `/city must be string`. */
export type ValidationResult = { valid: true } | { valid: false; errors: string[] };

/** A compiled schema, ready to validate data. */
export type CompiledSchema = (data: unknown) => ValidationResult;

const DRAFT_2020_12 = 'https://json-schema.org/draft/2020-12/schema';
const MAX_ERRORS = 20;
/** Most schemas remembered by content (a schema built afresh per request, e.g. an elicitation's, compiles once). */
const MAX_BY_CONTENT = 256;

/**
 * JSON Schema (2020-12) validation with formats. Each schema is compiled once: cached by identity, and by content for
 * the last few hundred distinct schemas, so a schema literal rebuilt on every request does not recompile (a compile
 * costs a thousand times a validation). Schemas declaring another dialect (draft-07 tool schemas are common) are
 * read as 2020-12.
 */
export class SchemaValidator {
  private readonly ajv = new Ajv2020({ strict: false, allErrors: true, addUsedSchema: false });
  private readonly cache = new WeakMap<object, CompiledSchema>();
  private readonly byContent = new Map<string, CompiledSchema>();
  // Schemas assertWellFormed passed without compiling them (many tools may share one schema object).
  private readonly wellFormed = new WeakSet<object>();

  constructor() {
    addFormats(this.ajv);
  }

  /** Compiles (or returns the cached) validator for `schema`; throws when the schema is invalid. */
  compile(schema: object): CompiledSchema {
    let compiled = this.cache.get(schema);
    if (compiled) return compiled;
    const content = contentKey(schema);
    compiled = content === undefined ? undefined : this.byContent.get(content);
    if (!compiled) {
      const validate = this.compileWithAjv(schema);
      compiled = (data) => (validate(data) ? { valid: true } : { valid: false, errors: describe(validate.errors) });
      if (content !== undefined) {
        if (this.byContent.size >= MAX_BY_CONTENT) this.byContent.delete(this.byContent.keys().next().value!);
        this.byContent.set(content, compiled);
      }
    }
    this.cache.set(schema, compiled);
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

  /**
   * Throws like {@link assertValid} when `schema` is not a valid schema, without compiling it when it can tell so from
   * the meta-schema and its patterns alone (a schema without references): a server with thousands of tools starts without compiling
   * each schema, and compiles one on its first use. A schema with `$ref` or `$dynamicRef` is compiled now, since
   * only compiling finds a reference that does not resolve.
   */
  assertWellFormed(schema: unknown): void {
    if (typeof schema !== 'object' || schema === null || Array.isArray(schema)) {
      throw new Error('Invalid JSON Schema: expected a schema object');
    }
    if (this.cache.has(schema) || this.wellFormed.has(schema)) return;
    const { reference, badPattern } = precheck(schema);
    if (reference) return this.assertValid(schema);
    if (badPattern !== undefined)
      throw new Error(
        `Invalid JSON Schema: pattern "${sanitizeText(badPattern, 80)}" is not a valid regular expression`,
      );
    let valid: boolean;
    try {
      valid = this.ajv.validateSchema(sourceOf(schema)) as boolean;
    } catch (error) {
      throw new Error(`Invalid JSON Schema: ${error instanceof Error ? error.message : String(error)}`);
    }
    if (!valid) throw new Error(`Invalid JSON Schema: schema is invalid: ${this.ajv.errorsText(this.ajv.errors)}`);
    this.wellFormed.add(schema);
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
    const source = sourceOf(schema);
    const validate = this.ajv.compile(source);
    // Ajv also caches by object, strongly; drop its entry so the WeakMap alone decides the lifetime.
    this.ajv.removeSchema(source);
    return validate;
  }
}

// What Ajv reads: the schema, without a dialect other than 2020-12 (read as 2020-12).
function sourceOf(schema: object): object {
  const dialect = (schema as { $schema?: unknown }).$schema;
  return dialect === undefined || dialect === DRAFT_2020_12 ? schema : withoutDialect(schema);
}

// What the meta-schema cannot tell about a schema, found in one walk: whether a `$ref` or `$dynamicRef` appears (only
// compiling resolves it), or a `pattern` / `patternProperties` key that is no regular expression (as Ajv reads them).
function precheck(schema: object): { reference: boolean; badPattern?: string } {
  const stack: unknown[] = [schema];
  const seen = new Set<object>();
  while (stack.length) {
    const node = stack.pop();
    if (typeof node !== 'object' || node === null || seen.has(node)) continue;
    seen.add(node);
    if (!Array.isArray(node)) {
      const { $ref, $dynamicRef, pattern, patternProperties } = node as Record<string, unknown>;
      if ($ref !== undefined || $dynamicRef !== undefined) return { reference: true };
      const patterns = typeof pattern === 'string' ? [pattern] : [];
      if (typeof patternProperties === 'object' && patternProperties !== null)
        patterns.push(...Object.keys(patternProperties));
      for (const source of patterns) {
        try {
          new RegExp(source, 'u');
        } catch {
          return { reference: false, badPattern: source };
        }
      }
    }
    for (const value of Object.values(node)) if (typeof value === 'object' && value !== null) stack.push(value);
  }
  return { reference: false };
}

// The schema's JSON text, or undefined for what has none (a cycle, a BigInt): such a schema is cached by identity only.
function contentKey(schema: object): string | undefined {
  try {
    return JSON.stringify(schema);
  } catch {
    return undefined;
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
