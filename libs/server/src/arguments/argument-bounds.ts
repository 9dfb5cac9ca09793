import { isJsonObject, sanitizeText } from '@conduit-mcp/core';
import type { McpArgumentLimits } from '../interfaces/mcp-module-options.interface';

/** The bounds on `tools/call` arguments when the options set none. */
export const DEFAULT_ARGUMENT_LIMITS: Readonly<Required<McpArgumentLimits>> = Object.freeze({
  maxKeys: 10_000,
  maxObjectKeys: 256,
  maxDepth: 32,
  maxStringLength: 1024 * 1024,
});

/** What an input schema says about the size of the arguments it can accept. */
interface Shape {
  /**
   * The properties of a closed object (one that admits no property beyond those it declares): holding more keys than
   * these, it cannot be valid.
   */
  closed?: string[];
  properties?: Map<string, Shape>;
  items?: Shape;
}

const OPEN: Shape = Object.freeze({});
const MAX_NAMES_SHOWN = 10;
const MAX_PATH_CHARS = 256;
const MAX_STEP_CHARS = 64;
const MAX_MESSAGE_CHARS = 1024;
/** Keys and items allowed in a request's params beside its arguments. */
const PARAMS_ROOM = 64;

interface Refusal {
  message: string;
  /** Keys and indexes from the arguments down to where the bound was passed, innermost first. */
  path: string[];
}

/**
 * Bounds on the work a tool's arguments can cause, checked before any validation (class-transformer, for one, is
 * quadratic in the keys of an object): total keys and array items, keys per object, nesting depth, string length,
 * and — derived from the input schema — no more keys in a closed object than the properties it declares. The walk
 * stops at the first bound passed, so refusing costs no more than the bound.
 */
export class ArgumentBounds {
  private readonly limits: Required<McpArgumentLimits>;
  private seen = 0;

  private constructor(
    private readonly root: Shape,
    limits: McpArgumentLimits | undefined,
  ) {
    this.limits = { ...DEFAULT_ARGUMENT_LIMITS, ...definedOnly(limits) };
    for (const [name, value] of Object.entries(this.limits)) {
      if (!Number.isSafeInteger(value) || value < 1) throw new Error(`arguments.${name} must be a positive integer`);
    }
  }

  /**
   * `dto`: the schema was generated from a DTO class, whose object schemas list every property the class has, so an
   * object schema with `properties` and no `additionalProperties` or `patternProperties` is closed. Otherwise only an
   * object schema with `additionalProperties: false` and no `patternProperties` is.
   */
  static forSchema(schema: object, limits: McpArgumentLimits | undefined, dto: boolean): ArgumentBounds {
    return new ArgumentBounds(new ShapeCompiler(schema, dto).shapeOf(schema), limits);
  }

  /**
   * The bounds on the whole params of a request that carries arguments one level down (`tools/call`, `prompts/get`),
   * with no schema: the argument limits, one level deeper and with room for the other params.
   */
  static forParams(limits: McpArgumentLimits | undefined): ArgumentBounds {
    const own = { ...DEFAULT_ARGUMENT_LIMITS, ...definedOnly(limits) };
    return new ArgumentBounds(OPEN, { ...own, maxDepth: own.maxDepth + 1, maxKeys: own.maxKeys + PARAMS_ROOM });
  }

  /** Why `value` passes a bound (a message naming it), or undefined when it is within every bound. */
  check(value: Record<string, unknown>, label = 'arguments'): string | undefined {
    this.seen = 0;
    const refusal = this.visit(value, this.root, 1);
    if (!refusal) return undefined;
    const at = refusal.path.length
      ? sanitizeText(`/${refusal.path.reverse().join('/')}`, MAX_PATH_CHARS)
      : 'the top level';
    return sanitizeText(`Invalid ${label}: ${refusal.message.replace('{at}', at)}`, MAX_MESSAGE_CHARS);
  }

  // Recursion is as deep as the arguments, which maxDepth bounds before each step down.
  private visit(value: unknown, shape: Shape, depth: number): Refusal | undefined {
    if (typeof value === 'string') {
      return value.length > this.limits.maxStringLength
        ? refuse(
            `a string at {at} is longer than ${this.limits.maxStringLength} characters (arguments.maxStringLength)`,
          )
        : undefined;
    }
    if (typeof value !== 'object' || value === null) return undefined;
    if (depth > this.limits.maxDepth) {
      return refuse(`the value at {at} is nested deeper than ${this.limits.maxDepth} levels (arguments.maxDepth)`);
    }
    return Array.isArray(value) ? this.visitArray(value, shape, depth) : this.visitObject(value, shape, depth);
  }

