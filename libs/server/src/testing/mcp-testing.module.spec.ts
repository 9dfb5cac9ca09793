import { CanActivate, Injectable, Module, UseGuards } from '@nestjs/common';
import { IsInt, IsString, Length } from 'class-validator';
import { McpError } from '@conduit-mcp/core';
import { McpArgs, McpCtx, McpModule, McpPrompt, McpRequestContext, McpResource, McpServer, McpTool } from '../index';
import { createMcpTestingModule, McpTestingModule } from './index';

class NeverAllowed implements CanActivate {
  canActivate(): boolean {
    return false;
  }
}

class AddArgs {
  @IsInt()
  a: number;

  @IsInt()
  b: number;
}

class RepeatArgs {
  @IsString()
  @Length(1, 10)
  word: string;
}

@Injectable()
class Clock {
  now(): string {
    return 'real time';
  }
}

@Injectable()
class AppTools {
  static stalledAborted = false;

  constructor(private readonly clock: Clock) {}

  @McpTool({
    name: 'add',
    input: { type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } }, required: ['a', 'b'] },
  })
  add(@McpArgs() { a, b }: { a: number; b: number }) {
    return { sum: a + b };
  }

  @McpTool({ name: 'add_dto', input: AddArgs })
  addDto(@McpArgs() args: AddArgs) {
    return `${args instanceof AddArgs ? 'dto' : 'plain'} ${args.a + args.b}`;
  }

  @McpTool({ name: 'repeat', input: RepeatArgs })
  repeat(@McpArgs() { word }: RepeatArgs) {
    return `${word} ${word}`;
  }

  @McpTool({ name: 'time' })
  time() {
    return this.clock.now();
  }

  @McpTool({ name: 'admin_reset' })
  @UseGuards(NeverAllowed)
  reset() {
    return 'reset';
  }

  @McpTool({ name: 'greet' })
  async greet(@McpCtx() ctx: McpRequestContext) {
    const answer = await ctx.input.elicit('name', {
      message: 'What is your name?',
      requestedSchema: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] },
    });
    return answer.action === 'accept' ? `Hello, ${String(answer.content?.name)}` : `Hello, stranger (${answer.action})`;
  }

  @McpTool({ name: 'stall' })
  stall(@McpCtx() ctx: McpRequestContext) {
    return new Promise((_, reject) =>
      ctx.signal.addEventListener('abort', () => {
        AppTools.stalledAborted = true;
        reject(ctx.signal.reason);
      }),
    );
  }

  @McpResource({ uri: 'notes://{id}', name: 'note', mimeType: 'text/plain' })
  note(@McpArgs() { id }: { id: string }) {
    return `note ${id}`;
  }

  @McpPrompt({ name: 'summarize', arguments: [{ name: 'topic', required: true }] })
  summarize(@McpArgs() { topic }: { topic: string }) {
    return `Summarize ${topic} in one line.`;
  }
}

@Module({
  imports: [McpModule.forRoot({ name: 'app', version: '1.0.0' })],
  providers: [AppTools, Clock],
})
class AppModule {}

/** The rejection of `promise`, which must reject. */
async function rejectionOf(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error('expected a rejection');
}

describe('createMcpTestingModule', () => {
  let t: McpTestingModule;

  beforeAll(async () => {
    t = await createMcpTestingModule(
      { imports: [AppModule] },
      {
        client: {
          capabilities: { elicitation: {} },
          onRequest: (method, params) =>
            method === 'elicitation/create' && params.message === 'What is your name?'
              ? { action: 'accept', content: { name: 'Ada' } }
              : undefined,
        },
      },
    );
  });

  afterAll(() => t.close());

  it('initializes the app (discovery ran) and connects a legacy-era client over memory, without HTTP', () => {
    expect(t.server).toBe(t.moduleRef.get(McpServer));
    expect(t.client.initializeResult).toMatchObject({
      protocolVersion: '2025-11-25',
      serverInfo: { name: 'app', version: '1.0.0' },
      capabilities: { tools: {}, resources: {}, prompts: {} },
    });
    expect(t.server.catalog().tools.map((tool) => tool.definition.name)).toContain('add');
  });

  it('lists the tools the client may see: the refusing guard hides admin_reset', async () => {
    const { tools } = await t.client.listTools();
    expect(tools.map((tool) => tool.name).sort()).toEqual(['add', 'add_dto', 'greet', 'repeat', 'stall', 'time']);
    expect(tools.find((tool) => tool.name === 'add_dto')?.inputSchema).toMatchObject({
      type: 'object',
      properties: { a: { type: 'integer' }, b: { type: 'integer' } },
    });
  });

  it('calls a tool with a JSON Schema input', async () => {
    const result = await t.client.callTool('add', { a: 1, b: 2 });
    expect(result.structuredContent).toEqual({ sum: 3 });
  });

  it('calls a tool with a DTO class input, which the handler gets as an instance', async () => {
    expect((await t.client.callTool('add_dto', { a: 2, b: 5 })).content).toEqual([{ type: 'text', text: 'dto 7' }]);
  });

  it('reports invalid DTO arguments as a tool error the model can read', async () => {
    expect(await t.client.callTool('repeat', { word: 'far too long a word' })).toEqual({
      content: [
        {
          type: 'text',
          text: 'Invalid arguments for tool repeat: word must be shorter than or equal to 10 characters',
        },
      ],
      isError: true,
    });
  });

  it('rejects a call the guard refuses with McpError -32000', async () => {
    const error = await rejectionOf(t.client.callTool('admin_reset'));
    expect(error).toBeInstanceOf(McpError);
    expect(error).toMatchObject({ code: -32000 });
  });

  it('rejects an unknown tool with McpError -32602, naming it', async () => {
    const error = (await rejectionOf(t.client.callTool('nope'))) as McpError;
    expect(error).toBeInstanceOf(McpError);
    expect(error.code).toBe(-32602);
    expect(error.message).toContain('nope');
  });

  it('lists and reads a resource template', async () => {
    const { resourceTemplates } = await t.client.listResourceTemplates();
    expect(resourceTemplates).toEqual([expect.objectContaining({ uriTemplate: 'notes://{id}', name: 'note' })]);
    expect((await t.client.listResources()).resources).toEqual([]);
    expect(await t.client.readResource('notes://42')).toEqual({
      contents: [{ uri: 'notes://42', mimeType: 'text/plain', text: 'note 42' }],
    });
  });

  it('lists and gets a prompt, and refuses a missing required argument', async () => {
    expect((await t.client.listPrompts()).prompts).toEqual([
      expect.objectContaining({ name: 'summarize', arguments: [{ name: 'topic', required: true }] }),
    ]);
    expect(await t.client.getPrompt('summarize', { topic: 'MCP' })).toEqual({
      messages: [{ role: 'user', content: { type: 'text', text: 'Summarize MCP in one line.' } }],
    });
    await expect(t.client.getPrompt('summarize')).rejects.toMatchObject({ code: -32602 });
  });

  it('answers the server’s elicitation with onRequest', async () => {
    expect((await t.client.callTool('greet')).content).toEqual([{ type: 'text', text: 'Hello, Ada' }]);
  });

  it('sends raw requests', async () => {
    expect(await t.client.request('ping')).toEqual({});
  });
});

