import { DynamicModule, Module, OnApplicationShutdown, OnModuleInit } from '@nestjs/common';
import { McpTracing } from './mcp-tracing';
import {
  ASYNC_OPTIONS_TYPE,
  ConfigurableModuleClass,
  MCP_TRACING_OPTIONS,
  OPTIONS_TYPE,
} from './mcp-tracing.module-definition';
import { McpTracingOptions } from './mcp-tracing.options';

/**
 * OpenTelemetry spans of the app's MCP servers and clients (see {@link McpTracing}): started when the module
 * initializes, stopped at the very end of the app's shutdown (after the servers drained their requests, whose spans
 * then still end).
 */
@Module({
  providers: [
    {
      provide: McpTracing,
      inject: [MCP_TRACING_OPTIONS],
      useFactory: (options: McpTracingOptions) => new McpTracing(options),
    },
  ],
  exports: [McpTracing],
})
export class McpTracingModule extends ConfigurableModuleClass implements OnModuleInit, OnApplicationShutdown {
  constructor(private readonly tracing: McpTracing) {
    super();
  }

  /**
   * Spans of the app's MCP servers and clients, to `options.tracerProvider` or the global tracer provider.
   *
   * @example
   * ```ts
   * @Module({
   *   imports: [
   *     McpModule.forRoot({ name: 'notes', version: '1.0.0' }),
   *     McpTracingModule.forRoot({ recordResourceUri: false }),
   *   ],
   * })
   * export class AppModule {}
   * ```
   */
  static forRoot(options: typeof OPTIONS_TYPE = {}): DynamicModule {
    return super.forRoot(options);
  }

  /**
   * `McpTracingModule.forRoot` with options a factory builds from injected providers.
   *
   * @example
   * ```ts
   * McpTracingModule.forRootAsync({
   *   inject: [Telemetry],
   *   useFactory: (telemetry: Telemetry) => ({ tracerProvider: telemetry.tracerProvider }),
   * });
   * ```
   */
  static forRootAsync(options: typeof ASYNC_OPTIONS_TYPE): DynamicModule {
    return super.forRootAsync(options);
  }

  onModuleInit(): void {
    this.tracing.start();
  }

  onApplicationShutdown(): void {
    this.tracing.stop();
  }
}
