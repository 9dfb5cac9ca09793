import { Implementation, LEGACY_REVISIONS, MODERN_REVISIONS } from '@conduit-mcp/core';
import { McpModuleOptions } from './interfaces/mcp-module-options.interface';

/** The `serverInfo` of a server, from its options. */
export function serverInfoOf(options: McpModuleOptions): Implementation {
  const { name, version, title, description, websiteUrl, icons } = options;
  const info: Implementation = { name, version };
  if (title) info.title = title;
  if (description) info.description = description;
  if (websiteUrl) info.websiteUrl = websiteUrl;
  if (icons?.length) info.icons = icons;
  return info;
}

/** Whether the server serves an era (`options.eras`, both by default). */
export function servesEra(options: McpModuleOptions, era: 'legacy' | 'modern'): boolean {
  return !options.eras || options.eras.includes(era);
}

/** Every protocol revision the server serves, newest first. */
export function supportedRevisions(options: McpModuleOptions): string[] {
  return [
    ...(servesEra(options, 'modern') ? MODERN_REVISIONS : []),
    ...(servesEra(options, 'legacy') ? LEGACY_REVISIONS : []),
  ];
}
