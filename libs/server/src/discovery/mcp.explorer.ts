import { Inject, Injectable, Logger, Type } from '@nestjs/common';
import { DiscoveryService, MetadataScanner, Reflector } from '@nestjs/core';
import {
  JsonSchemaObject,
  SPEC_TOOL_NAME_RULE,
  SchemaValidator,
  UriTemplate,
  headerParamsOf,
  isScopeToken,
  isSpecToolName,
} from '@conduit-mcp/core';
import { InstanceWrapper } from '../invocation/nest-internals';
import { McpCompletionOptions } from '../decorators/mcp-completion.decorator';
import { McpPromptOptions } from '../decorators/mcp-prompt.decorator';
import { McpResourceOptions } from '../decorators/mcp-resource.decorator';
import { McpToolOptions } from '../decorators/mcp-tool.decorator';
import { McpModuleOptions } from '../interfaces/mcp-module-options.interface';
import { MCP_MODULE_OPTIONS } from '../mcp.module-definition';
import {
  MCP_COMPLETION_METADATA,
  MCP_PARAMS_METADATA,
  MCP_PROMPT_METADATA,
  MCP_RESOURCE_METADATA,
  MCP_SCOPES_METADATA,
  MCP_TOOL_METADATA,
} from '../mcp.constants';
import { McpDeclarationError, McpRegistry } from '../registry/mcp.registry';
import { dtoSupport } from '../arguments/dto-support';
import { createToolInputValidator, isDtoClass } from '../arguments/tool-input.validator';
import { McpHandlerFactory } from '../invocation/mcp-handler.factory';

interface DiscoveredMethod {
  wrapper: InstanceWrapper;
  methodName: string;
  source: string;
}

const TASK_SUPPORT: readonly unknown[] = ['forbidden', 'optional', 'required'];

/**
 * Finds the `@McpTool`, `@McpResource`, `@McpPrompt` and `@McpCompletion` methods of the app's providers that belong
 * to one server, checks their declarations and fills that server's registry.
 */
@Injectable()
export class McpExplorer {
  private readonly logger = new Logger('McpExplorer');

  constructor(
    private readonly discovery: DiscoveryService,
    private readonly scanner: MetadataScanner,
    private readonly reflector: Reflector,
    private readonly handlers: McpHandlerFactory,
    private readonly schemas: SchemaValidator,
    @Inject(MCP_MODULE_OPTIONS) private readonly options: McpModuleOptions,
  ) {}

  explore(serverName: string, registry: McpRegistry): void {
    const completions: Array<{ method: DiscoveredMethod; options: McpCompletionOptions }> = [];
    for (const method of this.methods()) {
      const handler = (method.wrapper.metatype as Type<object>).prototype[method.methodName];
      const tool = this.reflector.get<McpToolOptions>(MCP_TOOL_METADATA, handler);
      const resource = this.reflector.get<McpResourceOptions>(MCP_RESOURCE_METADATA, handler);
      const prompt = this.reflector.get<McpPromptOptions>(MCP_PROMPT_METADATA, handler);
      const completion = this.reflector.get<McpCompletionOptions>(MCP_COMPLETION_METADATA, handler);
      const found = [tool, resource, prompt, completion].some(
        (options) => options && belongsTo(options.server, serverName),
      );
      if (tool && belongsTo(tool.server, serverName)) this.addTool(registry, method, tool);
      if (resource && belongsTo(resource.server, serverName)) this.addResource(registry, method, resource);
      if (prompt && belongsTo(prompt.server, serverName)) this.addPrompt(registry, method, prompt);
      if (completion && belongsTo(completion.server, serverName)) completions.push({ method, options: completion });
      if (found) this.warnUndecoratedParams(method, handler);
    }
    // Completions name prompts and templates, so they are checked once everything else is known.
    for (const { method, options } of completions) {
      const ref =
        'prompt' in options
          ? { type: 'ref/prompt' as const, name: options.prompt }
          : { type: 'ref/resource' as const, uri: options.resource };
      registry.addCompletion(ref, options.argument, {
        source: method.source,
        invoke: this.handlers.createInvoker(method.wrapper, method.methodName),
      });
    }
    registry.markLoaded();
    const counts = `${registry.listTools().length} tools, ${registry.listResources().length} resources, ${registry.listTemplates().length} templates, ${registry.listPrompts().length} prompts`;
    this.logger.log(`MCP server "${serverName}": ${counts}`);
  }

