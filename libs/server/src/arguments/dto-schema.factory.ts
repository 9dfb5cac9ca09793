import { Type } from '@nestjs/common';
import { JsonSchemaObject } from '@conduit-mcp/core';
import { defaultMetadataStorage } from 'class-transformer/cjs/storage';
import { validationMetadatasToSchemas } from 'class-validator-jsonschema';

const REF_PREFIX = '#/$defs/';

/** Turns a class-validator DTO class into a self-contained JSON Schema (nested DTOs land in `$defs`). */
export function dtoToJsonSchema(dto: Type<object>): JsonSchemaObject {
  const all = validationMetadatasToSchemas({
    refPointerPrefix: REF_PREFIX,
    classTransformerMetadataStorage: defaultMetadataStorage,
  }) as Record<string, Record<string, unknown>>;
  const root = all[dto.name];
  if (!root) return { type: 'object', properties: {} };
  const defs: Record<string, unknown> = {};
  collectRefs(root, all, defs);
  delete defs[dto.name];
  const schema: JsonSchemaObject = {
    ...root,
    type: 'object',
    properties: (root.properties as Record<string, object>) ?? {},
  };
  if (Object.keys(defs).length) schema.$defs = defs;
  return schema;
}

function collectRefs(node: unknown, all: Record<string, Record<string, unknown>>, defs: Record<string, unknown>): void {
  if (Array.isArray(node)) return node.forEach((item) => collectRefs(item, all, defs));
  if (!node || typeof node !== 'object') return;
  for (const [key, value] of Object.entries(node)) {
    if (key === '$ref' && typeof value === 'string' && value.startsWith(REF_PREFIX)) {
      const name = value.slice(REF_PREFIX.length);
      if (!(name in defs) && all[name]) {
        defs[name] = all[name];
        collectRefs(all[name], all, defs);
      }
    } else {
      collectRefs(value, all, defs);
    }
  }
}
