import { Injectable, Logger } from '@nestjs/common';
import { ElicitRequestParams, ElicitResult } from '@conduit-mcp/core';
import { InjectMcpClient, McpClient, McpInputContext, OnElicitation } from '@conduit-mcp/client';
import { TARGET } from './cli.commands';
import { askOnTerminal } from './terminal-form';
import { terminalLine } from './terminal-text';

/**
 * Answers form elicitations by asking the person at the terminal, one elicitation at a time; with no terminal to
 * ask (stdin is a pipe or a file), declines them.
 */
@Injectable()
export class TerminalElicitationHandler {
  private readonly logger = new Logger('Elicitation');
  private turn: Promise<unknown> = Promise.resolve();

  constructor(@InjectMcpClient(TARGET) private readonly client: McpClient) {}

  @OnElicitation()
  elicit(params: ElicitRequestParams, ctx: McpInputContext): Promise<ElicitResult> {
    if (!process.stdin.isTTY || !('requestedSchema' in params)) {
      this.logger.warn(`Declined "${terminalLine(params.message)}": stdin is not a terminal to ask on`);
      return Promise.resolve({ action: 'decline' });
    }
    const sensitive = new Set(
      Object.entries(ctx.fields ?? {})
        .filter(([, hint]) => hint.sensitiveSuspected)
        .map(([name]) => name),
    );
    const asked = this.turn.then(() =>
      askOnTerminal(params.message, params.requestedSchema, {
        server: this.client.serverInfo?.name ?? ctx.serverId,
        sensitive,
        signal: ctx.signal,
      }),
    );
    this.turn = asked.catch(() => undefined);
    return asked;
  }
}
