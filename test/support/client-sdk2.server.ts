import { createServer } from 'node:http';
import { AddressInfo } from 'node:net';
import { toNodeHandler } from '@modelcontextprotocol/node';
import {
  McpHttpHandler,
  McpServer,
  ServerContext,
  acceptedContent,
  createMcpHandler,
  fromJsonSchema,
  inputRequired,
  inputResponse,
  localhostAllowedHostnames,
  validateHostHeader,
} from '@modelcontextprotocol/server';

/** A 2.x server (`createMcpHandler`) on 127.0.0.1 and a random port. */
export interface Sdk2Server {
  url: string;
  handler: McpHttpHandler;
  /** Every `requestState` the server received back from the client, as it arrived. */
  echoedStates: string[];
  close(): Promise<void>;
}

/** A request state with characters a careless client would re-encode: it must come back byte-exact. */
export const ODD_STATE = 'round-1:{"a":"é\\u00e9"}\u2028+/= \u{1F600}';

const text = (value: string) => ({ content: [{ type: 'text' as const, text: value }] });
const objectSchema = (properties: Record<string, unknown>, required: string[] = []) =>
  fromJsonSchema<Record<string, unknown>>({ type: 'object', properties, required } as never);

/**
 * The tools, prompt and resource of the suite, each asking the client for input the 2026-07-28 way: it returns
 * `inputRequired(...)` until the retried request carries the answers in `ctx.mcpReq.inputResponses`.
 */
