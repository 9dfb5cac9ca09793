import { Injectable, Logger } from '@nestjs/common';
import { Tool } from '@conduit-mcp/core';
import { InjectMcpClient, McpClient } from '@conduit-mcp/client';
import { requiredArguments } from './scenario-arguments';

/** The id of the server under test in the client module. */
export const UNDER_TEST = 'under-test';

/** What `MCP_CONFORMANCE_CONTEXT` carries for a scenario (only the keys the scenarios here read). */
export interface ScenarioContext {
  toolCalls?: Array<{ name: string; arguments?: Record<string, unknown> }>;
  /** Pre-registered credentials (auth scenarios). */
  client_id?: string;
  client_secret?: string;
  /** The issuer the credentials belong to. */
  issuer?: string;
  /** A PKCS#8 PEM for private_key_jwt, and its algorithm. */
  private_key_pem?: string;
  signing_algorithm?: string;
  /** A workload's JWT for the jwt-bearer grant. */
  valid_jwt?: string;
  /** Enterprise-managed authorization: the identity provider, this client's id there, the person's ID token. */
  idp_token_endpoint?: string;
  idp_client_id?: string;
  idp_id_token?: string;
}

type Scenario = (context: ScenarioContext) => Promise<unknown>;

/**
 * The client side of each scenario of the official conformance suite, by its name (`MCP_CONFORMANCE_SCENARIO`):
 * what a well-behaved client does against the scenario's mock server. Elicitations are answered by
 * `SchemaDefaultsHandler`; the suite checks the traffic, so a scenario only has to make the right calls.
 */
@Injectable()
export class ConformanceScenarios {
  private readonly logger = new Logger('ConformanceClient');
  private readonly scenarios = new Map<string, Scenario>([
    ['initialize', () => this.listTools()],
    ['tools_call', () => this.callEveryTool()],
    ['elicitation-sep1034-client-defaults', () => this.callTools(['test_client_elicitation_defaults'])],
    ['sse-retry', () => this.callTools(['test_reconnection'])],
    ['request-metadata', () => this.listTools()],
    [
      'sep-2322-client-request-state',
      () =>
        this.callTools([
          'test_mrtr_echo_state',
          'test_mrtr_unrelated',
          'test_mrtr_no_state',
          'test_mrtr_no_result_type',
        ]),
    ],
    ['http-standard-headers', () => this.useEverything()],
    ['http-custom-headers', (context) => this.callAsTold(context)],
    ['http-invalid-tool-headers', () => this.callEveryTool()],
    ['json-schema-ref-no-deref', () => this.listTools()],
    ['json-schema-2020-12-preservation', () => this.echoInputSchema()],
  ]);

  constructor(@InjectMcpClient(UNDER_TEST) private readonly client: McpClient) {}

  /** Runs one scenario; rejects when it could not be carried out (the suite then sees a non-zero exit). */
  async run(name: string, context: ScenarioContext): Promise<void> {
    const scenario =
      this.scenarios.get(name) ?? (name.startsWith('auth/') ? () => this.callTools(['test-tool']) : undefined);
    if (!scenario) throw new Error(`No client behaviour for the scenario "${name}"`);
    await this.client.connect();
    this.logger.log(`Connected (${this.client.era} era, ${this.client.protocolVersion}); running ${name}`);
    await scenario(context);
  }

  private async listTools(): Promise<Tool[]> {
    const tools = await this.client.listTools();
    this.logger.log(`tools: ${tools.map((tool) => tool.name).join(', ') || '(none)'}`);
    return tools;
  }

  private async call(name: string, args: Record<string, unknown>): Promise<Record<string, unknown>> {
    const result = await this.client.callTool(name, args);
    this.logger.log(`${name} → ${JSON.stringify(result)}`);
    return result;
  }

  /** Lists the tools, then calls the named ones in order (each must be listed). */
  private async callTools(names: string[]): Promise<void> {
    const tools = await this.listTools();
    for (const name of names) {
      const tool = tools.find((candidate) => candidate.name === name);
      if (!tool) throw new Error(`The server does not list the tool ${name}`);
      await this.call(name, requiredArguments(tool.inputSchema));
    }
  }

  /** Calls every listed tool (the library leaves out tools it must not call) with its required arguments. */
  private async callEveryTool(): Promise<void> {
    for (const tool of await this.listTools()) await this.call(String(tool.name), requiredArguments(tool.inputSchema));
  }

  /** The calls `MCP_CONFORMANCE_CONTEXT.toolCalls` names, with their arguments as given. */
  private async callAsTold(context: ScenarioContext): Promise<void> {
    if (!context.toolCalls?.length) throw new Error('MCP_CONFORMANCE_CONTEXT names no toolCalls');
    await this.listTools(); // teaches the client each tool's x-mcp-header parameters
    for (const { name, arguments: args } of context.toolCalls) await this.call(name, args ?? {});
  }

  /** Every kind of request that carries standard headers: tools, resources and prompts, listed and used. */
  private async useEverything(): Promise<void> {
    await this.callEveryTool();
    for (const resource of await this.client.listResources()) {
      const result = await this.client.readResource(String(resource.uri));
      this.logger.log(`read ${String(resource.uri)} → ${JSON.stringify(result)}`);
    }
    for (const prompt of await this.client.listPrompts()) {
      const result = await this.client.getPrompt(String(prompt.name));
      this.logger.log(`prompt ${String(prompt.name)} → ${JSON.stringify(result)}`);
    }
  }

  /** Sends a tool's input schema back through the echo tool, so the suite sees what the client kept of it. */
  private async echoInputSchema(): Promise<void> {
    const tools = await this.listTools();
    const echo = tools.find((tool) => tool.name === 'json_schema_echo');
    const focal = tools.find((tool) => tool !== echo);
    if (!echo || !focal) throw new Error('The server lists no json_schema_echo tool and schema to echo');
    await this.call('json_schema_echo', { schema: focal.inputSchema });
  }
}
