import { Injectable, UseGuards } from '@nestjs/common';
import { McpTool } from '@conduit-mcp/server';
import { NotesService } from '../notes/notes.service';
import { ApiKeyGuard } from './api-key.guard';

@Injectable()
export class AdminTools {
  constructor(private readonly notes: NotesService) {}

  /** Listed and callable only for callers with the admin key or the `admin` scope (see ApiKeyGuard). */
  @McpTool({
    name: 'reset_notes',
    title: 'Reset the notebook',
    description: 'Deletes every note.',
    annotations: { destructiveHint: true },
  })
  @UseGuards(ApiKeyGuard)
  reset() {
    return `Deleted ${this.notes.clear()} notes.`;
  }
}
