import { Injectable } from '@nestjs/common';
import { ServerCapabilities } from '@conduit-mcp/core';
import {
  McpListKind,
  McpCatalog,
  RegisteredCompletion,
  RegisteredPrompt,
  RegisteredResource,
  RegisteredTemplate,
  RegisteredTool,
} from './registry.types';

/** Thrown at start-up for a declaration that cannot be served; names the class and method. */
export class McpDeclarationError extends Error {
  constructor(source: string, problem: string) {
    super(`${source}: ${problem}`);
    this.name = 'McpDeclarationError';
  }
}

/** The tools, resources, templates, prompts and completions of one server, and the capabilities they imply. */
@Injectable()
export class McpRegistry {
  private readonly tools = new Map<string, RegisteredTool>();
  private readonly resources = new Map<string, RegisteredResource>();
  private readonly templates = new Map<string, RegisteredTemplate>();
  private readonly prompts = new Map<string, RegisteredPrompt>();
  private readonly completions = new Map<string, RegisteredCompletion>();
  private readonly changeListeners = new Set<(kind: McpListKind) => void>();
  private loaded = false;
  private advertised: ServerCapabilities | undefined;
  // Whether some tool may run as a task; derived once per change of the declarations (read by every tasks/* request).
  private taskTools: boolean | undefined;
  private changes = 0;
  private readonly enabledLists = new Map<Map<string, { enabled: boolean }>, readonly unknown[]>();

  /** Grows whenever an entry is added, enabled or disabled: what was derived from an older revision is stale. */
  get revision(): number {
    return this.changes;
  }

  get isLoaded(): boolean {
    return this.loaded;
  }

  markLoaded(): void {
    this.loaded = true;
    this.advertised = undefined;
  }

  addTool(tool: RegisteredTool): void {
    this.addUnique(this.tools, tool.definition.name, tool, `tool "${tool.definition.name}"`);
  }

  addResource(resource: RegisteredResource): void {
    this.addUnique(this.resources, resource.definition.uri, resource, `resource "${resource.definition.uri}"`);
  }

  addTemplate(template: RegisteredTemplate): void {
    const key = template.definition.uriTemplate;
    this.addUnique(this.templates, key, template, `resource template "${key}"`);
  }

  addPrompt(prompt: RegisteredPrompt): void {
    this.addUnique(this.prompts, prompt.definition.name, prompt, `prompt "${prompt.definition.name}"`);
  }

  addCompletion(ref: CompletionRef, argument: string, completion: RegisteredCompletion): void {
    const target = ref.type === 'ref/prompt' ? this.prompts.get(ref.name) : this.templates.get(ref.uri);
    const label = ref.type === 'ref/prompt' ? `prompt "${ref.name}"` : `resource template "${ref.uri}"`;
    if (!target) throw new McpDeclarationError(completion.source, `completes an unknown ${label}`);
    this.addUnique(
      this.completions,
      completionKey(ref, argument),
      completion,
      `completion of "${argument}" for ${label}`,
    );
  }

  /** Every entry, enabled or not, as a read-only copy (`McpServer.catalog()`). */
  catalog(): McpCatalog {
    const entries = <T>(map: Map<string, { definition: T; enabled: boolean; source: string }>) =>
      Object.freeze(
        [...map.values()].map((entry) =>
          Object.freeze({
            definition: Object.freeze(structuredClone(entry.definition)),
            enabled: entry.enabled,
            source: entry.source,
          }),
        ),
      );
    return Object.freeze({
      tools: entries(this.tools),
      resources: entries(this.resources),
      resourceTemplates: entries(this.templates),
      prompts: entries(this.prompts),
    });
  }

  /** Enabled tools, in declaration order. */
  listTools(): readonly RegisteredTool[] {
    return this.enabledOf(this.tools);
  }

  listResources(): readonly RegisteredResource[] {
    return this.enabledOf(this.resources);
  }

  listTemplates(): readonly RegisteredTemplate[] {
    return this.enabledOf(this.templates);
  }

  listPrompts(): readonly RegisteredPrompt[] {
    return this.enabledOf(this.prompts);
  }

  tool(name: string): RegisteredTool | undefined {
    const tool = this.tools.get(name);
    return tool?.enabled ? tool : undefined;
  }

