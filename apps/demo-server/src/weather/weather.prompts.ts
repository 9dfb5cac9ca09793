import { Injectable } from '@nestjs/common';
import { McpArgs, McpCompletion, McpPrompt } from '@conduit-mcp/server';

const CITIES = ['Amsterdam', 'Athens', 'Berlin', 'Bergen', 'Lisbon', 'London', 'Madrid', 'Oslo', 'Paris', 'Prague'];

@Injectable()
export class WeatherPrompts {
  @McpPrompt({
    name: 'trip_brief',
    title: 'Trip weather brief',
    description: 'Plan what to pack for a trip.',
    arguments: [
      { name: 'city', description: 'Destination', required: true },
      { name: 'style', description: 'short or detailed' },
    ],
  })
  brief(@McpArgs() args: { city: string; style?: string }) {
    return `Use the forecast tool for ${args.city}, then give a ${args.style ?? 'short'} packing list.`;
  }

  @McpCompletion({ prompt: 'trip_brief', argument: 'city' })
  completeCity(@McpArgs() { value }: { value: string }) {
    return CITIES.filter((city) => city.toLowerCase().startsWith(value.toLowerCase()));
  }

  @McpCompletion({ prompt: 'trip_brief', argument: 'style' })
  completeStyle(@McpArgs() { value }: { value: string }) {
    return ['short', 'detailed'].filter((style) => style.startsWith(value));
  }
}
