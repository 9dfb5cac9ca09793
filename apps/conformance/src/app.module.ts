import { Module } from '@nestjs/common';
import { ClientInputTools } from './client-input.tools';
import { ContentTools } from './content.tools';
import { fixtureMcpImports } from './fixture-state.config';
import { InputRequiredTools } from './input-required.tools';
import { NotificationTools } from './notification.tools';
import { StatelessTools } from './stateless.tools';
import { TaskTools } from './task.tools';
import { TestPrompts } from './test.prompts';
import { TestResources } from './test.resources';

/**
 * The fixture server of the official MCP conformance suite (`npm run conformance`): the tools, resources and
 * prompts its server scenarios call, under the names and with the payloads they expect. One app serves both
 * requirement sets: 2025-11-25 (legacy era) and 2026-07-28 (modern era); the handlers do not care which. Its state
 * is in memory, or in Redis when `CONFORMANCE_REDIS_URL` is set (`npm run conformance:scale-out`: two instances behind
 * a load balancer); see fixture-state.config.ts.
 */
@Module({
  imports: fixtureMcpImports(),
  providers: [
    ContentTools,
    NotificationTools,
    ClientInputTools,
    TestResources,
    TestPrompts,
    InputRequiredTools,
    StatelessTools,
    TaskTools,
  ],
})
export class AppModule {}
