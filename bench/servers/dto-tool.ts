// The "one DTO tool" app of the registry section: McpModule with ONE tool, `echo`, whose input is a class-validator
// DTO class, so the start-up pays for class-validator, class-transformer and the JSON Schema generator (loaded when
// the first DTO tool is registered). No guard, no interceptor: compared with bare-nest.ts, what a minimal app of this
// project adds to a bare Nest app's cold start.
import 'reflect-metadata';
import { Injectable, Module } from '@nestjs/common';
import { IsString, MaxLength } from 'class-validator';
import { McpArgs, McpModule, McpTool } from '@conduit-mcp/server';
import { serveNest } from './serve-nest';

export class EchoArgs {
  @IsString()
  @MaxLength(10_000)
  text!: string;
}

@Injectable()
class DtoEchoTools {
  @McpTool({ name: 'echo', description: 'Echoes its text', input: EchoArgs })
  echo(@McpArgs() args: EchoArgs) {
    return args.text;
  }
}

@Module({
  imports: [McpModule.forRoot({ name: 'bench-dto', version: '1', http: { path: '/mcp' } })],
  providers: [DtoEchoTools],
})
class DtoToolModule {}

serveNest(DtoToolModule);
