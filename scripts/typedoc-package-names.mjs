// TypeDoc plugin (typedoc.json "plugin"). TypeDoc names a module after its entry's path (`server/src`,
// `server/src/contracts`); readers import package entries, so each module is named after the entry it documents.
import { Converter, ReflectionKind } from 'typedoc';

/** `server/src` → `@conduit-mcp/server`, `server/src/contracts` → `@conduit-mcp/server/contracts`. */
export function packageEntryName(modulePath) {
  const match = /^(\w+)\/src(\/.+)?$/.exec(modulePath);
  return match ? `@conduit-mcp/${match[1]}${match[2] ?? ''}` : modulePath;
}

export function load(app) {
  app.converter.on(Converter.EVENT_CREATE_DECLARATION, (_context, reflection) => {
    if (reflection.kindOf(ReflectionKind.Module)) reflection.name = packageEntryName(reflection.name);
  });
}
