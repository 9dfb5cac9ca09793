import type { IncomingMessage, ServerResponse } from 'node:http';
import { McpHttpServe } from './mount.types';

interface FastifyRequestLike {
  raw: IncomingMessage;
}
interface FastifyReplyLike {
  raw: ServerResponse;
  hijack(): void;
}
type ContentTypeParserDone = (error: Error | null, body?: unknown) => void;

/** The part of a Fastify instance {@link mountOnFastify} uses (the lib does not depend on Fastify's types). */
export interface FastifyInstanceLike {
  register(plugin: (scope: FastifyInstanceLike) => Promise<void>): unknown;
  removeAllContentTypeParsers(): void;
  addContentTypeParser(
    type: string,
    parser: (req: unknown, payload: unknown, done: ContentTypeParserDone) => void,
  ): void;
  route(options: {
    method: string[];
    url: string;
    handler: (request: FastifyRequestLike, reply: FastifyReplyLike) => void;
  }): unknown;
}

const METHODS = ['GET', 'POST', 'DELETE', 'OPTIONS', 'PUT', 'PATCH', 'HEAD'];

/**
 * Registers `serve` as Fastify routes for each path, in a plugin scope of their own: the app's hooks (`onRequest`,
 * `preHandler`: authentication, rate limits, logging) see MCP requests, then the MCP transport takes the raw
 * request and response over (`reply.hijack()`). The scope parses no body: the transport reads it itself, under its
 * own limit, so that its errors are JSON-RPC errors and not Fastify's.
 */
export function mountOnFastify(instance: FastifyInstanceLike, paths: readonly string[], serve: McpHttpServe): void {
  void instance.register(async (scope) => {
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser('*', (_req, _payload, done) => done(null, undefined));
    for (const url of new Set(paths)) {
      scope.route({
        method: METHODS,
        url,
        handler: (request, reply) => {
          reply.hijack();
          serve(request.raw, reply.raw);
        },
      });
    }
  });
}
