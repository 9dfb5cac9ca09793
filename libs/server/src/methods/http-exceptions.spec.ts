import {
  BadRequestException,
  CallHandler,
  CanActivate,
  ExecutionContext,
  ForbiddenException,
  Injectable,
  InternalServerErrorException,
  Logger,
  Module,
  NestInterceptor,
  NotFoundException,
  PipeTransform,
  UnauthorizedException,
  UnprocessableEntityException,
  UseGuards,
  UseInterceptors,
} from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import { RawClient } from '../../../../test/support/raw-client';
import {
  MCP_CHANNELS,
  McpArgs,
  McpExecutionContext,
  McpModule,
  McpPrompt,
  McpResource,
  McpServer,
  McpTool,
} from '../index';

/** Lets a call through when its `_meta.token` is `open-sesame`; refuses others by answering false. */
class TokenGuard implements CanActivate {
  canActivate(context: ExecutionContext): boolean {
    return McpExecutionContext.create(context).getContext().meta.token === 'open-sesame';
  }
}

/** Refuses by throwing an HTTP exception of its own. */
class ThrowingGuard implements CanActivate {
  canActivate(): boolean {
    throw new UnauthorizedException('no credentials');
  }
}

/** Runs after the guards, and throws. */
class RefusingInterceptor implements NestInterceptor {
  intercept(_context: ExecutionContext, _next: CallHandler): never {
    throw new UnprocessableEntityException('the interceptor says no');
  }
}

/** A validation pipe in miniature: refuses with the messages class-validator would give. */
class Validate implements PipeTransform {
  transform(value: unknown) {
    if (value && typeof value === 'object' && 'a' in value) return value;
    throw new BadRequestException(['a must be a string', 'b is required']);
  }
}

@Injectable()
class Failing {
  @McpTool({ name: 'city' })
  city() {
    throw new NotFoundException('no such city');
  }

  @McpTool({ name: 'invalid' })
  invalid() {
    throw new BadRequestException(['a must be a string', 'b is required']);
  }

  @McpTool({ name: 'plain_not_found' })
  plainNotFound() {
    throw new NotFoundException();
  }

  @McpTool({ name: 'not_yours' })
  notYours() {
    throw new ForbiddenException('this file belongs to someone else');
  }

  @McpTool({ name: 'unsafe_text' })
  unsafeText() {
    throw new NotFoundException('no\u202e such\nfile\u0007');
  }

  @McpTool({ name: 'guarded_city' })
  @UseGuards(TokenGuard)
  guardedCity() {
    throw new NotFoundException('no such city behind the guard');
  }

  @McpTool({ name: 'throwing_guard' })
  @UseGuards(ThrowingGuard)
  throwingGuard() {
    return 'never';
  }

  @McpTool({ name: 'intercepted' })
  @UseGuards(TokenGuard)
  @UseInterceptors(RefusingInterceptor)
  intercepted() {
    return 'never';
  }

  @McpTool({ name: 'piped' })
  piped(@McpArgs(Validate) args: { a: string }) {
    return args.a;
  }

  @McpTool({ name: 'server_fault' })
  serverFault() {
    throw new InternalServerErrorException('secret db path /var/lib/db');
  }

  @McpResource({ uri: 'notes://{id}' })
  note() {
    throw new NotFoundException('no such note');
  }

  @McpResource({ uri: 'forbidden://{id}' })
  forbiddenNote() {
    throw new ForbiddenException('notes are private');
  }

  @McpPrompt({ name: 'missing' })
  missing() {
    throw new NotFoundException('no such prompt template');
  }

  @McpPrompt({ name: 'bad_prompt' })
  badPrompt() {
    throw new BadRequestException('topic is too long');
  }
}

