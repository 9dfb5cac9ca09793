import { createServer } from 'node:net';
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

/** Where an HTTP suite mounts the endpoint, on which adapter: ahead of the router, as Express routes, as Fastify routes. */
export const HTTP_MOUNTS = [
  ['express', 'server'],
  ['express', 'express'],
  ['fastify', 'fastify'],
] as const;

/**
 * A port free on 127.0.0.1 right now: for a server whose URL must be known before it listens (an OAuth resource is
 * named in its configuration and in its tokens).
 */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer().listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
    probe.on('error', reject);
  });
}