  private visitArray(value: unknown[], shape: Shape, depth: number): Refusal | undefined {
    this.seen += value.length;
    if (this.seen > this.limits.maxKeys) return this.tooManyInAll();
    const items = shape.items ?? OPEN;
    for (let index = 0; index < value.length; index++) {
      const refusal = this.visit(value[index], items, depth + 1);
      if (refusal) return within(refusal, String(index));
    }
    return undefined;
  }

  private visitObject(value: object, shape: Shape, depth: number): Refusal | undefined {
    const { maxObjectKeys, maxStringLength } = this.limits;
    let keys = 0;
    for (const key in value) {
      if (!Object.hasOwn(value, key)) continue;
      keys++;
      if (shape.closed && keys > shape.closed.length) return refuse(closedMessage(shape.closed));
      if (keys > maxObjectKeys)
        return refuse(`the object at {at} has more than ${maxObjectKeys} keys (arguments.maxObjectKeys)`);
      if (++this.seen > this.limits.maxKeys) return this.tooManyInAll();
      if (key.length > maxStringLength) {
        return refuse(`a key at {at} is longer than ${maxStringLength} characters (arguments.maxStringLength)`);
      }
      const refusal = this.visit(
        (value as Record<string, unknown>)[key],
        shape.properties?.get(key) ?? OPEN,
        depth + 1,
      );
      if (refusal) return within(refusal, key);
    }
    return undefined;
  }

  private tooManyInAll(): Refusal {
    return refuse(`more than ${this.limits.maxKeys} object keys and array items in all (arguments.maxKeys)`);
  }
}

/** Compiles a schema's shapes once, following local `$ref`s (`#/$defs/…`, `#/definitions/…`), cycles included. */
class ShapeCompiler {
  private readonly shapes = new Map<object, Shape>();

  constructor(
    private readonly root: object,
    private readonly dto: boolean,
  ) {}

  shapeOf(schema: unknown): Shape {
    if (!isJsonObject(schema)) return OPEN;
    const known = this.shapes.get(schema);
    if (known) return known;
    if (typeof schema.$ref === 'string') {
      // Keywords beside a $ref can only narrow it, so the referenced schema's bounds still hold. Open until resolved,
      // so that a cycle of bare references ends.
      this.shapes.set(schema, OPEN);
      const target = this.resolve(schema.$ref);
      const shape = target === undefined ? OPEN : this.shapeOf(target);
      this.shapes.set(schema, shape);
      return shape;
    }
    const shape: Shape = {};
    this.shapes.set(schema, shape);
    const properties = isJsonObject(schema.properties) ? schema.properties : undefined;
    if (properties) {
      shape.properties = new Map(Object.entries(properties).map(([name, sub]) => [name, this.shapeOf(sub)]));
      if (this.closes(schema)) shape.closed = Object.keys(properties);
    } else if (schema.additionalProperties === false && schema.patternProperties === undefined) {
      shape.closed = [];
    }
    if (isJsonObject(schema.items)) shape.items = this.shapeOf(schema.items);
    return shape;
  }

  private closes(schema: Record<string, unknown>): boolean {
    if (schema.patternProperties !== undefined) return false;
    const additional = schema.additionalProperties;
    return additional === false || (this.dto && additional === undefined);
  }

  private resolve(ref: string): unknown {
    const match = /^#\/(\$defs|definitions)\/([^/]+)$/.exec(ref);
    if (!match) return undefined;
    const defs = (this.root as Record<string, unknown>)[match[1]];
    const name = match[2].replace(/~1/g, '/').replace(/~0/g, '~');
    return isJsonObject(defs) && Object.hasOwn(defs, name) ? defs[name] : undefined;
  }
}

function refuse(message: string): Refusal {
  return { message, path: [] };
}

function within(refusal: Refusal, step: string): Refusal {
  refusal.path.push(step.length > MAX_STEP_CHARS ? `${step.slice(0, MAX_STEP_CHARS)}…` : step);
  return refusal;
}

function closedMessage(names: string[]): string {
  const shown = names.slice(0, MAX_NAMES_SHOWN).join(', ') + (names.length > MAX_NAMES_SHOWN ? ', …' : '');
  return names.length
    ? `the object at {at} has more keys than the ${names.length} properties its schema declares (${shown})`
    : 'the object at {at} has keys, but its schema declares no properties';
}

function definedOnly(limits: McpArgumentLimits | undefined): McpArgumentLimits {
  return Object.fromEntries(Object.entries(limits ?? {}).filter(([, value]) => value !== undefined));
}
