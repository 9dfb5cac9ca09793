import { INestApplication, NestApplicationOptions } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter } from '@nestjs/platform-fastify';

/** The HTTP adapters every HTTP suite runs over (`describe.each(HTTP_ADAPTERS)`). */
export const HTTP_ADAPTERS = ['express', 'fastify'] as const;
export type HttpAdapterName = (typeof HTTP_ADAPTERS)[number];

/** A Nest app of `module` on the named adapter (Express: Nest's default). */
export function createHttpApp(
  module: unknown,
  adapter: HttpAdapterName,
  options: NestApplicationOptions = { logger: false },
): Promise<INestApplication> {
  return adapter === 'fastify'
    ? NestFactory.create(module as never, new FastifyAdapter(), options)
    : NestFactory.create(module as never, options);
}
