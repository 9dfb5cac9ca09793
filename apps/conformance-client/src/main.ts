import { Logger } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { LATEST_LEGACY_REVISION } from '@conduit-mcp/core';
import { ConformanceClientModule } from './conformance-client.module';
import { ConformanceScenarios, ScenarioContext } from './conformance.scenarios';
import { scenarioAuth } from './scenario-auth';
import { StderrLogger } from '@conduit-mcp/client';

// The official conformance suite runs `<command> <serverUrl>` once per client scenario, naming it in
// MCP_CONFORMANCE_SCENARIO, the revision in MCP_CONFORMANCE_PROTOCOL_VERSION and extra data in MCP_CONFORMANCE_CONTEXT.
// Everything this app says goes to stderr; the exit code says whether the scenario could be carried out.
async function main(): Promise<number> {
  const url = process.argv.slice(2).at(-1);
  const scenario = process.env.MCP_CONFORMANCE_SCENARIO;
  if (!url || !scenario) {
    process.stderr.write(
      'usage: MCP_CONFORMANCE_SCENARIO=<name> [MCP_CONFORMANCE_PROTOCOL_VERSION=<revision>] conformance-client <serverUrl>\n',
    );
    return 2;
  }
  const revision = process.env.MCP_CONFORMANCE_PROTOCOL_VERSION || LATEST_LEGACY_REVISION;
  const context = JSON.parse(process.env.MCP_CONFORMANCE_CONTEXT || '{}') as ScenarioContext;
  const app = await NestFactory.createApplicationContext(
    ConformanceClientModule.forRoot({ url, revision, auth: scenarioAuth(scenario, context) }),
    {
      logger: new StderrLogger({ logLevels: ['log', 'warn', 'error'], colors: process.stderr.isTTY === true }),
    },
  );
  try {
    await app.get(ConformanceScenarios).run(scenario, context);
    return 0;
  } catch (error) {
    Logger.error(
      `${scenario} failed: ${error instanceof Error ? error.message : String(error)}`,
      undefined,
      'ConformanceClient',
    );
    return 1;
  } finally {
    await app.close();
  }
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    process.stderr.write(`conformance client: ${error instanceof Error ? error.stack : String(error)}\n`);
    process.exit(1);
  },
);
