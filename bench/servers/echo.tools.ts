// The `echo` tool every bench server of this project exposes: behind one trivial guard and one interceptor.
import { Injectable, UseGuards, UseInterceptors } from '@nestjs/common';
import { McpArgs, McpTool } from '@conduit-mcp/server';
import { AllowGuard, PassInterceptor } from './trivial.enhancers';

export const ECHO_INPUT = { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] } as const;

@Injectable()
export class EchoTools {
  @McpTool({ name: 'echo', description: 'Echoes its text', input: ECHO_INPUT })
  @UseGuards(AllowGuard)
  @UseInterceptors(PassInterceptor)
  echo(@McpArgs() args: { text: string }) {
    return args.text;
  }
}

/** The providers a bench module needs for `echo`. */
export const ECHO_PROVIDERS = [EchoTools, AllowGuard, PassInterceptor];
