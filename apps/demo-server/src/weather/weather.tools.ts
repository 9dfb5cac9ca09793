import { Injectable } from '@nestjs/common';
import { McpArgs, McpCtx, McpRequestContext, McpTool, McpToolError } from '@conduit-mcp/server';
import { ForecastArgs, ReportArgs } from './forecast.dto';

const FORECAST_OUTPUT = {
  type: 'object',
  properties: {
    city: { type: 'string' },
    units: { type: 'string', enum: ['metric', 'imperial'] },
    days: {
      type: 'array',
      items: {
        type: 'object',
        properties: {
          day: { type: 'integer' },
          high: { type: 'number' },
          low: { type: 'number' },
          sky: { type: 'string' },
        },
        required: ['day', 'high', 'low', 'sky'],
      },
    },
  },
  required: ['city', 'units', 'days'],
} as const;

const SKIES = ['sunny', 'cloudy', 'rain', 'snow', 'windy'];

/** Deterministic pseudo-weather, so the demo works offline. */
function forecastFor(city: string, day: number, units: 'metric' | 'imperial') {
  let seed = day;
  for (const char of city.toLowerCase()) seed = (seed * 31 + char.charCodeAt(0)) % 9973;
  const highC = 5 + (seed % 25);
  const toUnits = (celsius: number) => (units === 'metric' ? celsius : Math.round(celsius * 1.8 + 32));
  return { day, high: toUnits(highC), low: toUnits(highC - 4 - (seed % 6)), sky: SKIES[seed % SKIES.length] };
}

@Injectable()
export class WeatherTools {
  @McpTool({
    name: 'forecast',
    title: 'Weather forecast',
    description: 'Daily forecast for a city (1-7 days).',
    input: ForecastArgs,
    output: FORECAST_OUTPUT,
    annotations: { readOnlyHint: true, openWorldHint: false },
  })
  forecast(@McpArgs() args: ForecastArgs) {
    const units = args.units ?? 'metric';
    const days = Array.from({ length: args.days ?? 3 }, (_, index) => forecastFor(args.city, index + 1, units));
    return { city: args.city, units, days };
  }

  @McpTool({
    name: 'weather_report',
    title: 'Long weather report',
    description: 'Compiles a report step by step, reporting progress; can be cancelled.',
    input: ReportArgs,
  })
  async report(@McpArgs() args: ReportArgs, @McpCtx() ctx: McpRequestContext) {
    for (let step = 1; step <= args.steps; step++) {
      await sleep(100, ctx.signal);
      ctx.progress(step, args.steps, `Step ${step} of ${args.steps}`);
      ctx.log('debug', { step });
    }
    return `Report compiled in ${args.steps} steps.`;
  }

  @McpTool({
    name: 'summarize_forecast',
    title: 'Summarize a forecast',
    description: "Asks the client's model to summarize the forecast of a city (sampling).",
    input: { type: 'object', properties: { city: { type: 'string', minLength: 1 } }, required: ['city'] },
  })
  async summarize(@McpArgs() args: { city: string }, @McpCtx() ctx: McpRequestContext) {
    const days = [1, 2, 3].map((day) => forecastFor(args.city, day, 'metric'));
    const answer = await ctx.input.sample('summary', {
      messages: [
        { role: 'user', content: { type: 'text', text: `Summarize in one sentence: ${JSON.stringify(days)}` } },
      ],
      maxTokens: 200,
    });
    const content = answer.content as { type?: string; text?: string };
    if (content?.type !== 'text') throw new McpToolError('The model did not answer with text');
    return `${content.text} (model: ${answer.model})`;
  }
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const timer = setTimeout(resolve, ms);
    signal.addEventListener('abort', () => (clearTimeout(timer), reject(signal.reason)), { once: true });
  });
}
