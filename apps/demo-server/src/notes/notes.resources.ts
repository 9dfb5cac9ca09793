import { Injectable, NotFoundException } from '@nestjs/common';
import { McpArgs, McpCompletion, McpResource } from '@conduit-mcp/server';
import { NotesService } from './notes.service';

/** The URI of the notebook's index; its subscribers hear of every note added or deleted. */
export const NOTES_INDEX_URI = 'notes://index';

@Injectable()
export class NotesResources {
  constructor(private readonly notes: NotesService) {}

  @McpResource({ uri: NOTES_INDEX_URI, name: 'notes-index', title: 'All notes', mimeType: 'application/json' })
  index() {
    return JSON.stringify(this.notes.list().map(({ id, title }) => ({ id, title, uri: `notes://notes/${id}` })));
  }

  @McpResource({ uri: 'notes://notes/{id}', name: 'note', title: 'One note', mimeType: 'text/markdown' })
  note(@McpArgs() { id }: { id: string }) {
    const note = this.notes.get(id);
    if (!note) throw new NotFoundException();
    return `# ${note.title}\n\n${note.body}`;
  }

  @McpCompletion({ resource: 'notes://notes/{id}', argument: 'id' })
  completeId(@McpArgs() { value }: { value: string }) {
    return this.notes
      .list()
      .map((note) => note.id)
      .filter((id) => id.startsWith(value));
  }
}
