import { ClientCapabilities, ErrorCode, McpError, TASKS_EXTENSION_ID } from '@conduit-mcp/core';
import type { McpRequestContext } from '../context/mcp-request-context';

/** Whether a modern-era request declared the tasks extension among its capabilities (each request on its own). */
export function declaresTasks(capabilities: ClientCapabilities): boolean {
  const extensions = capabilities.extensions;
  return typeof extensions === 'object' && extensions !== null && TASKS_EXTENSION_ID in extensions;
}

/** The -32021 refusal of a request that needs the tasks extension and did not declare it (HTTP 400). */
export function tasksExtensionRequired(): McpError {
  return new McpError(ErrorCode.MissingRequiredClientCapability, 'Missing required client capability', {
    requiredCapabilities: { extensions: { [TASKS_EXTENSION_ID]: {} } },
  });
}

/**
 * Who a task belongs to: the authenticated subject when there is one; otherwise every anonymous caller alike, the
 * task id (random, unguessable) being what keeps one caller's task from another (modern requests have no session).
 */
export function taskOwnerOf(ctx: McpRequestContext): string {
  const subject = ctx.auth?.subject;
  return subject === undefined ? 'anonymous' : `subject:${subject}`;
}
