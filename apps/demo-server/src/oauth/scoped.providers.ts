// The demo's entries as `npm run start:oauth` serves them: the same classes, each with the OAuth scope it needs.
// Plain `npm start` (and the suites that start the demo's providers over HTTP without `auth`) serves the unscoped
// classes: without an authorization context an HTTP caller holds no scope, so scoped entries would be hidden there.
import { Injectable } from '@nestjs/common';
import { McpScopes } from '@conduit-mcp/server';
import { AdminTools } from '../admin/admin.tools';
import { NotesResources } from '../notes/notes.resources';
import { NotesTools } from '../notes/notes.tools';

/** The notebook's index, its notes and their id completions: `notes:read`. */
@Injectable()
@McpScopes('notes:read')
export class ScopedNotesResources extends NotesResources {}

/** `add_note` and `delete_note`: `notes:write`. */
@Injectable()
@McpScopes('notes:write')
export class ScopedNotesTools extends NotesTools {}

/** `reset_notes`: `admin` (which stands for the admin key of ApiKeyGuard). */
@Injectable()
@McpScopes('admin')
export class ScopedAdminTools extends AdminTools {}
