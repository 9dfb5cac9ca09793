// This project's client for the bench drivers: an app context with McpClientModule.forRoot and one server, era
// legacy (2025-11-25, the same work as the SDK 2.x client's default). Compiled by lib/build.js, loaded by lib/clients.js.
import 'reflect-metadata';
import { Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { McpClientModule, McpClients, McpServerConfig } from '@conduit-mcp/client';

export interface BenchClient {
  call(text: string): Promise<Record<string, unknown>>;
  pid?: number;
  close(): Promise<void>;
}

export async function openConduitClient(transport: McpServerConfig['transport']): Promise<BenchClient> {
  @Module({
    imports: [
      McpClientModule.forRoot({
        name: 'bench-client',
        version: '1',
        servers: [{ id: 'bench', transport, era: 'legacy' }],
      }),
    ],
  })
  class BenchClientModule {}

  const app = await NestFactory.createApplicationContext(BenchClientModule, { logger: false });
  try {
    await app.init();
    const client = app.get(McpClients).get('bench');
    const pid = (client as unknown as { transport?: { pid?: number } }).transport?.pid;
    return { call: (text) => client.callTool('echo', { text }), pid, close: () => app.close() };
  } catch (error) {
    await app.close();
    throw error;
  }
}
