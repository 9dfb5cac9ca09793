/**
 * The 2026-07-28 Streamable HTTP request headers that mirror body fields: `Mcp-Name` and the `Mcp-Param-{Name}` of
 * tool arguments whose input schema property carries `x-mcp-header`. Values that are not safe header text travel
 * as `=?base64?…?=`.
 */

/** A tool argument mirrored into an `Mcp-Param-{header}` header. */
export interface HeaderParam {
  header: string;
  path: string[];
}

// A value wrapped as `=?base64?…?=` is encoded; anything else, even if it starts alike, is literal.
const BASE64_SENTINEL = /^=\?base64\?(.*)\?=$/s;
const STRICT_BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;
const SAFE_VALUE = /^[\x21-\x7e]([\x20-\x7e]*[\x21-\x7e])?$/;
/** An HTTP field-name token (RFC 9110). */
const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
/** The types `x-mcp-header` may annotate (2026-07-28, Streamable HTTP "Schema Extension"). */
const HEADER_TYPES = new Set(['string', 'integer', 'boolean']);
/** Keywords under which an `x-mcp-header` makes the declaration invalid: only plain `properties` paths may carry one. */
const NESTED_KEYWORDS = [
  'items',
  'prefixItems',
  'additionalProperties',
  'oneOf',
  'anyOf',
  'allOf',
  'not',
  'if',
  'then',
  'else',
  '$defs',
  'definitions',
];

/** The `x-mcp-header` arguments of a tool input schema, at any depth of `properties`. */
export function headerParamsOf(schema: Record<string, unknown>, path: string[] = []): HeaderParam[] {
  const properties = schema.properties;
  if (!properties || typeof properties !== 'object') return [];
  return Object.entries(properties as Record<string, Record<string, unknown>>).flatMap(([key, property]) => {
    if (!property || typeof property !== 'object') return [];
    const here =
      typeof property['x-mcp-header'] === 'string'
        ? [{ header: property['x-mcp-header'] as string, path: [...path, key] }]
        : [];
    return [...here, ...headerParamsOf(property, [...path, key])];
  });
}

/**
 * Problems with a tool's `x-mcp-header` declarations: a header name that is not an HTTP token, a name used twice
 * (case-insensitively), an annotated property that is not a string, integer or boolean, or an annotation reached
 * through anything but `properties` (array items, composition keywords, `$ref` targets). Empty when valid.
 */
export function headerDeclarationProblems(schema: Record<string, unknown>): string[] {
  const problems: string[] = [];
  const seen = new Set<string>();
  const walk = (node: Record<string, unknown>, path: string[]) => {
    const properties = node.properties;
    if (!properties || typeof properties !== 'object') return;
    for (const [key, property] of Object.entries(properties as Record<string, Record<string, unknown>>)) {
      if (!property || typeof property !== 'object') continue;
      const header = property['x-mcp-header'];
      const at = [...path, key].join('.');
      if (header !== undefined) {
        if (typeof header !== 'string' || !TOKEN.test(header))
          problems.push(`${at}: x-mcp-header must be an HTTP header name`);
        else if (seen.has(header.toLowerCase())) problems.push(`${at}: x-mcp-header "${header}" is used twice`);
        else seen.add(header.toLowerCase());
        if (!HEADER_TYPES.has(property.type as string))
          problems.push(`${at}: x-mcp-header needs a string, integer or boolean`);
      }
      for (const keyword of NESTED_KEYWORDS) {
        if (property[keyword] !== undefined && mentionsHeader(property[keyword]))
          problems.push(`${at}: x-mcp-header inside ${keyword} cannot be mirrored`);
      }
      walk(property, [...path, key]);
    }
  };
  walk(schema, []);
  return problems;
}

function mentionsHeader(node: unknown): boolean {
  if (Array.isArray(node)) return node.some(mentionsHeader);
  if (!node || typeof node !== 'object') return false;
  return Object.entries(node).some(([key, value]) => key === 'x-mcp-header' || mentionsHeader(value));
}

/** A header value for a body value: plain when it is safe header text, else `=?base64?…?=` of its UTF-8. */
export function encodeHeaderValue(value: string | number | boolean): string {
  const text = String(value);
  return SAFE_VALUE.test(text) && !BASE64_SENTINEL.test(text)
    ? text
    : `=?base64?${Buffer.from(text, 'utf8').toString('base64')}?=`;
}

/** The body value a header carries; undefined when its base64 wrapper holds malformed base64. */
export function decodeHeaderValue(value: string): string | undefined {
  const match = BASE64_SENTINEL.exec(value);
  if (!match) return value;
  if (!STRICT_BASE64.test(match[1])) return undefined;
  return Buffer.from(match[1], 'base64').toString('utf8');
}

/** The argument at a header param's path, if present. */
export function valueAtPath(args: Record<string, unknown>, path: readonly string[]): unknown {
  return path.reduce<unknown>(
    (node, key) => (node && typeof node === 'object' ? (node as Record<string, unknown>)[key] : undefined),
    args,
  );
}
