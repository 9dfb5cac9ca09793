import { DynamicModule, Module, Provider } from '@nestjs/common';
import { DiscoveryModule } from '@nestjs/core';
import { ClientHandlerExplorer } from './handlers/client-handler.explorer';
import { McpClientHealthIndicator } from './health/mcp-client.health';
import { ASYNC_OPTIONS_TYPE, ConfigurableModuleClass, OPTIONS_TYPE } from './mcp-client.module-definition';
import { getMcpClientToken } from './mcp-client.token';
import { McpClients } from './mcp-clients';
import { McpClientResponder } from './responder/mcp-client.responder';
import { BUILT_IN_CHECKS } from './safety/client-checks';
import { ClientChecksResolver } from './safety/client-checks.resolver';
import { McpInputBudgetStorage, MemoryInputBudgetStorage } from './safety/input-budget.storage';

const CHECK_PROVIDERS: Provider[] = [
  ...Object.values(BUILT_IN_CHECKS),
  { provide: McpInputBudgetStorage, useFactory: () => new MemoryInputBudgetStorage() },
  ClientChecksResolver,
];

/**
 * Connects a Nest app to MCP servers: `McpClientModule.forRoot({ name, servers: [{ id, transport }] })`. Inject a
 * connection with `@InjectMcpClient(id)` (or `McpClients.get(id)`); answer the servers' questions with `@OnSampling`,
 * `@OnElicitation`, `@OnRoots`, and take their notifications with `@OnNotification` and `@OnLog`.
 */
@Module({
  imports: [DiscoveryModule],
  providers: [McpClients, McpClientResponder, ClientHandlerExplorer, McpClientHealthIndicator, ...CHECK_PROVIDERS],
  exports: [McpClients, McpClientHealthIndicator],
})
export class McpClientModule extends ConfigurableModuleClass {
  /**
   * Connections to the servers listed in `options.servers`, each injectable as `@InjectMcpClient(id)`.
   *
   * @example
   * ```ts
   * @Module({
   *   imports: [
   *     McpClientModule.forRoot({
   *       name: 'assistant',
   *       servers: [
   *         { id: 'fs', transport: { type: 'stdio', command: 'node', args: ['server.js'] } },
   *         { id: 'weather', transport: { type: 'http', url: 'http://127.0.0.1:3000/mcp' }, era: 'auto' },
   *       ],
   *     }),
   *   ],
   *   providers: [Approvals, Forecasts],
   * })
   * export class AppModule {}
   * ```
   */
  static forRoot(options: typeof OPTIONS_TYPE): DynamicModule {
    return withClientTokens(
      super.forRoot(options),
      options.servers.map((server) => server.id),
    );
  }

  /**
   * `McpClientModule.forRoot` with options a factory builds from injected providers. `serverIds` registers
   * `@InjectMcpClient(id)` for servers whose configuration the factory returns (`McpClients.get(id)` reaches any).
   *
   * @example
   * ```ts
   * McpClientModule.forRootAsync({
   *   serverIds: ['weather'],
   *   imports: [SettingsModule],
   *   inject: [Settings],
   *   useFactory: (settings: Settings) => ({
   *     name: 'assistant',
   *     servers: [{ id: 'weather', transport: { type: 'http', url: settings.weatherUrl } }],
   *   }),
   * });
   * ```
   */
  static forRootAsync(options: typeof ASYNC_OPTIONS_TYPE & { serverIds?: string[] }): DynamicModule {
    return withClientTokens(super.forRootAsync(options), options.serverIds ?? []);
  }
}

function withClientTokens(module: DynamicModule, ids: string[]): DynamicModule {
  const tokens: Provider[] = ids.map((id) => ({
    provide: getMcpClientToken(id),
    useFactory: (clients: McpClients) => clients.get(id),
    inject: [McpClients],
  }));
  return {
    ...module,
    providers: [...(module.providers ?? []), ...tokens],
    exports: [...(module.exports ?? []), ...tokens.map((token) => (token as { provide: string }).provide)],
  };
}
