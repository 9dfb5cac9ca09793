import { META_RELATED_TASK } from '@conduit-mcp/core';
import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { toDetailedTask, toLegacyTask, toModernTask } from './task.projection';
import { McpTaskStatus, TaskRecord } from './task.store';

// WireSchema validates whole messages by method only; these checks need single definitions, so ajv directly.
const SPEC_DIR = join(__dirname, '../../../../test/support/spec');
const ajv = new Ajv2020({ strict: false, allErrors: true });
addFormats(ajv);
ajv.addSchema(JSON.parse(readFileSync(join(SPEC_DIR, 'schema-2025-11-25.json'), 'utf8')), 'legacy');
ajv.addSchema(JSON.parse(readFileSync(join(SPEC_DIR, 'ext-tasks-schema-draft.json'), 'utf8')), 'ext');

/** Problems of `value` against a definition of the 2025-11-25 schema (`legacy`) or of the tasks extension (`ext`). */
function problems(schema: 'legacy' | 'ext', definition: string, value: unknown): string[] {
  const validate = ajv.getSchema(`${schema}#/$defs/${definition}`);
  if (!validate) throw new Error(`no definition ${definition} in ${schema}`);
  return validate(value) ? [] : (validate.errors ?? []).map((e) => `${e.instancePath} ${e.message}`);
}

const CREATED = Date.UTC(2026, 0, 2, 3, 4, 5, 678);
const QUESTIONS = {
  confirm: {
    method: 'elicitation/create',
    params: {
      message: 'Delete notes.txt?',
      requestedSchema: { type: 'object', properties: { confirm: { type: 'boolean' } }, required: ['confirm'] },
    },
  },
  roots: { method: 'roots/list', params: {} },
};

function record(extra: Partial<TaskRecord> = {}): TaskRecord {
  return {
    taskId: 'task-1',
    owner: 'alice',
    server: 's',
    method: 'tools/call',
    era: 'modern',
    tool: 'slow_compute',
    status: 'working',
    createdAt: CREATED,
    lastUpdatedAt: CREATED + 1_500,
    ttlMs: 3_600_000,
    expiresAt: CREATED + 3_600_000,
    pollIntervalMs: 1_000,
    ...extra,
  };
}

/** A record of each status, with every field a runner could have left on it. */
const ALL: Record<McpTaskStatus, TaskRecord> = {
  working: record(),
  input_required: record({ status: 'input_required', inputRequests: QUESTIONS }),
  completed: record({
    status: 'completed',
    result: { content: [{ type: 'text', text: 'done' }], isError: true },
  }),
  failed: record({
    status: 'failed',
    statusMessage: 'simulated protocol failure',
    error: { code: -32603, message: 'simulated protocol failure', data: { at: 'job' } },
  }),
  cancelled: record({ status: 'cancelled', statusMessage: 'cancelled by the requestor', inputRequests: QUESTIONS }),
};
const STATUSES = Object.keys(ALL) as McpTaskStatus[];
const ENVELOPE = ['task', 'result', 'error', 'inputRequests', 'requestState', 'resultType', '_meta'];
const INTERNAL = ['owner', 'server', 'method', 'era', 'tool', 'expiresAt'];

it('validates against schemas that refuse a wrong field name or a status without its field', () => {
  const legacy = toLegacyTask(ALL.working);
  const modern = toModernTask(ALL.completed);
  expect(problems('legacy', 'Task', { ...legacy, ttl: undefined })).not.toEqual([]);
  expect(problems('ext', 'Task', { ...modern, ttlMs: undefined, ttl: 1 })).not.toEqual([]);
  expect(problems('ext', 'GetTaskResult', { ...modern, resultType: 'complete' })).not.toEqual([]);
});

describe('toLegacyTask', () => {
  it('spells the record as a 2025-11-25 Task: ISO 8601 timestamps, ttl and pollInterval in milliseconds', () => {
    expect(toLegacyTask(record({ statusMessage: 'busy' }))).toStrictEqual({
      taskId: 'task-1',
      status: 'working',
      statusMessage: 'busy',
      createdAt: '2026-01-02T03:04:05.678Z',
      lastUpdatedAt: '2026-01-02T03:04:07.178Z',
      ttl: 3_600_000,
      pollInterval: 1_000,
    });
  });

  it('leaves out the optional fields the record does not have', () => {
    const task = toLegacyTask(record({ pollIntervalMs: undefined }));
    expect(Object.keys(task).sort()).toEqual(['createdAt', 'lastUpdatedAt', 'status', 'taskId', 'ttl']);
  });

  it.each(STATUSES)(
    'is a valid Task, CreateTaskResult and GetTaskResult of 2025-11-25 when %s, with nothing else',
    (status) => {
      const task = toLegacyTask(ALL[status]);
      expect(problems('legacy', 'Task', task)).toEqual([]);
      expect(problems('legacy', 'CreateTaskResult', { task })).toEqual([]);
      expect(problems('legacy', 'GetTaskResult', task)).toEqual([]);
      expect(problems('legacy', 'TaskStatusNotificationParams', task)).toEqual([]);
      for (const field of [...ENVELOPE, ...INTERNAL, 'ttlMs', 'pollIntervalMs']) expect(task).not.toHaveProperty(field);
    },
  );
});

