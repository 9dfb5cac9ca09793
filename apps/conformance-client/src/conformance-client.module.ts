import { DynamicModule, Module } from '@nestjs/common';
import { McpClientModule, McpOAuthOptions } from '@conduit-mcp/client';
import { ConformanceScenarios, UNDER_TEST } from './conformance.scenarios';
import { SchemaDefaultsHandler } from './schema-defaults.handler';

/** The scenario-routing client of the conformance suite, for one server URL at one pinned revision. */
@Module({})
export class ConformanceClientModule {
  static forRoot(options: { url: string; revision: string; auth?: McpOAuthOptions }): DynamicModule {
    return {
      module: ConformanceClientModule,
      imports: [
        McpClientModule.forRoot({
          name: 'conduit-conformance-client',
          version: '0.1.0',
          servers: [
            {
              id: UNDER_TEST,
              transport: { type: 'http', url: options.url, auth: options.auth },
              era: options.revision,
              connectOnStart: false,
            },
          ],
        }),
      ],
      providers: [SchemaDefaultsHandler, ConformanceScenarios],
    };
  }
}
