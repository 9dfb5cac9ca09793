import { Injectable, Module, Type } from '@nestjs/common';
import {
  McpArgs,
  McpCtx,
  McpHttpOptions,
  McpModule,
  McpPrompt,
  McpRequestContext,
  McpResource,
  McpTool,
} from '@conduit-mcp/server';
import { randomUUID } from 'node:crypto';

interface Trip {
  city: string;
  ref: string;
}

/**
 * A test-only tool with two sequential questions: which city (round 1), then whether to book it under a reference
 * made when the city became known (round 2). The trip is kept in `ctx.state`: in the modern era the third request
 * carries only the answer to round 2, so the city and the reference reach it through `requestState` or not at all.
 */
@Injectable()
export class TripPlanner {
  @McpTool({
    name: 'plan_trip',
    description: 'Asks where to go, then asks to confirm the booking (two elicitation rounds).',
    input: { type: 'object', properties: { traveller: { type: 'string', minLength: 1 } }, required: ['traveller'] },
  })
  async plan(@McpArgs() args: { traveller: string }, @McpCtx() ctx: McpRequestContext) {
    let trip = ctx.state.get<Trip>('trip');
    if (!trip) {
      const where = await ctx.input.elicit('city', {
        message: `Where does ${args.traveller} want to go?`,
        requestedSchema: {
          type: 'object',
          properties: { city: { type: 'string', title: 'City' } },
          required: ['city'],
        },
      });
      const city = where.content?.city;
      if (where.action !== 'accept' || typeof city !== 'string') return 'No trip planned.';
      trip = { city, ref: randomUUID().slice(0, 8) };
      ctx.state.set('trip', trip);
    }
    const booking = await ctx.input.elicit('confirm', {
      message: `Book ${trip.city} for ${args.traveller} (ref ${trip.ref})?`,
      requestedSchema: {
        type: 'object',
        properties: { confirm: { type: 'boolean', title: 'Book it' } },
        required: ['confirm'],
      },
    });
    if (booking.action !== 'accept' || booking.content?.confirm !== true) return `Not booked (ref ${trip.ref}).`;
    return `Booked ${trip.city} for ${args.traveller}, ref ${trip.ref}.`;
  }
}

/** Request ids whose handler saw `ctx.signal` abort, in this process; `onAbort` also hears of each (stdio: stderr). */
export const abortedCalls: { ids: Array<string | number>; onAbort?: (id: string | number) => void } = { ids: [] };

/** The other MRTR-capable requests, and a tool that runs until it is cancelled. */
@Injectable()
export class RoundsExtras {
  @McpPrompt({ name: 'greeting', description: 'Asks for a name (elicitation), then greets it.' })
  async greeting(@McpCtx() ctx: McpRequestContext) {
    const answer = await ctx.input.elicit('name', {
      message: 'Whom should I greet?',
      requestedSchema: { type: 'object', properties: { name: { type: 'string', title: 'Name' } }, required: ['name'] },
    });
    return `Say hello to ${answer.action === 'accept' ? String(answer.content?.name) : 'nobody'}.`;
  }

  @McpResource({ uri: 'rounds://workspace', name: 'workspace', mimeType: 'application/json' })
  async workspace(@McpCtx() ctx: McpRequestContext) {
    const { roots } = await ctx.input.roots('roots');
    return JSON.stringify(roots.map((root) => root.uri));
  }

  @McpTool({
    name: 'regional_weather',
    description:
      'Weather of a city in a region; the region is mirrored into the Mcp-Param-Region header (x-mcp-header).',
    input: {
      type: 'object',
      properties: { region: { type: 'string', 'x-mcp-header': 'Region' }, city: { type: 'string' } },
      required: ['city'],
    },
  })
  regionalWeather(@McpArgs() args: { region?: string; city: string }) {
    return `Sunny in ${args.city} (${args.region ?? 'no region'}).`;
  }

  @McpTool({
    name: 'count_slowly',
    description: 'Counts to `to`, one step per 100 ms, reporting progress; records when it is cancelled.',
    input: { type: 'object', properties: { to: { type: 'integer', minimum: 1, maximum: 100 } }, required: ['to'] },
  })
  async count(@McpArgs() args: { to: number }, @McpCtx() ctx: McpRequestContext) {
    ctx.signal.addEventListener('abort', () => {
      abortedCalls.ids.push(ctx.requestId as string | number);
      abortedCalls.onAbort?.(ctx.requestId as string | number);
    });
    for (let step = 1; step <= args.to; step++) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      if (ctx.signal.aborted) throw ctx.signal.reason;
      ctx.progress(step, args.to);
    }
    return `Counted to ${args.to}.`;
  }
}

/**
 * A module serving only {@link TripPlanner} and {@link RoundsExtras}, over HTTP with these options or over stdio alone
 * (`false`), in both eras unless told.
 */
export function roundsModule(http: McpHttpOptions | false, eras?: Array<'legacy' | 'modern'>): Type<unknown> {
  @Module({
    imports: [McpModule.forRoot({ name: 'rounds-fixture', version: '0.0.1', http, ...(eras ? { eras } : {}) })],
    providers: [TripPlanner, RoundsExtras],
  })
  class RoundsFixtureModule {}
  return RoundsFixtureModule;
}
