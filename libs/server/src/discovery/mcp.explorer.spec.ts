import { Injectable, Logger, Module } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import {
  McpArgs,
  McpCompletion,
  McpCtx,
  McpModule,
  McpPrompt,
  McpRequestContext,
  McpResource,
  McpTool,
} from '../index';

async function start(...providers: Array<new (...args: never[]) => unknown>) {
  @Module({ imports: [McpModule.forRoot({ name: 'explorer', version: '1.0.0', http: false })], providers })
  class ExplorerModule {}
  const app = await (await Test.createTestingModule({ imports: [ExplorerModule] }).compile()).init();
  await app.close();
}

describe('McpExplorer: handler parameters without @McpArgs() or @McpCtx()', () => {
  let warn: jest.SpyInstance;

  beforeEach(() => {
    warn = jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
    jest.spyOn(Logger.prototype, 'log').mockImplementation(() => undefined);
  });

  afterEach(() => jest.restoreAllMocks());

  const warnings = () =>
    warn.mock.calls.map(([message]) => String(message)).filter((message) => message.includes('@McpArgs()'));

  it('warns at start-up, naming the class, the method and the parameter index', async () => {
    @Injectable()
    class WeatherTools {
      @McpTool({ name: 'forecast' })
      forecast(@McpArgs() args: { city: string }, days: number) {
        return `${args.city} ${days}`;
      }

      @McpTool({ name: 'bare' })
      bare(city: string) {
        return city;
      }

      @McpTool({ name: 'defaulted' })
      defaulted(@McpCtx() ctx: McpRequestContext, days = 3) {
        return `${ctx.method} ${days}`;
      }

      @McpResource({ uri: 'weather://{city}' })
      station(@McpArgs() vars: { city: string }, unit: string) {
        return `${vars.city} ${unit}`;
      }

      @McpPrompt({ name: 'brief' })
      brief(style: string, @McpArgs() args: Record<string, string>) {
        return `${style} ${JSON.stringify(args)}`;
      }

      @McpCompletion({ prompt: 'brief', argument: 'style' })
      styles(@McpArgs() input: { value: string }, extra: string) {
        return [input.value, extra];
      }
    }

    await start(WeatherTools);
    expect(warnings().sort()).toEqual(
      [
        'WeatherTools.forecast: parameter 1 has no @McpArgs() or @McpCtx() and will receive undefined',
        'WeatherTools.bare: parameter 0 has no @McpArgs() or @McpCtx() and receives the raw arguments by position',
        'WeatherTools.defaulted: parameter 1 has no @McpArgs() or @McpCtx() and will receive undefined',
        'WeatherTools.station: parameter 1 has no @McpArgs() or @McpCtx() and will receive undefined',
        'WeatherTools.brief: parameter 0 has no @McpArgs() or @McpCtx() and will receive undefined',
        'WeatherTools.styles: parameter 1 has no @McpArgs() or @McpCtx() and will receive undefined',
      ].sort(),
    );
  });

  it('is silent for handlers with no parameters or only decorated ones, and for methods that are no handlers', async () => {
    @Injectable()
    class Decorated {
      @McpTool({ name: 'none' })
      none() {
        return 'none';
      }

      @McpTool({ name: 'args_only' })
      argsOnly(@McpArgs() args: { text: string }) {
        return args.text;
      }

      @McpTool({ name: 'ctx_first' })
      ctxFirst(@McpCtx() ctx: McpRequestContext, @McpArgs() args: { text: string }) {
        return `${ctx.method} ${args.text}`;
      }

      @McpResource({ uri: 'notes://{id}' })
      note(@McpArgs() { id }: { id: string }) {
        return id;
      }

      @McpPrompt({ name: 'p' })
      prompt(@McpArgs() args: Record<string, string>, @McpCtx() ctx: McpRequestContext) {
        return `${ctx.method} ${JSON.stringify(args)}`;
      }

      // Not a handler: its parameters are none of MCP's business.
      helper(a: string, b: string) {
        return a + b;
      }
    }

    await start(Decorated);
    expect(warnings()).toEqual([]);
  });

  it('leaves out handlers of another server', async () => {
    @Injectable()
    class Elsewhere {
      @McpTool({ name: 'other', server: 'another' })
      other(city: string) {
        return city;
      }
    }

    await start(Elsewhere);
    expect(warnings()).toEqual([]);
  });
});