  prompt(name: string): RegisteredPrompt | undefined {
    const prompt = this.prompts.get(name);
    return prompt?.enabled ? prompt : undefined;
  }

  /** The static resource with this URI, else the first template (in declaration order) that matches it. */
  findResource(
    uri: string,
  ):
    | { resource: RegisteredResource; variables: Record<string, string> }
    | { resource: RegisteredTemplate; variables: Record<string, string | string[]> }
    | undefined {
    const exact = this.resources.get(uri);
    if (exact?.enabled) return { resource: exact, variables: {} };
    for (const template of this.templates.values()) {
      if (!template.enabled) continue;
      const variables = template.template.match(uri);
      if (variables) return { resource: template, variables };
    }
    return undefined;
  }

  template(uriTemplate: string): RegisteredTemplate | undefined {
    const template = this.templates.get(uriTemplate);
    return template?.enabled ? template : undefined;
  }

  completion(ref: CompletionRef, argument: string): RegisteredCompletion | undefined {
    return this.completions.get(completionKey(ref, argument));
  }

  /**
   * Shows or hides a tool, prompt or resource (by URI or URI template) at run time; listeners hear which list
   * changed so that clients get a list-changed notification. Returns false when there is no such entry.
   */
  setEnabled(kind: 'tool' | 'prompt' | 'resource', key: string, enabled: boolean): boolean {
    const entry =
      kind === 'tool'
        ? this.tools.get(key)
        : kind === 'prompt'
          ? this.prompts.get(key)
          : (this.resources.get(key) ?? this.templates.get(key));
    if (!entry) return false;
    if (entry.enabled !== enabled) {
      entry.enabled = enabled;
      this.changed();
      const list: McpListKind = kind === 'tool' ? 'tools' : kind === 'prompt' ? 'prompts' : 'resources';
      for (const listener of this.changeListeners) listener(list);
    }
    return true;
  }

  onListChanged(listener: (kind: McpListKind) => void): () => void {
    this.changeListeners.add(listener);
    return () => this.changeListeners.delete(listener);
  }

  /** Capabilities derived from what is registered: nothing without a handler is advertised. */
  /** Whether some tool may run as a task (the server then offers the tasks extension). */
  get servesTasks(): boolean {
    return (this.taskTools ??= [...this.tools.values()].some((tool) => tool.task !== 'forbidden'));
  }

  capabilities(): ServerCapabilities {
    return (this.advertised ??= this.deriveCapabilities());
  }

  private deriveCapabilities(): ServerCapabilities {
    const capabilities: ServerCapabilities = { logging: {} };
    if (this.tools.size) capabilities.tools = { listChanged: true };
    if (this.resources.size || this.templates.size) capabilities.resources = { subscribe: true, listChanged: true };
    if (this.prompts.size) capabilities.prompts = { listChanged: true };
    if (this.completions.size) capabilities.completions = {};
    return capabilities;
  }

  private addUnique<T extends { source: string }>(map: Map<string, T>, key: string, entry: T, label: string): void {
    const existing = map.get(key);
    if (existing)
      throw new McpDeclarationError(entry.source, `duplicate ${label}, already declared by ${existing.source}`);
    map.set(key, entry);
    this.advertised = undefined;
    this.taskTools = undefined;
    this.changed();
  }

  private changed(): void {
    this.changes++;
    this.enabledLists.clear();
  }

  // The enabled entries of a map, in declaration order; kept until the next change (lists are read per request).
  private enabledOf<T extends { enabled: boolean }>(map: Map<string, T>): readonly T[] {
    let list = this.enabledLists.get(map) as readonly T[] | undefined;
    if (!list) {
      list = Object.freeze([...map.values()].filter((entry) => entry.enabled));
      this.enabledLists.set(map, list);
    }
    return list;
  }
}

/** The `ref` of a `completion/complete` request. */
export type CompletionRef = { type: 'ref/prompt'; name: string } | { type: 'ref/resource'; uri: string };

function completionKey(ref: CompletionRef, argument: string): string {
  return ref.type === 'ref/prompt'
    ? `prompt\u0000${ref.name}\u0000${argument}`
    : `resource\u0000${ref.uri}\u0000${argument}`;
}