describe('Nest HTTP exceptions thrown by handlers', () => {
  let app: Awaited<ReturnType<ReturnType<typeof Test.createTestingModule>['compile']>>;
  let client: RawClient;

  beforeAll(async () => {
    // Nest's exception handler logs what handlers throw; not this test's concern.
    jest.spyOn(Logger.prototype, 'error').mockImplementation(() => undefined);
    @Module({
      imports: [McpModule.forRoot({ name: 'http-exceptions', version: '1.0.0', http: false })],
      providers: [Failing],
    })
    class HttpExceptionsModule {}
    app = await (await Test.createTestingModule({ imports: [HttpExceptionsModule] }).compile()).init();
  });

  beforeEach(async () => {
    client = RawClient.connect(app.get(McpServer));
    await client.initialize();
  });

  afterEach(() => client.close());
  afterAll(async () => {
    await app.close();
    jest.restoreAllMocks();
  });

  const call = (name: string, args: Record<string, unknown> = {}, meta?: Record<string, unknown>) =>
    client.request('tools/call', { name, arguments: args, ...(meta ? { _meta: meta } : {}) });

  describe('from a tool: a tool error the model reads', () => {
    it('NotFoundException → isError with its message', async () => {
      expect(await call('city')).toMatchObject({
        result: { content: [{ type: 'text', text: 'no such city' }], isError: true },
      });
    });

    it('BadRequestException with a message array → isError with the messages joined', async () => {
      const response = await call('invalid');
      expect(response.result).toEqual({
        content: [{ type: 'text', text: 'a must be a string; b is required' }],
        isError: true,
      });
    });

    it('a 4xx without a message of its own → its status text; a 403 thrown by the method itself too', async () => {
      expect((await call('plain_not_found')).result).toEqual({
        content: [{ type: 'text', text: 'Not Found' }],
        isError: true,
      });
      expect((await call('not_yours')).result).toEqual({
        content: [{ type: 'text', text: 'this file belongs to someone else' }],
        isError: true,
      });
    });

    it('sanitizes the message like other error text', async () => {
      expect((await call('unsafe_text')).result).toEqual({
        content: [{ type: 'text', text: 'no suchfile' }],
        isError: true,
      });
    });

    it('after the guards passed: from the method, an interceptor or a pipe', async () => {
      const open = { token: 'open-sesame' };
      expect((await call('guarded_city', {}, open)).result).toEqual({
        content: [{ type: 'text', text: 'no such city behind the guard' }],
        isError: true,
      });
      expect((await call('intercepted', {}, open)).result).toEqual({
        content: [{ type: 'text', text: 'the interceptor says no' }],
        isError: true,
      });
      expect((await call('piped', { b: 1 })).result).toEqual({
        content: [{ type: 'text', text: 'a must be a string; b is required' }],
        isError: true,
      });
      expect((await call('piped', { a: 'fine' })).result).toEqual({ content: [{ type: 'text', text: 'fine' }] });
    });

    it('counts as a tool error in telemetry', async () => {
      const events: Array<Record<string, unknown>> = [];
      const listener = (event: unknown) => events.push(event as Record<string, unknown>);
      subscribe(MCP_CHANNELS.tool, listener);
      try {
        await call('city');
      } finally {
        unsubscribe(MCP_CHANNELS.tool, listener);
      }
      expect(events).toEqual([expect.objectContaining({ name: 'city', status: 'tool_error' })]);
    });
  });

  describe('from a tool: what stays a protocol error', () => {
    it('a guard refusing (answering false) → -32000 Forbidden resource, as before', async () => {
      expect((await call('guarded_city')).error).toEqual({
        code: -32000,
        message: 'Forbidden resource',
        data: { status: 403 },
      });
      expect((await call('intercepted')).error).toEqual({
        code: -32000,
        message: 'Forbidden resource',
        data: { status: 403 },
      });
    });

    it('a guard throwing an HTTP exception of its own → that error, as before', async () => {
      expect((await call('throwing_guard')).error).toEqual({
        code: -32000,
        message: 'no credentials',
        data: { status: 401 },
      });
    });

    it('an unknown tool and arguments that are not an object → -32602', async () => {
      expect((await call('no_such_tool')).error).toMatchObject({ code: -32602 });
      expect((await client.request('tools/call', { name: 'city', arguments: 'x' })).error).toMatchObject({
        code: -32602,
      });
    });

    it('a 5xx HttpException → -32603 Internal error, without its message', async () => {
      const response = await call('server_fault');
      expect(response.error).toEqual({ code: -32603, message: 'Internal error' });
      expect(JSON.stringify(response)).not.toContain('secret db path');
    });
  });

  describe('from resources and prompts: the JSON-RPC error carries the message', () => {
    it('resources/read: NotFoundException → -32002 with its message (and the uri)', async () => {
      expect((await client.request('resources/read', { uri: 'notes://7' })).error).toEqual({
        code: -32002,
        message: 'no such note',
        data: { uri: 'notes://7' },
      });
      expect((await client.request('resources/read', { uri: 'forbidden://7' })).error).toEqual({
        code: -32000,
        message: 'notes are private',
        data: { status: 403 },
      });
    });

    it('prompts/get: NotFoundException → -32602 with its message; BadRequestException as before', async () => {
      expect((await client.request('prompts/get', { name: 'missing' })).error).toEqual({
        code: -32602,
        message: 'no such prompt template',
      });
      expect((await client.request('prompts/get', { name: 'bad_prompt' })).error).toEqual({
        code: -32602,
        message: 'topic is too long',
      });
    });
  });
});