  private *methods(): Generator<DiscoveredMethod> {
    for (const wrapper of this.discovery.getProviders()) {
      const metatype = wrapper.metatype as Type<object> | undefined;
      if (!metatype?.prototype || wrapper.isAlias || (!wrapper.instance && wrapper.isDependencyTreeStatic())) continue;
      for (const methodName of this.scanner.getAllMethodNames(metatype.prototype)) {
        yield { wrapper, methodName, source: `${metatype.name}.${methodName}` };
      }
    }
  }

  private addTool(registry: McpRegistry, method: DiscoveredMethod, options: McpToolOptions): void {
    const name = options.name ?? method.methodName;
    if (!isSpecToolName(name)) {
      throw new McpDeclarationError(method.source, `tool name "${name}" must be ${SPEC_TOOL_NAME_RULE}`);
    }
    const input = this.declared(method.source, () =>
      createToolInputValidator(options.input, this.schemas, this.options.arguments),
    );
    const outputSchema = options.output && this.declared(method.source, () => this.outputSchema(options.output!));
    const task = options.task ?? 'forbidden';
    if (!TASK_SUPPORT.includes(task)) {
      throw new McpDeclarationError(
        method.source,
        `task must be 'forbidden', 'optional' or 'required', not ${String(task)}`,
      );
    }
    const taskStart = options.taskStart ?? 'call';
    if (taskStart !== 'call' && taskStart !== 'handler') {
      throw new McpDeclarationError(method.source, `taskStart must be 'call' or 'handler', not ${String(taskStart)}`);
    }
    if (taskStart === 'handler' && task === 'forbidden') {
      throw new McpDeclarationError(method.source, "taskStart: 'handler' needs task: 'optional' or 'required'");
    }
    const durable = this.durableOf(method.source, options.durable, task, taskStart);
    registry.addTool({
      task,
      taskStart,
      durable,
      source: method.source,
      enabled: true,
      cache: options.cache,
      scopes: this.scopesOf(method),
      input,
      headerParams: headerParamsOf(input.schema),
      outputSchema,
      invoke: this.handlers.createInvoker(method.wrapper, method.methodName),
      canActivate: this.handlers.createAccessCheck(method.wrapper, method.methodName),
      definition: compact({
        name,
        title: options.title,
        description: options.description,
        inputSchema: input.schema,
        outputSchema,
        annotations: options.annotations,
        icons: options.icons,
        // Legacy clients read it (2025-11-25); the modern era's Tool has no such field, and extra fields are allowed.
        execution: task === 'forbidden' ? undefined : { taskSupport: task },
        _meta: options._meta,
      }),
    });
  }

  // A durable tool's tasks go to a worker: it must run as a task, and its task must begin before its handler does.
  private durableOf(source: string, durable: unknown, task: string, taskStart: string): boolean {
    if (durable === undefined || durable === false) return false;
    if (durable !== true)
      throw new McpDeclarationError(source, `durable must be true or false, not ${String(durable)}`);
    if (task === 'forbidden') throw new McpDeclarationError(source, "durable needs task: 'optional' or 'required'");
    if (taskStart === 'handler')
      throw new McpDeclarationError(
        source,
        "durable excludes taskStart: 'handler' (such a task begins in the instance's handler, which no worker can resume)",
      );
    return true;
  }

  private addResource(registry: McpRegistry, method: DiscoveredMethod, options: McpResourceOptions): void {
    if (typeof options.uri !== 'string' || !options.uri)
      throw new McpDeclarationError(method.source, 'resource needs a uri');
    const common = {
      source: method.source,
      enabled: true,
      cache: options.cache,
      scopes: this.scopesOf(method),
      invoke: this.handlers.createInvoker(method.wrapper, method.methodName),
      canActivate: this.handlers.createAccessCheck(method.wrapper, method.methodName),
    };
    const described = {
      name: options.name ?? method.methodName,
      title: options.title,
      description: options.description,
      mimeType: options.mimeType,
      annotations: options.annotations,
      icons: options.icons,
      _meta: options._meta,
    };
    if (!options.uri.includes('{')) {
      registry.addResource({ ...common, definition: compact({ uri: options.uri, ...described, size: options.size }) });
      return;
    }
    const template = this.declared(method.source, () => UriTemplate.parse(options.uri));
    registry.addTemplate({ ...common, template, definition: compact({ uriTemplate: options.uri, ...described }) });
  }

