import { LogLevel } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { CliInvocation, USAGE, UsageError, parseCliArguments } from './cli-arguments';
import { CliCommands } from './cli.commands';
import { DemoClientModule } from './demo-client.module';
import { terminalJson, terminalLine } from './terminal-text';
import { McpClientError, McpLoopbackRedirect, StderrLogger } from '@conduit-mcp/client';

// A command-line MCP client: `npm run client -- <url | -- command args…> <action>`. Prints the answer as JSON on
// stdout and everything else on stderr; exits 0 on an answer, 1 when the server could not be asked, 2 on a bad
// command line.
async function main(argv: string[]): Promise<number> {
  let invocation: CliInvocation | undefined;
  try {
    invocation = parseCliArguments(argv);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    process.stderr.write(`${error.message}\n(npm run client -- --help shows the usage)\n`);
    return 2;
  }
  if (!invocation) {
    process.stderr.write(`${USAGE}\n`);
    return 0;
  }
  const logLevels: LogLevel[] = invocation.verbose ? ['log', 'warn', 'error'] : ['warn', 'error'];
  // Open before the client is built: its address is the redirect URI in the client's OAuth options.
  const { target } = invocation;
  const redirect = 'url' in target && target.oauth ? await McpLoopbackRedirect.open() : undefined;
  try {
    const app = await NestFactory.createApplicationContext(DemoClientModule.forRoot(invocation, redirect), {
      logger: new StderrLogger({ logLevels, colors: process.stderr.isTTY === true }),
    });
    try {
      const answer = await app.get(CliCommands).run();
      process.stdout.write(`${terminalJson(answer)}\n`);
      return 0;
    } catch (error) {
      process.stderr.write(`error: ${describe(error)}\n`);
      return 1;
    } finally {
      await app.close();
    }
  } finally {
    await redirect?.close();
  }
}

// One line, whatever the error carries (its message may quote the server).
function describe(error: unknown): string {
  const text =
    error instanceof McpClientError
      ? `${error.message}${error.code === undefined ? '' : ` (code ${error.code})`}`
      : error instanceof Error
        ? error.message
        : String(error);
  return terminalLine(text, 2_048);
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error: unknown) => {
    process.stderr.write(`error: ${describe(error)}\n`);
    process.exit(1);
  },
);
