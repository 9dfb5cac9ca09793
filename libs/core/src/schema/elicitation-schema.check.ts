import { isJsonObject } from '../json/json-object';

const STRING_FORMATS = ['email', 'uri', 'date', 'date-time'];
// Keywords that would nest or combine schemas; only the enum forms below may use some of them.
const STRUCTURAL = [
  'properties',
  'additionalProperties',
  'patternProperties',
  'items',
  'prefixItems',
  '$ref',
  '$defs',
  'definitions',
  'allOf',
  'anyOf',
  'oneOf',
  'not',
  'if',
  'then',
  'else',
];

type Json = Record<string, unknown>;

/**
 * Lists why `schema` is not an MCP elicitation form schema: an object schema whose properties
 * are flat primitives (string, number, integer, boolean), string enums (plain, titled with
 * `oneOf` of `{const, title}`, or legacy `enumNames`), or multi-select arrays of string enums.
 * An empty list means the schema fits.
 */
export function checkElicitationSchema(schema: unknown): string[] {
  if (!isJsonObject(schema)) return ['schema must be an object'];
  const problems: string[] = [];
  if (schema.type !== 'object') problems.push('type must be "object"');
  if (!isJsonObject(schema.properties)) return [...problems, 'properties must be an object'];
  const names = Object.keys(schema.properties);
  if (schema.required !== undefined) {
    if (!isStringArray(schema.required)) problems.push('required must be an array of strings');
    else {
      for (const name of schema.required.filter((n) => !names.includes(n))) {
        problems.push(`required names unknown property "${name}"`);
      }
    }
  }
  for (const name of names) {
    for (const problem of checkProperty(schema.properties[name])) problems.push(`property "${name}": ${problem}`);
  }
  return problems;
}

function checkProperty(prop: unknown): string[] {
  if (!isJsonObject(prop)) return ['must be a schema object'];
  switch (prop.type) {
    case 'string':
      return [...checkString(prop), ...unexpected(prop, ['oneOf'])];
    case 'number':
    case 'integer':
    case 'boolean':
      return unexpected(prop, []);
    case 'array':
      return [...checkMultiSelect(prop), ...unexpected(prop, ['items'])];
    default:
      return ['type must be one of string, number, integer, boolean, array'];
  }
}

function checkString(prop: Json): string[] {
  const problems: string[] = [];
  if (prop.format !== undefined && !STRING_FORMATS.includes(prop.format as string)) {
    problems.push(`format must be one of ${STRING_FORMATS.join(', ')}`);
  }
  if (prop.enum !== undefined && !isNonEmptyStringArray(prop.enum)) {
    problems.push('enum must be a non-empty array of strings');
  }
  const labels = prop.enumNames;
  const labelsFit = isStringArray(labels) && Array.isArray(prop.enum) && labels.length === prop.enum.length;
  if (labels !== undefined && !labelsFit) {
    problems.push('enumNames must be strings, one per enum value');
  }
  if (prop.oneOf !== undefined && !isTitledOptions(prop.oneOf)) {
    problems.push('oneOf must be a non-empty array of { const, title } strings');
  }
  return problems;
}

function checkMultiSelect(prop: Json): string[] {
  const items = prop.items;
  if (!isJsonObject(items)) return ['items must be an object'];
  if (items.anyOf !== undefined) {
    return isTitledOptions(items.anyOf) ? [] : ['items.anyOf must be a non-empty array of { const, title } strings'];
  }
  if (items.type !== 'string' || !isNonEmptyStringArray(items.enum)) return ['items must be a string enum'];
  return [];
}

function unexpected(prop: Json, allowed: string[]): string[] {
  return STRUCTURAL.filter((key) => Object.hasOwn(prop, key) && !allowed.includes(key)).map(
    (key) => `${key} is not allowed`,
  );
}

function isTitledOptions(value: unknown): boolean {
  return (
    Array.isArray(value) &&
    value.length > 0 &&
    value.every(
      (option) => isJsonObject(option) && typeof option.const === 'string' && typeof option.title === 'string',
    )
  );
}

function isStringArray(value: unknown): value is string[] {
  return Array.isArray(value) && value.every((item) => typeof item === 'string');
}

function isNonEmptyStringArray(value: unknown): value is string[] {
  return isStringArray(value) && value.length > 0;
}
