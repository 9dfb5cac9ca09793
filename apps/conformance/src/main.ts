import { INestApplication, Logger } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { AppModule } from './app.module';
import { fixtureStateSettings } from './fixture-state.config';

// HTTP_ADAPTER=fastify serves the fixture on @nestjs/platform-fastify, with the same AppModule.
async function create(): Promise<INestApplication> {
  if (process.env.HTTP_ADAPTER !== 'fastify') return NestFactory.create(AppModule);
  // Loaded only when asked for: the Express fixture never needs the Fastify packages.
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { FastifyAdapter } = require('@nestjs/platform-fastify') as typeof import('@nestjs/platform-fastify');
  return NestFactory.create(AppModule, new FastifyAdapter());
}

async function bootstrap(): Promise<void> {
  const app = await create();
  app.enableShutdownHooks();
  await app.listen(Number(process.env.PORT ?? 3001), '127.0.0.1');
  const { redisUrl, keyPrefix } = fixtureStateSettings();
  const state = redisUrl ? `state in Redis under ${keyPrefix}` : 'state in memory';
  Logger.log(
    `MCP endpoint: ${await app.getUrl()}/mcp (${process.env.HTTP_ADAPTER ?? 'express'}, ${state})`,
    'ConformanceServer',
  );
}

void bootstrap();
