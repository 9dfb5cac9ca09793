// Starts a bench Nest app the way the runner expects: logger off, 127.0.0.1 on a free port, `READY <port>` on stdout,
// closed on SIGTERM; a failure to start is printed and exits 1. BENCH_ADAPTER=fastify runs it on Fastify.
import 'reflect-metadata';
import { INestApplication } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';

export function serveNest(module: unknown, prepare?: (app: INestApplication) => Promise<void>): void {
  const start = async () => {
    const app =
      process.env.BENCH_ADAPTER === 'fastify'
        ? // eslint-disable-next-line @typescript-eslint/no-require-imports
          await NestFactory.create(module as never, new (require('@nestjs/platform-fastify').FastifyAdapter)(), {
            logger: false,
          })
        : await NestFactory.create(module as never, { logger: false });
    await prepare?.(app);
    await app.listen(0, '127.0.0.1');
    process.stdout.write(`READY ${app.getHttpServer().address().port}\n`);
    process.on('SIGTERM', () => void app.close().then(() => process.exit(0)));
  };
  start().catch((error) => {
    console.error(error);
    process.exit(1);
  });
}
