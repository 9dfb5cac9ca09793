import 'reflect-metadata';
import { Injectable, Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { ElicitRequestParams, ElicitResult } from '@conduit-mcp/core';
import { McpClient, McpClientModule, OnElicitation, getMcpClientToken } from '@conduit-mcp/client';
import type { McpInputContext } from '@conduit-mcp/client';

@Injectable()
class Confirmations {
  @OnElicitation()
  confirm(params: ElicitRequestParams, ctx: McpInputContext): ElicitResult {
    if (ctx.serverId !== 'packaged') return { action: 'decline' };
    return { action: 'accept', content: { ok: true } };
  }
}

@Module({
  imports: [
    McpClientModule.forRoot({
      name: 'packaged-client',
      servers: [{ id: 'packaged', transport: { type: 'http', url: process.env.MCP_URL as string } }],
    }),
  ],
  providers: [Confirmations],
})
class ClientAppModule {}

async function main(): Promise<void> {
  const app = await NestFactory.createApplicationContext(ClientAppModule, { logger: ['error', 'warn'] });
  try {
    const client = app.get<McpClient>(getMcpClientToken('packaged'));
    const result = await client.callTool('confirm');
    console.log(`RESULT ${JSON.stringify(result)}`);
  } finally {
    await app.close();
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
