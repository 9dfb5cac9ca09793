// An ECMAScript-module app ("type": "module"): the CommonJS packages' named exports import as they would in any
// ESM code. No class-validator here: a tool with a JSON Schema input needs none of the DTO packages.
import 'reflect-metadata';
import { Injectable, Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { McpArgs, McpModule, McpTool } from '@conduit-mcp/server';

@Injectable()
class EchoTools {
  @McpTool({
    name: 'echo',
    description: 'Echoes its text',
    input: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
  })
  echo(@McpArgs() args: { text: string }) {
    return args.text;
  }
}

// `--jwt-auth`: JWT access tokens need jose, an optional peer this app does not install: start-up must say so.
const auth = process.argv.includes('--jwt-auth')
  ? {
      resource: 'http://127.0.0.1/mcp',
      authorizationServers: ['http://127.0.0.1:1/issuer'],
      token: { type: 'jwt' as const },
    }
  : undefined;

@Module({
  imports: [McpModule.forRoot({ name: 'esm', version: '1.0.0', http: { path: '/mcp' }, auth })],
  providers: [EchoTools],
})
class AppModule {}

const app = await NestFactory.create(AppModule, { logger: ['error', 'warn'], abortOnError: false });
app.enableShutdownHooks();
await app.listen(0, '127.0.0.1');
console.log(`READY ${(app.getHttpServer().address() as { port: number }).port}`);