  private addPrompt(registry: McpRegistry, method: DiscoveredMethod, options: McpPromptOptions): void {
    registry.addPrompt({
      source: method.source,
      enabled: true,
      cache: options.cache,
      scopes: this.scopesOf(method),
      invoke: this.handlers.createInvoker(method.wrapper, method.methodName),
      canActivate: this.handlers.createAccessCheck(method.wrapper, method.methodName),
      definition: compact({
        name: options.name ?? method.methodName,
        title: options.title,
        description: options.description,
        arguments: options.arguments,
        icons: options.icons,
        _meta: options._meta,
      }),
    });
  }

  // `@McpScopes` of the method and of its class, all required; checked here so that challenges never need escaping.
  private scopesOf(method: DiscoveredMethod): readonly string[] {
    const metatype = method.wrapper.metatype as Type<object>;
    const declared = this.reflector.getAllAndMerge<unknown[]>(MCP_SCOPES_METADATA, [
      metatype.prototype[method.methodName] as Function,
      metatype,
    ]);
    for (const scope of declared) {
      if (typeof scope !== 'string' || !isScopeToken(scope))
        throw new McpDeclarationError(
          method.source,
          `@McpScopes(${JSON.stringify(scope)}) is not an OAuth scope (no spaces, quotes or backslashes)`,
        );
      if (scope === 'offline_access')
        throw new McpDeclarationError(method.source, '@McpScopes: offline_access asks for refresh tokens, not access');
    }
    return [...new Set(declared as string[])];
  }

  /**
   * Warns about each parameter of a handler that has neither `@McpArgs()` nor `@McpCtx()`: it would receive
   * undefined. Parameters are counted from the method's `length` and its `design:paramtypes` (TypeScript's
   * metadata, which also counts parameters with defaults).
   */
  private warnUndecoratedParams(method: DiscoveredMethod, handler: Function): void {
    const metatype = method.wrapper.metatype as Type<object>;
    const types = Reflect.getMetadata('design:paramtypes', metatype.prototype, method.methodName) as
      unknown[] | undefined;
    const count = Math.max(handler.length, Array.isArray(types) ? types.length : 0);
    if (count === 0) return;
    const params = (Reflect.getMetadata(MCP_PARAMS_METADATA, metatype, method.methodName) ?? {}) as Record<
      string,
      { index?: unknown }
    >;
    const decorated = new Set(Object.values(params).map((param) => param.index));
    // With some parameters decorated, the others receive undefined; with none, Nest passes (args, ctx) by position.
    const fate = decorated.size ? 'will receive undefined' : 'receives the raw arguments by position';
    for (let index = 0; index < count; index++) {
      if (!decorated.has(index))
        this.logger.warn(`${method.source}: parameter ${index} has no @McpArgs() or @McpCtx() and ${fate}`);
    }
  }

  private outputSchema(output: Type<object> | JsonSchemaObject): JsonSchemaObject {
    const schema = isDtoClass(output) ? dtoSupport().dtoToJsonSchema(output) : output;
    this.schemas.assertWellFormed(schema);
    return schema;
  }

  /** Runs a declaration check, naming the method in whatever it throws. */
  private declared<T>(source: string, build: () => T): T {
    try {
      return build();
    } catch (error) {
      const problem = error instanceof Error ? error.message : String(error);
      throw new McpDeclarationError(source, problem);
    }
  }
}

function belongsTo(server: string | string[] | undefined, name: string): boolean {
  return server === undefined || server === name || (Array.isArray(server) && server.includes(name));
}

/** Drops undefined members so that definitions on the wire carry only what was declared. */
function compact<T extends object>(value: T): T {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as T;
}
