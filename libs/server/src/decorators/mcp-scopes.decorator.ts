import { SetMetadata } from '@nestjs/common';
import { MCP_SCOPES_METADATA } from '../mcp.constants';

/**
 * The OAuth scopes a caller needs for a tool, resource, resource template or prompt (all of them). On a class, every
 * entry it declares needs them too, besides its own. A caller without them does not see the entry in any list, and
 * calling it is refused with 403 `insufficient_scope` naming every scope it needs (what a client asks for to step
 * up). Enforced wherever the request has an authorization context (`auth`, `http.authenticator`); over stdio the
 * process boundary is the trust and nothing is checked.
 *
 * @example
 * ```ts
 * @Injectable()
 * @McpScopes('notes:read')
 * export class NotesTools {
 *   @McpTool({ name: 'list_notes' })
 *   list() {
 *     return 'no notes yet';
 *   }
 *
 *   @McpTool({ name: 'add_note' })
 *   @McpScopes('notes:write')
 *   add() {
 *     return 'added';
 *   }
 * }
 * ```
 */
export const McpScopes = (...scopes: string[]): ClassDecorator & MethodDecorator =>
  SetMetadata(MCP_SCOPES_METADATA, scopes);
