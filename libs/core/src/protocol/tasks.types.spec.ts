import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Tool } from './protocol.types';
import type {
  GetTaskResult,
  LegacyCreateTaskResult,
  LegacyTask,
  ModernCreateTaskResult,
  ModernTask,
  TaskMetadata,
} from './tasks.types';
import { META_RELATED_TASK } from './tasks.types';

// The types are hand-written: values typed with them (tsc checks the typing) must pass the published schemas.
const SPEC_DIR = join(__dirname, '../../../../test/support/spec');
const legacySchema = readFileSync(join(SPEC_DIR, 'schema-2025-11-25.json'), 'utf8');
const ajv = new Ajv2020({ strict: false, allErrors: true });
addFormats(ajv);
ajv.addSchema(JSON.parse(legacySchema), 'legacy');
ajv.addSchema(JSON.parse(readFileSync(join(SPEC_DIR, 'ext-tasks-schema-draft.json'), 'utf8')), 'ext');

function problems(schema: 'legacy' | 'ext', definition: string, value: unknown): string[] {
  const validate = ajv.getSchema(`${schema}#/$defs/${definition}`);
  if (!validate) throw new Error(`no definition ${definition} in ${schema}`);
  return validate(value) ? [] : (validate.errors ?? []).map((e) => `${e.instancePath} ${e.message}`);
}

const times = { createdAt: '2026-01-02T03:04:05.678Z', lastUpdatedAt: '2026-01-02T03:04:07.178Z' };

describe('task wire types', () => {
  it('legacy: Task, CreateTaskResult, TaskMetadata and Tool.execution match revision 2025-11-25', () => {
    const task: LegacyTask = { taskId: 't', status: 'working', ...times, ttl: null, pollInterval: 500 };
    const created: LegacyCreateTaskResult = { task: { ...task, ttl: 60_000 }, _meta: {} };
    const metadata: TaskMetadata = { ttl: 60_000 };
    const tool: Tool = { name: 'slow', inputSchema: { type: 'object' }, execution: { taskSupport: 'optional' } };
    expect(problems('legacy', 'Task', task)).toEqual([]);
    expect(problems('legacy', 'CreateTaskResult', created)).toEqual([]);
    expect(problems('legacy', 'TaskMetadata', metadata)).toEqual([]);
    expect(problems('legacy', 'Tool', tool)).toEqual([]);
  });

  it('modern: CreateTaskResult and GetTaskResult match the tasks extension', () => {
    const task: ModernTask = { taskId: 't', status: 'input_required', ...times, ttlMs: 60_000, pollIntervalMs: 500 };
    const created: ModernCreateTaskResult = { ...task, status: 'working', resultType: 'task' };
    const asking: GetTaskResult = {
      ...task,
      resultType: 'complete',
      inputRequests: { roots: { method: 'roots/list', params: {} } },
    };
    const done: GetTaskResult = {
      ...task,
      status: 'completed',
      resultType: 'complete',
      result: { content: [{ type: 'text', text: 'ok' }] },
    };
    const failed: GetTaskResult = {
      ...task,
      status: 'failed',
      ttlMs: null,
      resultType: 'complete',
      error: { code: -32603, message: 'boom' },
    };
    expect(problems('ext', 'CreateTaskResult', created)).toEqual([]);
    for (const result of [asking, done, failed]) expect(problems('ext', 'GetTaskResult', result)).toEqual([]);
  });

  it('names the related-task _meta key as revision 2025-11-25 does', () => {
    expect(legacySchema).toContain(`\`${META_RELATED_TASK}\``);
  });
});
