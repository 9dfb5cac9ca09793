import type { McpToolTaskSupport } from '../decorators/mcp-tool.decorator';
import {
  HeaderParam,
  JsonSchemaObject,
  Prompt,
  Resource,
  ResourceTemplate,
  Tool,
  UriTemplate,
} from '@conduit-mcp/core';
import { McpRequestContext } from '../context/mcp-request-context';
import { McpCacheHint } from '../interfaces/mcp-module-options.interface';
import { ToolInputValidator } from '../arguments/tool-input.interface';

/** Runs a discovered handler through Nest's guards, interceptors, pipes and filters. */
export type McpInvoker = (args: unknown, ctx: McpRequestContext) => Promise<unknown>;
/** Runs only the handler's guards: may this caller see and use it? */
export type McpAccessCheck = (ctx: McpRequestContext) => Promise<boolean>;
/** The access check of a handler that no guard applies to. */
export const ALWAYS_ALLOWED: McpAccessCheck = () => Promise.resolve(true);

interface Registered {
  /** `Class.method`, for start-up errors and logs. */
  source: string;
  invoke: McpInvoker;
  canActivate: McpAccessCheck;
  enabled: boolean;
  /** Modern-era caching hints declared on the decorator. */
  cache: McpCacheHint | undefined;
  /** The OAuth scopes a caller needs to see and use it (`@McpScopes` on the method and its class); often none. */
  scopes: readonly string[];
}

export interface RegisteredTool extends Registered {
  definition: Tool;
  /** Arguments mirrored into `Mcp-Param-*` headers (`x-mcp-header` in the input schema). */
  headerParams: HeaderParam[];
  input: ToolInputValidator;
  outputSchema: JsonSchemaObject | undefined;
  /** Whether its calls may run as tasks (modern era, tasks extension). */
  task: McpToolTaskSupport;
  /** When such a call becomes a task: before the handler, or when it calls `ctx.runAsTask()`. */
  taskStart: 'call' | 'handler';
  /** Whether its tasks are queued for a worker when the module has a task queue (`@McpTool({ durable: true })`). */
  durable: boolean;
}

export interface RegisteredResource extends Registered {
  definition: Resource;
}

export interface RegisteredTemplate extends Registered {
  definition: ResourceTemplate;
  template: UriTemplate;
}

export interface RegisteredPrompt extends Registered {
  definition: Prompt;
}

export interface RegisteredCompletion {
  source: string;
  invoke: McpInvoker;
}

export type { McpListKind } from './mcp-list-kind';

/** One entry of a server's catalog: its definition as listed to clients, whether it is enabled, where it is declared. */
export interface McpCatalogEntry<T> {
  readonly definition: Readonly<T>;
  readonly enabled: boolean;
  /** `Class.method` of its handler. */
  readonly source: string;
}

/** What a server serves (`McpServer.catalog()`): a read-only copy, in declaration order. */
export interface McpCatalog {
  readonly tools: readonly McpCatalogEntry<Tool>[];
  readonly resources: readonly McpCatalogEntry<Resource>[];
  readonly resourceTemplates: readonly McpCatalogEntry<ResourceTemplate>[];
  readonly prompts: readonly McpCatalogEntry<Prompt>[];
}
