/** The arguments a tool's input schema asks for at least: each required property's default, else a value of its type. */
export function requiredArguments(inputSchema: unknown): Record<string, unknown> {
  const schema = (inputSchema ?? {}) as {
    properties?: Record<string, { type?: unknown; default?: unknown; enum?: unknown[] }>;
    required?: string[];
  };
  const properties = schema.properties ?? {};
  return Object.fromEntries((schema.required ?? []).map((name) => [name, sampleValue(properties[name] ?? {})]));
}

function sampleValue(property: { type?: unknown; default?: unknown; enum?: unknown[] }): unknown {
  if (property.default !== undefined) return property.default;
  if (Array.isArray(property.enum) && property.enum.length) return property.enum[0];
  switch (Array.isArray(property.type) ? property.type[0] : property.type) {
    case 'integer':
    case 'number':
      return 1;
    case 'boolean':
      return true;
    case 'array':
      return [];
    case 'object':
      return {};
    case 'null':
      return null;
    default:
      return 'conformance';
  }
}
