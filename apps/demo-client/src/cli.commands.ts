import { Inject, Injectable, Logger } from '@nestjs/common';
import { CallToolResult } from '@conduit-mcp/core';
import { InjectMcpClient, McpCallOptions, McpClient, McpTaskInfo } from '@conduit-mcp/client';
import { CliAction } from './cli-arguments';
import { terminalLine, toolListing } from './terminal-text';

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

  /** Everything the server wrote that is printed goes through `terminalLine` / `terminalJson` (main.ts). */
  async run(): Promise<unknown> {
    await this.client.connect();
    const { serverInfo, instructions } = this.client;
    const server = serverInfo
      ? `${terminalLine(serverInfo.name, 128)} ${terminalLine(serverInfo.version, 64)}`
      : 'the server';
    this.logger.log(
      `Connected to ${server} (${this.client.era} era, ${terminalLine(this.client.protocolVersion, 32)})`,
    );
    if (instructions) this.logger.log(`Instructions: ${terminalLine(instructions, 4_096)}`);
    const action = this.action;
    switch (action.kind) {
      case 'tools':
        return toolListing(await this.client.listTools(), (line) => this.logger.warn(line));
      case 'call': {
        const options: McpCallOptions = {
          onProgress: ({ progress, total, message }) =>
            this.logger.log(
              `progress ${Number(progress)}${total === undefined ? '' : `/${Number(total)}`}${message ? `: ${terminalLine(message)}` : ''}`,
            ),
        };
        if (action.task) return this.callAsTask(action.name, action.args, options);
        return this.client.callTool(action.name, action.args, options);
      }
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

  /**
   * Starts the call as a task and waits for its end, one line per change of its status on stderr — shown without
   * `--verbose`, since it is what the person waits on (the result goes to stdout as usual).
   */
  private async callAsTask(
    name: string,
    args: Record<string, unknown>,
    options: McpCallOptions,
  ): Promise<CallToolResult> {
    const start = await this.client.callToolAsTask(name, args, options);
    if ('result' in start) {
      this.logger.log('The server answered at once, without a task');
      return start.result;
    }
    const onStatus = (task: McpTaskInfo) =>
      process.stderr.write(
        `task ${terminalLine(task.taskId.slice(0, 8), 8)}… ${task.status}` +
          (task.statusMessage ? `: ${terminalLine(task.statusMessage)}` : '') +
          '\n',
      );
    return this.client.awaitTask(start.task.taskId, { onStatus });
  }
}
