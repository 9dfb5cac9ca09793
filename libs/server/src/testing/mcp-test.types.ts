import { Meta, Prompt, Resource, ResourceTemplate, Tool } from '@conduit-mcp/core';

// Core mirrors the results a handler returns; these are the list pages the server builds from them.

/**
 * One page of `tools/list`.
 *
 * @example
 * const { tools } = await client.listTools();
 * expect(tools.map((tool) => tool.name)).toContain('add');
 */
export interface ListToolsResult {
  tools: Tool[];
  nextCursor?: string;
  _meta?: Meta;
  [key: string]: unknown;
}

/**
 * One page of `resources/list`.
 *
 * @example
 * const { resources } = await client.listResources();
 */
export interface ListResourcesResult {
  resources: Resource[];
  nextCursor?: string;
  _meta?: Meta;
  [key: string]: unknown;
}

/**
 * One page of `resources/templates/list`.
 *
 * @example
 * const { resourceTemplates } = await client.listResourceTemplates();
 * expect(resourceTemplates[0].uriTemplate).toBe('notes://{id}');
 */
export interface ListResourceTemplatesResult {
  resourceTemplates: ResourceTemplate[];
  nextCursor?: string;
  _meta?: Meta;
  [key: string]: unknown;
}

/**
 * One page of `prompts/list`; `nextCursor` while more remain.
 *
 * @example
 * const first = await client.listPrompts();
 * const second = first.nextCursor ? await client.listPrompts(first.nextCursor) : undefined;
 */
export interface ListPromptsResult {
  prompts: Prompt[];
  nextCursor?: string;
  _meta?: Meta;
  [key: string]: unknown;
}
