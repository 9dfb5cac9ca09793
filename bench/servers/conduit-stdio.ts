// This project over stdio: McpStdio.run with the same `echo` tool, guard and interceptor as conduit.ts.
// Log levels empty: stdout carries only protocol and stderr stays quiet. The app closes when stdin ends.
import 'reflect-metadata';
import { Module } from '@nestjs/common';
import { McpModule, McpStdio } from '@conduit-mcp/server';
import { ECHO_PROVIDERS } from './echo.tools';

@Module({
  imports: [McpModule.forRoot({ name: 'bench', version: '1', http: false })],
  providers: ECHO_PROVIDERS,
})
class BenchStdioModule {}

void McpStdio.run(BenchStdioModule, { logLevels: [] }).catch((error) => {
  console.error(error);
  process.exit(1);
});