describe('toModernTask', () => {
  it('spells the record as an extension Task: ISO 8601 timestamps, ttlMs and pollIntervalMs', () => {
    expect(toModernTask(record({ statusMessage: 'busy' }))).toStrictEqual({
      taskId: 'task-1',
      status: 'working',
      statusMessage: 'busy',
      createdAt: '2026-01-02T03:04:05.678Z',
      lastUpdatedAt: '2026-01-02T03:04:07.178Z',
      ttlMs: 3_600_000,
      pollIntervalMs: 1_000,
    });
  });

  it.each(STATUSES)(
    'is a valid CreateTaskResult with resultType "task" when %s, without result, error, questions or request state',
    (status) => {
      const task = toModernTask(ALL[status]);
      expect(problems('ext', 'Task', task)).toEqual([]);
      expect(problems('ext', 'CreateTaskResult', { ...task, resultType: 'task' })).toEqual([]);
      for (const field of [...ENVELOPE, ...INTERNAL, 'ttl', 'pollInterval']) expect(task).not.toHaveProperty(field);
    },
  );
});

describe('toDetailedTask', () => {
  it.each(STATUSES)('is a valid GetTaskResult with resultType "complete" when %s', (status) => {
    const task = toDetailedTask(ALL[status]);
    expect(problems('ext', 'GetTaskResult', { ...task, resultType: 'complete' })).toEqual([]);
    expect(problems('ext', 'TaskStatusNotificationParams', task)).toEqual([]);
    for (const field of ['task', 'requestState', 'resultType', '_meta', ...INTERNAL, 'ttl', 'pollInterval'])
      expect(task).not.toHaveProperty(field);
  });

  it('adds only the field of each status: questions, result, or error', () => {
    const fields = (status: McpTaskStatus) =>
      Object.keys(toDetailedTask(ALL[status])).filter((key) => ['inputRequests', 'result', 'error'].includes(key));
    expect(STATUSES.map((status) => [status, fields(status)])).toEqual([
      ['working', []],
      ['input_required', ['inputRequests']],
      ['completed', ['result']],
      ['failed', ['error']],
      ['cancelled', []],
    ]);
  });

  it('carries every outstanding question while input_required', () => {
    expect(toDetailedTask(ALL.input_required).inputRequests).toEqual(QUESTIONS);
  });

  it('inlines the tool result once completed, a tool error too', () => {
    expect(toDetailedTask(ALL.completed)).toMatchObject({
      status: 'completed',
      result: { content: [{ type: 'text', text: 'done' }], isError: true },
    });
  });

  it('gives the JSON-RPC error of a failed task and never a result, even one the record kept', () => {
    const task = toDetailedTask({ ...ALL.failed, result: { content: [] } });
    expect(task.error).toEqual({ code: -32603, message: 'simulated protocol failure', data: { at: 'job' } });
    expect(task).not.toHaveProperty('result');
  });

  it('drops the related-task _meta from the inlined result, keeping the rest of its _meta', () => {
    const related = { [META_RELATED_TASK]: { taskId: 'task-1' } };
    const only = record({ status: 'completed', result: { content: [], _meta: related } });
    expect(toDetailedTask(only).result).toStrictEqual({ content: [] });
    const mixed = record({ status: 'completed', result: { content: [], _meta: { ...related, trace: 'abc' } } });
    expect(toDetailedTask(mixed).result).toStrictEqual({ content: [], _meta: { trace: 'abc' } });
    expect(mixed.result!._meta).toEqual({ ...related, trace: 'abc' });
  });

  it('stays valid for a record that lacks the field of its status', () => {
    const asking = toDetailedTask(record({ status: 'input_required' }));
    const failed = toDetailedTask(record({ status: 'failed', statusMessage: 'worker lost' }));
    const done = toDetailedTask(record({ status: 'completed' }));
    expect(asking.inputRequests).toEqual({});
    expect(failed.error).toEqual({ code: -32603, message: 'worker lost' });
    expect(done.result).toEqual({ content: [] });
    for (const task of [asking, failed, done])
      expect(problems('ext', 'GetTaskResult', { ...task, resultType: 'complete' })).toEqual([]);
  });
});
