/**
 * Hand-written mirrors of the MCP schema types the server and client exchange (legacy era, 2025-11-25 superset).
 * Open objects (`[key: string]: unknown`) where the schema allows extra members.
 */

export interface Icon {
  src: string;
  mimeType?: string;
  sizes?: string[];
  theme?: 'light' | 'dark';
}

export interface Implementation {
  name: string;
  version: string;
  title?: string;
  description?: string;
  websiteUrl?: string;
  icons?: Icon[];
}

export type Meta = Record<string, unknown>;

/** What every result may carry besides its own fields (`_meta`, and fields of later revisions or extensions). */
export interface ResultFields {
  _meta?: Meta;
  [key: string]: unknown;
}

export const LOGGING_LEVELS = [
  'debug',
  'info',
  'notice',
  'warning',
  'error',
  'critical',
  'alert',
  'emergency',
] as const;
export type LoggingLevel = (typeof LOGGING_LEVELS)[number];

export interface ClientCapabilities {
  roots?: { listChanged?: boolean };
  sampling?: { context?: object; tools?: object };
  elicitation?: { form?: object; url?: object };
  experimental?: Record<string, object>;
  /** Extensions the client supports, by id (modern era: declared per request). */
  extensions?: Record<string, object>;
  [key: string]: unknown;
}

export interface ServerCapabilities {
  logging?: object;
  completions?: object;
  prompts?: { listChanged?: boolean };
  resources?: { subscribe?: boolean; listChanged?: boolean };
  tools?: { listChanged?: boolean };
  experimental?: Record<string, object>;
  /** Extensions the server offers, by id (`io.modelcontextprotocol/tasks`…). */
  extensions?: Record<string, object>;
  [key: string]: unknown;
}

export interface Annotations {
  audience?: ('user' | 'assistant')[];
  priority?: number;
  lastModified?: string;
}

export interface ToolAnnotations {
  title?: string;
  readOnlyHint?: boolean;
  destructiveHint?: boolean;
  idempotentHint?: boolean;
  openWorldHint?: boolean;
}

/** How a tool may be called as a task (legacy, 2025-11-25 `tools/list`); absent means `forbidden`. */
export interface ToolExecution {
  taskSupport?: 'forbidden' | 'optional' | 'required';
}

export interface JsonSchemaObject {
  type: 'object';
  properties?: Record<string, object>;
  required?: readonly string[];
  [key: string]: unknown;
}

export interface Tool {
  name: string;
  title?: string;
  description?: string;
  inputSchema: JsonSchemaObject;
  outputSchema?: JsonSchemaObject;
  annotations?: ToolAnnotations;
  icons?: Icon[];
  /** Legacy (2025-11-25): whether the tool may or must be called as a task. */
  execution?: ToolExecution;
  _meta?: Meta;
}

export interface TextResourceContents {
  uri: string;
  mimeType?: string;
  text: string;
  _meta?: Meta;
}

export interface BlobResourceContents {
  uri: string;
  mimeType?: string;
  blob: string;
  _meta?: Meta;
}

export type ResourceContents = TextResourceContents | BlobResourceContents;

export type ContentBlock =
  | { type: 'text'; text: string; annotations?: Annotations; _meta?: Meta }
  | { type: 'image'; data: string; mimeType: string; annotations?: Annotations; _meta?: Meta }
  | { type: 'audio'; data: string; mimeType: string; annotations?: Annotations; _meta?: Meta }
  | { type: 'resource'; resource: ResourceContents; annotations?: Annotations; _meta?: Meta }
  | {
      type: 'resource_link';
      uri: string;
      name: string;
      title?: string;
      description?: string;
      mimeType?: string;
      size?: number;
      annotations?: Annotations;
      icons?: Icon[];
      _meta?: Meta;
    };

export interface CallToolResult extends ResultFields {
  content: ContentBlock[];
  structuredContent?: Record<string, unknown>;
  isError?: boolean;
  _meta?: Meta;
}

export interface Resource {
  uri: string;
  name: string;
  title?: string;
  description?: string;
  mimeType?: string;
  size?: number;
  annotations?: Annotations;
  icons?: Icon[];
  _meta?: Meta;
}

export interface ResourceTemplate {
  uriTemplate: string;
  name: string;
  title?: string;
  description?: string;
  mimeType?: string;
  annotations?: Annotations;
  icons?: Icon[];
  _meta?: Meta;
}

export interface ReadResourceResult extends ResultFields {
  contents: ResourceContents[];
  _meta?: Meta;
}

export interface PromptArgument {
  name: string;
  title?: string;
  description?: string;
  required?: boolean;
}

export interface Prompt {
  name: string;
  title?: string;
  description?: string;
  arguments?: PromptArgument[];
  icons?: Icon[];
  _meta?: Meta;
}

export interface PromptMessage {
  role: 'user' | 'assistant';
  content: ContentBlock;
}

export interface GetPromptResult extends ResultFields {
  description?: string;
  messages: PromptMessage[];
  _meta?: Meta;
}

export interface CompleteResult extends ResultFields {
  completion: { values: string[]; total?: number; hasMore?: boolean };
  _meta?: Meta;
}

export interface InitializeResult extends ResultFields {
  protocolVersion: string;
  capabilities: ServerCapabilities;
  serverInfo: Implementation;
  instructions?: string;
  _meta?: Meta;
}

/** Parameters of `elicitation/create` (form mode or url mode). */
export type ElicitRequestParams =
  | { mode?: 'form'; message: string; requestedSchema: JsonSchemaObject; _meta?: Meta }
  | { mode: 'url'; message: string; url: string; elicitationId: string; _meta?: Meta };

export interface ElicitResult {
  action: 'accept' | 'decline' | 'cancel';
  content?: Record<string, string | number | boolean | string[]>;
  _meta?: Meta;
}

export interface SamplingMessage {
  role: 'user' | 'assistant';
  content: unknown;
}

export interface CreateMessageRequestParams {
  messages: SamplingMessage[];
  maxTokens: number;
  systemPrompt?: string;
  includeContext?: 'none' | 'thisServer' | 'allServers';
  temperature?: number;
  stopSequences?: string[];
  modelPreferences?: Record<string, unknown>;
  metadata?: object;
  tools?: unknown[];
  toolChoice?: unknown;
  _meta?: Meta;
}

export interface CreateMessageResult {
  role: 'user' | 'assistant';
  content: unknown;
  model: string;
  stopReason?: string;
  _meta?: Meta;
}

export interface Root {
  uri: string;
  name?: string;
  _meta?: Meta;
}

export interface ListRootsResult {
  roots: Root[];
  _meta?: Meta;
}
