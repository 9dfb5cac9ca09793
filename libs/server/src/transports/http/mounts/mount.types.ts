import type { IncomingMessage, ServerResponse } from 'node:http';

/** Serves a request and returns true when it is one of ours; returns false to let it fall through. */
export type McpHttpRoute = (req: IncomingMessage, res: ServerResponse) => boolean;

/** Serves a request routed to MCP; `parsedBody` is the body an Express body parser already read. */
export type McpHttpServe = (req: IncomingMessage, res: ServerResponse, parsedBody?: unknown) => void;
