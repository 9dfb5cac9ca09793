// The cold-start baseline: a bare Nest + Express app with one `POST /echo` route that returns the JSON body it got.
// No MCP at all, logger off, so "this project ÷ bare Nest" isolates what McpModule adds to start-up.
import 'reflect-metadata';
import { Body, Controller, HttpCode, Module, Post } from '@nestjs/common';
import { serveNest } from './serve-nest';

@Controller()
class EchoController {
  @Post('echo')
  @HttpCode(200)
  echo(@Body() body: unknown) {
    return body;
  }
}

@Module({ controllers: [EchoController] })
class BareModule {}

serveNest(BareModule);
