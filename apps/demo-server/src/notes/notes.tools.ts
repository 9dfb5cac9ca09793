import { Injectable } from '@nestjs/common';
import { McpArgs, McpCtx, McpRequestContext, McpServer, McpTool, McpToolError } from '@conduit-mcp/server';
import { IsString, Length } from 'class-validator';
import { NOTES_INDEX_URI } from './notes.resources';
import { NotesService } from './notes.service';

export class AddNoteArgs {
  @IsString()
  @Length(1, 120)
  title: string;

  @IsString()
  @Length(0, 10_000)
  body: string;
}

export class DeleteNoteArgs {
  @IsString()
  @Length(1, 64)
  id: string;
}

@Injectable()
export class NotesTools {
  constructor(
    private readonly notes: NotesService,
    private readonly server: McpServer,
  ) {}

  @McpTool({ name: 'add_note', title: 'Add a note', description: 'Adds a note to the notebook.', input: AddNoteArgs })
  add(@McpArgs() args: AddNoteArgs) {
    const note = this.notes.add(args.title, args.body);
    if (!note) throw new McpToolError(`The notebook is full (${NotesService.MAX_NOTES} notes)`);
    void this.server.notifyResourceUpdated(NOTES_INDEX_URI);
    return {
      content: [
        { type: 'resource_link', uri: `notes://notes/${note.id}`, name: note.title, mimeType: 'text/markdown' },
      ],
    };
  }

  @McpTool({
    name: 'delete_note',
    title: 'Delete a note',
    description: 'Deletes a note after the user confirms (elicitation).',
    input: DeleteNoteArgs,
    annotations: { destructiveHint: true },
  })
  async delete(@McpArgs() args: DeleteNoteArgs, @McpCtx() ctx: McpRequestContext) {
    const note = this.notes.get(args.id);
    if (!note) throw new McpToolError(`No note with id ${args.id}`);
    const answer = await ctx.input.elicit('confirm', {
      message: `Delete the note "${note.title}"?`,
      requestedSchema: {
        type: 'object',
        properties: { confirm: { type: 'boolean', title: 'Delete it', default: false } },
        required: ['confirm'],
      },
    });
    if (answer.action !== 'accept' || answer.content?.confirm !== true) return 'Kept the note.';
    this.notes.delete(args.id);
    void this.server.notifyResourceUpdated(NOTES_INDEX_URI);
    return `Deleted the note "${note.title}".`;
  }
}
