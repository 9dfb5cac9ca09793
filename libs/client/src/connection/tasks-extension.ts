import { META_CLIENT_CAPABILITIES, TASKS_EXTENSION_ID } from '@conduit-mcp/core';

/**
 * Modern era: the params of a request that declares the tasks extension, for itself only (the envelope adds the
 * client's other capabilities). A plain `callTool` never declares it, or a server could answer it with a task.
 */
export function declaringTasks(params: Record<string, unknown>): Record<string, unknown> {
  const meta = params._meta as Record<string, unknown> | undefined;
  return {
    ...params,
    _meta: { ...meta, [META_CLIENT_CAPABILITIES]: { extensions: { [TASKS_EXTENSION_ID]: {} } } },
  };
}
