import { INestApplication, Injectable, Module, Type } from '@nestjs/common';
import {
  McpArgs,
  McpAuthOptions,
  McpCtx,
  McpHttpOptions,
  McpModule,
  McpRequestContext,
  McpScopes,
  McpTool,
} from '@conduit-mcp/server';
import { HttpAdapterName, createHttpApp } from './http-adapters';

/** A notebook for OAuth suites: list_notes needs notes:read, add_note notes:write, whoami no scope. */
@Injectable()
export class NoteTools {
  protected readonly notes: string[] = [];

  @McpTool({ name: 'list_notes', description: 'The notes' })
  @McpScopes('notes:read')
  list() {
    return JSON.stringify(this.notes);
  }

  @McpTool({
    name: 'add_note',
    description: 'Adds a note',
    input: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
  })
  @McpScopes('notes:write')
  add(@McpArgs() { text }: { text: string }) {
    this.notes.push(text);
    return `added: ${text}`;
  }

  @McpTool({ name: 'whoami', description: 'Who the token speaks for' })
  whoami(@McpCtx() ctx: McpRequestContext) {
    return JSON.stringify(ctx.auth ?? null);
  }
}

export interface NotesServerOptions {
  /** The port of `auth.resource`: the server listens on 127.0.0.1 there. */
  port: number;
  auth: McpAuthOptions;
  /** Default `express`. */
  adapter?: HttpAdapterName;
  http?: McpHttpOptions;
  /** Default NoteTools; a subclass adds tools of its own. */
  tools?: Type<NoteTools>;
}

/** `McpModule` (`notes` 1.0.0) serving the note tools behind `auth`, listening; the caller closes it. */
export async function startNotesServer(options: NotesServerOptions): Promise<INestApplication> {
  const { port, auth, adapter = 'express', http, tools = NoteTools } = options;
  @Module({
    imports: [McpModule.forRoot({ name: 'notes', version: '1.0.0', ...(http && { http }), auth })],
    providers: [tools],
  })
  class NotesModule {}
  const app = await createHttpApp(NotesModule, adapter);
  try {
    await app.listen(port, '127.0.0.1');
  } catch (error) {
    // The caller gets no app to close when it cannot listen.
    await app.close();
    throw error;
  }
  return app;
}
