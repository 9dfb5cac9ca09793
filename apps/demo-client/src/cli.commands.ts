import { Inject, Injectable, Logger } from '@nestjs/common';
import { InjectMcpClient, McpClient } from '@conduit-mcp/client';
import { CliAction } from './cli-arguments';

/** The id of the one server the CLI talks to. */
export const TARGET = 'target';
/** The action given on the command line. */
export const CLI_ACTION = Symbol('CLI_ACTION');

/** Connects to the target server and carries out the action; resolves with what to print. */
@Injectable()
export class CliCommands {
  private readonly logger = new Logger('Client');

  constructor(
    @InjectMcpClient(TARGET) private readonly client: McpClient,
    @Inject(CLI_ACTION) private readonly action: CliAction,
  ) {}

  async run(): Promise<unknown> {
    await this.client.connect();
    this.logger.log(
      `Connected to ${this.client.serverInfo?.name ?? 'the server'} (${this.client.era} era, ${this.client.protocolVersion})`,
    );
    const action = this.action;
    switch (action.kind) {
      case 'tools':
        return this.client.listTools();
      case 'call':
        return this.client.callTool(action.name, action.args, {
          onProgress: ({ progress, total, message }) =>
            this.logger.log(
              `progress ${progress}${total === undefined ? '' : `/${total}`}${message ? `: ${message}` : ''}`,
            ),
        });
      case 'resources':
        return {
          resources: await this.client.listResources(),
          resourceTemplates: await this.client.listResourceTemplates(),
        };
      case 'read':
        return this.client.readResource(action.uri);
      case 'prompts':
        return this.client.listPrompts();
      case 'prompt':
        return this.client.getPrompt(action.name, action.args);
    }
  }
}