describe('createMcpTestingModule options', () => {
  it('overrides a provider before compiling', async () => {
    const t = await createMcpTestingModule(
      { imports: [AppModule] },
      { override: (builder) => builder.overrideProvider(Clock).useValue({ now: () => 'frozen time' }) },
    );
    try {
      expect((await t.client.callTool('time')).content).toEqual([{ type: 'text', text: 'frozen time' }]);
    } finally {
      await t.close();
    }
  });

  it('times out a call that gets no answer, naming the method, and cancels it on the server', async () => {
    AppTools.stalledAborted = false;
    const t = await createMcpTestingModule({ imports: [AppModule] }, { client: { timeoutMs: 100 } });
    try {
      await expect(t.client.callTool('stall')).rejects.toThrow('McpTestClient: no answer to tools/call within 100 ms');
      await expect(t.client.request('ping')).resolves.toEqual({});
      expect(AppTools.stalledAborted).toBe(true);
    } finally {
      await t.close();
    }
  });

  it('answers an elicitation -32601 without onRequest, so the tool call fails', async () => {
    const quiet = { log: () => undefined, error: () => undefined, warn: () => undefined };
    const t = await createMcpTestingModule(
      { imports: [AppModule] },
      { client: { capabilities: { elicitation: {} } }, override: (builder) => builder.setLogger(quiet) },
    );
    try {
      const error = await rejectionOf(t.client.callTool('greet'));
      expect(error).toBeInstanceOf(McpError);
      expect(error).toMatchObject({ code: -32601, data: { method: 'elicitation/create' } });
    } finally {
      await t.close();
    }
  });

  describe('with several servers', () => {
    @Module({
      imports: [
        McpModule.forRoot({ name: 'public', version: '1.0.0', http: false }),
        McpModule.forRoot({ name: 'admin', version: '2.0.0', http: false }),
      ],
      providers: [AppTools, Clock],
    })
    class TwoServers {}

    it('asks which one, naming them', async () => {
      await expect(createMcpTestingModule({ imports: [TwoServers] })).rejects.toThrow(
        /several MCP servers \("(public|admin)", "(public|admin)"\): pass \{ server: name \}/,
      );
    });

    it('tests the one named by `server`', async () => {
      const t = await createMcpTestingModule({ imports: [TwoServers] }, { server: 'admin' });
      try {
        expect(t.server.name).toBe('admin');
        expect(t.client.initializeResult.serverInfo).toMatchObject({ name: 'admin', version: '2.0.0' });
      } finally {
        await t.close();
      }
    });

    it('says when no server has that name', async () => {
      await expect(createMcpTestingModule({ imports: [TwoServers] }, { server: 'other' })).rejects.toThrow(
        'createMcpTestingModule: no MCP server named "other"',
      );
    });
  });

  it('says the module has no MCP server', async () => {
    await expect(createMcpTestingModule({ providers: [Clock] })).rejects.toThrow(
      'createMcpTestingModule: the module imports no McpModule.forRoot(…)',
    );
  });
});

describe('createMcpTestingModule without @nestjs/testing', () => {
  afterEach(() => jest.dontMock('@nestjs/testing'));

  it('says what to install', async () => {
    let load!: typeof createMcpTestingModule;
    jest.isolateModules(() => {
      jest.doMock('@nestjs/testing', () => {
        // What Node (and Jest's resolver) throw for a package that is not installed.
        throw Object.assign(new Error("Cannot find module '@nestjs/testing'\nRequire stack:\n- /app/spec.js"), {
          code: 'MODULE_NOT_FOUND',
        });
      });
      // eslint-disable-next-line @typescript-eslint/no-require-imports
      load = (require('./mcp-testing.module') as typeof import('./mcp-testing.module')).createMcpTestingModule;
    });
    await expect(load({ imports: [AppModule] })).rejects.toThrow(
      'createMcpTestingModule needs the package "@nestjs/testing": npm install --save-dev @nestjs/testing',
    );
  });
});
