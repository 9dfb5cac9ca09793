// A stdio MCP server for the stdio specs (test/stdio-*.e2e-spec.ts); run on ts-node by ScenarioProcess.
import { Injectable, Logger, Module } from '@nestjs/common';
import { McpArgs, McpModule, McpStdio, McpTool } from '@conduit-mcp/server';

/** This app's file, for `new ScenarioProcess(STDIO_APP)`. */
export const STDIO_APP = __filename;

@Injectable()
class StdioScenarioTools {
  constructor() {
    console.log('console.log while the app starts');
    new Logger('StdioScenario').warn('a warning while the app starts');
  }

  @McpTool({
    name: 'big',
    description: 'Answers with `bytes` characters of text (`pad` is ignored: it makes the request as long as wanted).',
    input: {
      type: 'object',
      properties: { bytes: { type: 'integer', minimum: 1 }, pad: { type: 'string' } },
      required: ['bytes'],
    },
  })
  big(@McpArgs() args: { bytes: number }) {
    return 'x'.repeat(args.bytes);
  }

  @McpTool({ name: 'noisy', description: 'Writes to the console and to process.stdout, then answers.' })
  noisy() {
    console.log('console.log from a tool');
    console.info('console.info from a tool');
    console.debug('console.debug from a tool');
    console.dir({ from: 'console.dir' });
    console.table([{ from: 'console.table' }]);
    console.trace('console.trace from a tool');
    process.stdout.write('junk written to process.stdout\n');
    return 'noisy done';
  }
}

@Module({
  // HTTP options as most apps have them: McpStdio serves the same module over stdio, without an HTTP server.
  imports: [McpModule.forRoot({ name: 'stdio-scenario', version: '0.0.1', http: { path: '/mcp' } })],
  providers: [StdioScenarioTools],
})
class StdioScenarioModule {}

if (require.main === module) void McpStdio.run(StdioScenarioModule);
