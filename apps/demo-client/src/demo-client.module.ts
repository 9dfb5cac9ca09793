import { DynamicModule, Module, Provider } from '@nestjs/common';
import { McpClientModule, McpLoopbackRedirect, McpServerTransportConfig } from '@conduit-mcp/client';
import { CliInvocation } from './cli-arguments';
import { cliOAuthOptions } from './cli-oauth.options';
import { CLI_ACTION, CliCommands, TARGET } from './cli.commands';
import { FixedSamplingHandler, SAMPLE_WITH } from './fixed-sampling.handler';
import { ServerLogHandler } from './server-log.handler';
import { TerminalElicitationHandler } from './terminal-elicitation.handler';

/**
 * The command-line client: one server, the handlers the command line asks for, and the action to carry out.
 * `redirect` is where an OAuth authorization comes back to: needed when the command line asks for OAuth.
 */
@Module({})
export class DemoClientModule {
  static forRoot(invocation: CliInvocation, redirect?: McpLoopbackRedirect): DynamicModule {
    const sampling: Provider[] =
      invocation.sampleWith === undefined
        ? []
        : [{ provide: SAMPLE_WITH, useValue: invocation.sampleWith }, FixedSamplingHandler];
    return {
      module: DemoClientModule,
      imports: [
        McpClientModule.forRoot({
          name: 'conduit-cli',
          version: '0.1.0',
          servers: [
            {
              id: TARGET,
              transport: transportOf(invocation.target, redirect),
              era: invocation.era,
              connectOnStart: false,
            },
          ],
        }),
      ],
      providers: [
        { provide: CLI_ACTION, useValue: invocation.action },
        CliCommands,
        TerminalElicitationHandler,
        ServerLogHandler,
        ...sampling,
      ],
    };
  }
}

function transportOf(
  target: CliInvocation['target'],
  redirect: McpLoopbackRedirect | undefined,
): McpServerTransportConfig {
  if ('url' in target) {
    if (!target.oauth) return { type: 'http', url: target.url, headers: target.headers };
    if (!redirect) throw new Error('OAuth was asked for, but no redirect listener is open');
    return {
      type: 'http',
      url: target.url,
      headers: target.headers,
      auth: cliOAuthOptions(target.url, target.oauth, redirect),
    };
  }
  // Relative paths in the command mean what they meant where `npm run client` was typed.
  return { type: 'stdio', command: target.command, args: target.args, cwd: process.env.INIT_CWD ?? process.cwd() };
}