function buildServer(echoedStates: string[]): McpServer {
  const server = new McpServer(
    { name: 'sdk2-mrtr', version: '2.4.0' },
    { capabilities: { logging: {}, tools: { listChanged: true }, resources: { subscribe: true, listChanged: true } } },
  );

  server.registerTool(
    'confirm_delete',
    {
      description: 'Deletes a file after a form confirmation',
      inputSchema: objectSchema({ path: { type: 'string' } }, ['path']),
    },
    async (args, ctx: ServerContext) => {
      const path = String(args.path);
      const answer = inputResponse(ctx.mcpReq.inputResponses, 'confirm');
      if (answer.kind === 'missing') {
        return inputRequired({
          inputRequests: {
            confirm: inputRequired.elicit({
              message: `Delete ${path}?`,
              requestedSchema: {
                type: 'object',
                properties: {
                  confirm: { type: 'boolean', title: 'Delete it' },
                  reason: { type: 'string', title: 'Reason' },
                },
                required: ['confirm'],
              },
            }),
          },
        });
      }
      if (answer.kind !== 'elicit' || answer.action !== 'accept' || answer.content?.confirm !== true)
        return text(`kept ${path} (${answer.kind === 'elicit' ? answer.action : answer.kind})`);
      return text(`deleted ${path}: ${String(answer.content.reason ?? 'no reason')}`);
    },
  );

  server.registerTool(
    'ask_model',
    {
      description: 'Asks the client model (sampling)',
      inputSchema: objectSchema({ question: { type: 'string' } }, ['question']),
    },
    async (args, ctx: ServerContext) => {
      const answer = inputResponse(ctx.mcpReq.inputResponses, 'llm');
      if (answer.kind !== 'sampling') {
        return inputRequired({
          inputRequests: {
            llm: inputRequired.createMessage({
              messages: [{ role: 'user', content: { type: 'text', text: String(args.question) } }],
              maxTokens: 50_000,
              includeContext: 'allServers',
            }),
          },
        });
      }
      const content = answer.result.content as { type: string; text?: string };
      return text(`model ${answer.result.model} said: ${content.type === 'text' ? content.text : '?'}`);
    },
  );

  server.registerTool('client_roots', { description: 'Lists the client roots' }, async (ctx: ServerContext) => {
    const answer = inputResponse(ctx.mcpReq.inputResponses, 'roots');
    if (answer.kind !== 'roots') return inputRequired({ inputRequests: { roots: inputRequired.listRoots() } });
    return text(answer.roots.map((root) => `${root.name ?? '-'}=${root.uri}`).join('\n'));
  });

  server.registerTool(
    'open_consent',
    { description: 'URL-mode elicitation', inputSchema: objectSchema({ url: { type: 'string' } }, ['url']) },
    async (args, ctx: ServerContext) => {
      const answer = inputResponse(ctx.mcpReq.inputResponses, 'consent');
      if (answer.kind !== 'elicit')
        return inputRequired({
          inputRequests: { consent: inputRequired.elicitUrl({ message: 'Open to consent', url: String(args.url) }) },
        });
      return text(`consent: ${answer.action}`);
    },
  );

  // Three rounds: a form, then (state carried in requestState) a sampling, then the result.
  server.registerTool(
    'interview',
    { description: 'Two rounds of questions, state in requestState' },
    async (ctx: ServerContext) => {
      const state = ctx.mcpReq.requestState<string>();
      if (state !== undefined) echoedStates.push(state);
      if (state === undefined) {
        return inputRequired({
          inputRequests: {
            name: inputRequired.elicit({
              message: 'Your name?',
              requestedSchema: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] },
            }),
          },
          requestState: ODD_STATE,
        });
      }
      if (state === ODD_STATE) {
        const name = acceptedContent(ctx.mcpReq.inputResponses, 'name')?.name;
        return inputRequired({
          inputRequests: {
            poem: inputRequired.createMessage({
              messages: [{ role: 'user', content: { type: 'text', text: `A poem for ${String(name)}` } }],
              maxTokens: 20,
            }),
          },
          requestState: `round-2:${String(name)}`,
        });
      }
      const poem = inputResponse(ctx.mcpReq.inputResponses, 'poem');
      const verse = poem.kind === 'sampling' ? (poem.result.content as { text?: string }).text : '?';
      return text(`${state.slice('round-2:'.length)} got: ${verse}`);
    },
  );

  // Every kind at once, in one round.
  server.registerTool(
    'everything_at_once',
    { description: 'Form, sampling and roots in one round' },
    async (ctx: ServerContext) => {
      const responses = ctx.mcpReq.inputResponses;
      const form = inputResponse(responses, 'form');
      const llm = inputResponse(responses, 'llm');
      const roots = inputResponse(responses, 'roots');
      if (form.kind === 'missing' || llm.kind === 'missing' || roots.kind === 'missing') {
        return inputRequired({
          inputRequests: {
            form: inputRequired.elicit({
              message: 'Pick',
              requestedSchema: { type: 'object', properties: { pick: { type: 'string', enum: ['a', 'b'] } } },
            }),
            llm: inputRequired.createMessage({
              messages: [{ role: 'user', content: { type: 'text', text: 'hello' } }],
              maxTokens: 5,
            }),
            roots: inputRequired.listRoots(),
          },
        });
      }
      return text(`${form.kind}/${llm.kind}/${roots.kind === 'roots' ? roots.roots.length : 0}`);
    },
  );

  // Never satisfied: asks again every round.
  server.registerTool('endless', { description: 'Asks forever' }, async () =>
    inputRequired({
      inputRequests: {
        again: inputRequired.elicit({ message: 'Again?', requestedSchema: { type: 'object', properties: {} } }),
      },
    }),
  );

  server.registerPrompt('greeting', { description: 'Asks who to greet first' }, async (ctx: ServerContext) => {
    const who = acceptedContent(ctx.mcpReq.inputResponses, 'who')?.who;
    if (who === undefined) {
      return inputRequired({
        inputRequests: {
          who: inputRequired.elicit({
            message: 'Greet whom?',
            requestedSchema: { type: 'object', properties: { who: { type: 'string' } }, required: ['who'] },
          }),
        },
      });
    }
    return {
      messages: [{ role: 'user' as const, content: { type: 'text' as const, text: `Say hello to ${String(who)}` } }],
    };
  });

  server.registerResource(
    'secret-note',
    'note://secret',
    { mimeType: 'text/plain' },
    async (uri: URL, ctx: ServerContext) => {
      const answer = inputResponse(ctx.mcpReq.inputResponses, 'unlock');
      if (answer.kind !== 'elicit' || answer.action !== 'accept') {
        return inputRequired({
          inputRequests: {
            unlock: inputRequired.elicit({
              message: 'Unlock the note?',
              requestedSchema: { type: 'object', properties: {} },
            }),
          },
        });
      }
      return { contents: [{ uri: uri.href, mimeType: 'text/plain', text: 'the secret note' }] };
    },
  );

  server.registerResource('plain-note', 'note://plain', { mimeType: 'text/plain' }, async (uri: URL) => ({
    contents: [{ uri: uri.href, mimeType: 'text/plain', text: 'plain' }],
  }));
  return server;
}

/** Starts a 2.x `createMcpHandler` endpoint behind `toNodeHandler` on 127.0.0.1:0 (Host header checked). */
export async function startSdk2Server(): Promise<Sdk2Server> {
  const echoedStates: string[] = [];
  const handler = createMcpHandler(() => buildServer(echoedStates), { onerror: () => undefined });
  const node = toNodeHandler(handler);
  const http = createServer((req, res) => {
    const host = validateHostHeader(req.headers.host ?? null, localhostAllowedHostnames());
    if (!host.ok) {
      res.writeHead(403).end();
      return;
    }
    void node(req, res);
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  const { port } = http.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    handler,
    echoedStates,
    close: async () => {
      await handler.close();
      http.closeAllConnections();
      await new Promise<void>((resolve) => http.close(() => resolve()));
    },
  };
}
