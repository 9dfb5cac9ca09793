import { ClientCapabilities, ErrorCode, McpError, TASKS_EXTENSION_ID } from '@conduit-mcp/core';
import { principalOf } from '../auth/auth-principal';
import type { McpRequestContext } from '../context/mcp-request-context';
import type { McpSession } from '../session/mcp-session';

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
 * Who a task belongs to: the authenticated caller's principal (`principalOf`) when there is one; otherwise, in the
 * legacy era, the session that created it; in the modern era every anonymous caller alike, the task id (random,
 * unguessable) being what keeps one caller's task from another (modern requests have no session). The `subject:`
 * prefix predates client principals and stays, so that owners already in a task store keep their tasks.
 */
export function taskOwnerOf(ctx: McpRequestContext): string {
  const principal = principalOf(ctx.auth);
  if (principal !== undefined) return `subject:${principal}`;
  return ctx.era === 'legacy' ? `session:${ctx.sessionId}` : 'anonymous';
}

/** What a 2025-11-25 server that runs tools as tasks declares under `capabilities.tasks`. */
export const LEGACY_TASKS_CAPABILITY = Object.freeze({ list: {}, cancel: {}, requests: { tools: { call: {} } } });

/**
 * Whether a legacy session gets tasks (2025-11-25's experimental tasks): a server with task tools, a session that
 * negotiated 2025-11-25, and a session that lasts (stdio or stateful HTTP): a task's questions, its `tasks/result`
 * and its owner all need one. Stateless HTTP has none, so its clients are offered no tasks.
 */
export function offersLegacyTasks(session: McpSession, servesTasks: boolean): boolean {
  return servesTasks && session.persistent && session.revision === TASKS_REVISION;
}

/** The only legacy revision with tasks. */
const TASKS_REVISION = '2025-11-25';
