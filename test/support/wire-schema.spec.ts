import { WireSchema } from './wire-schema';

// Hand-written from the schemas in spec/: schema-2025-11-25.json (experimental tasks) and
// ext-tasks-schema-draft.json (the tasks extension, checked beside schema-2026-07-28.json).

const response = (result: Record<string, unknown>) => ({ jsonrpc: '2.0', id: 7, result });
const times = { createdAt: '2026-07-28T10:30:00Z', lastUpdatedAt: '2026-07-28T10:30:01Z' };
const elicit = {
  method: 'elicitation/create',
  params: {
    mode: 'form',
    message: 'Delete notes.txt?',
    requestedSchema: { type: 'object', properties: { confirm: { type: 'boolean' } }, required: ['confirm'] },
  },
};

describe('WireSchema, 2026-07-28 with the tasks extension', () => {
  const schema = WireSchema.for('2026-07-28');
  const task = { taskId: 'a1b2', status: 'working', ...times, ttlMs: 60_000, pollIntervalMs: 1000 };

  describe('tools/call answered with resultType "task"', () => {
    it('accepts a CreateTaskResult, with a ttlMs or a null one', () => {
      expect(schema.check(response({ resultType: 'task', ...task }), 'tools/call')).toEqual([]);
      expect(schema.check(response({ resultType: 'task', ...task, ttlMs: null }), 'tools/call')).toEqual([]);
    });

    it('refuses the legacy field names: ttl instead of ttlMs', () => {
      const { ttlMs: _ttlMs, ...rest } = task;
      const problems = schema.check(response({ resultType: 'task', ...rest, ttl: 60_000 }), 'tools/call');
      expect(problems).toEqual([expect.stringMatching(/^ext-tasks:CreateTaskResult .*'ttlMs'/)]);
    });

    it('refuses the legacy wrapped shape and a status the extension does not define', () => {
      expect(schema.check(response({ resultType: 'task', task }), 'tools/call')).not.toEqual([]);
      expect(schema.check(response({ resultType: 'task', ...task, status: 'done' }), 'tools/call')).not.toEqual([]);
      expect(schema.check(response({ resultType: 'task', ...task, ttlMs: 1.5 }), 'tools/call')).not.toEqual([]);
    });

    it('refuses a task for a request the extension cannot make a task of', () => {
      expect(schema.check(response({ resultType: 'task', ...task }), 'prompts/get')).toEqual([
        'resultType "task" answers prompts/get, which the tasks extension does not let create a task',
      ]);
    });

    it('still checks the other results of tools/call as before', () => {
      const done = { resultType: 'complete', content: [{ type: 'text', text: 'hi' }] };
      expect(schema.check(response(done), 'tools/call')).toEqual([]);
      expect(schema.check(response({ resultType: 'complete' }), 'tools/call')).not.toEqual([]);
      expect(schema.check(response({ resultType: 'later', ...task }), 'tools/call')).toEqual([
        'resultType "later" is neither "complete", "input_required" nor "task"',
      ]);
    });
  });

  describe('tasks/get as GetTaskResult', () => {
    it('accepts each status with its own payload', () => {
      const results = [
        { ...task },
        { ...task, status: 'input_required', inputRequests: { confirm: elicit } },
        { ...task, status: 'completed', result: { content: [{ type: 'text', text: 'done' }], isError: true } },
        { ...task, status: 'failed', error: { code: -32603, message: 'simulated protocol failure' } },
        { ...task, status: 'cancelled', statusMessage: 'cancelled by the client' },
      ];
      for (const result of results)
        expect(schema.check(response({ resultType: 'complete', ...result }), 'tasks/get')).toEqual([]);
    });

    it('refuses a status without the payload it requires', () => {
      const results = [
        { ...task, status: 'input_required' },
        { ...task, status: 'completed' },
        { ...task, status: 'failed' },
        { ...task, status: 'failed', error: { code: -32603 } },
        { ...task, status: 'input_required', inputRequests: { confirm: { method: 'elicitation/create' } } },
      ];
      for (const result of results)
        expect(schema.check(response({ resultType: 'complete', ...result }), 'tasks/get')).toEqual(
          expect.arrayContaining([expect.stringMatching(/^ext-tasks:GetTaskResult/)]),
        );
    });

    it('refuses a missing field and resultType "task" on a tasks/get result', () => {
      const { createdAt: _createdAt, ...undated } = task;
      expect(schema.check(response({ resultType: 'complete', ...undated }), 'tasks/get')).toEqual(
        expect.arrayContaining([expect.stringMatching(/^ext-tasks:GetTaskResult .*'createdAt'/)]),
      );
      expect(schema.check(response({ resultType: 'task', ...task }), 'tasks/get')).toEqual([
        'resultType "task" answers tasks/get, which the tasks extension does not let create a task',
      ]);
    });
  });

  describe('tasks/update and tasks/cancel as their empty acknowledgements', () => {
    it('accepts { resultType: "complete" }', () => {
      expect(schema.check(response({ resultType: 'complete' }), 'tasks/update')).toEqual([]);
      expect(schema.check(response({ resultType: 'complete' }), 'tasks/cancel')).toEqual([]);
    });

    it('refuses an acknowledgement without resultType or with "task"', () => {
      expect(schema.check(response({}), 'tasks/update')).not.toEqual([]);
      expect(schema.check(response({ resultType: 'task', ...task }), 'tasks/cancel')).toEqual([
        'resultType "task" answers tasks/cancel, which the tasks extension does not let create a task',
      ]);
    });
  });

  describe('notifications/tasks as TaskStatusNotification', () => {
    const notification = (params: Record<string, unknown>) => ({
      jsonrpc: '2.0',
      method: 'notifications/tasks',
      params,
    });

    it('accepts the full DetailedTask', () => {
      expect(schema.check(notification(task))).toEqual([]);
      expect(schema.check(notification({ ...task, status: 'input_required', inputRequests: { a: elicit } }))).toEqual(
        [],
      );
    });

    it('refuses a task without its id or with legacy field names', () => {
      const { taskId: _taskId, ...anonymous } = task;
      const { ttlMs: _ttlMs, ...legacy } = task;
      expect(schema.check(notification(anonymous))).toEqual(
        expect.arrayContaining([expect.stringMatching(/^ext-tasks:TaskStatusNotification/)]),
      );
      expect(schema.check(notification({ ...legacy, ttl: 60_000 }))).not.toEqual([]);
    });

    it('still refuses the legacy notification name, which 2026-07-28 does not define', () => {
      expect(schema.check({ jsonrpc: '2.0', method: 'notifications/tasks/status', params: task })).not.toEqual([]);
    });
  });
});

describe('WireSchema, 2025-11-25 experimental tasks', () => {
  const schema = WireSchema.for('2025-11-25');
  const task = { taskId: 'a1b2', status: 'working', ...times, ttl: 60_000, pollInterval: 1000 };
  const related = { 'io.modelcontextprotocol/related-task': { taskId: 'a1b2' } };

  describe('task-augmented tools/call as CreateTaskResult', () => {
    it('accepts the task wrapped in a task member, with a ttl or a null one', () => {
      expect(schema.check(response({ task }), 'tools/call')).toEqual([]);
      expect(schema.check(response({ task: { ...task, ttl: null } }), 'tools/call')).toEqual([]);
    });

    it('refuses a result without the task member (the flat modern shape)', () => {
      expect(schema.check(response({ resultType: 'task', ...task }), 'tools/call')).toEqual([
        expect.stringMatching(/^CallToolResult .*'content'/),
      ]);
    });

    it('refuses the modern field names inside the task', () => {
      const { ttl: _ttl, ...rest } = task;
      expect(schema.check(response({ task: { ...rest, ttlMs: 60_000 } }), 'tools/call')).toEqual([
        expect.stringMatching(/^CreateTaskResult\/task .*'ttl'/),
      ]);
    });
  });

  it('checks tasks/get and tasks/cancel as a flat Task', () => {
    expect(schema.check(response(task), 'tasks/get')).toEqual([]);
    expect(schema.check(response({ ...task, status: 'cancelled' }), 'tasks/cancel')).toEqual([]);
    const { ttl: _ttl, ...timeless } = task;
    expect(schema.check(response(timeless), 'tasks/get')).toEqual(
      expect.arrayContaining([expect.stringMatching(/^GetTaskResult .*'ttl'/)]),
    );
    expect(schema.check(response({ ...task, status: 'stopped' }), 'tasks/cancel')).not.toEqual([]);
  });

  it('checks tasks/result as the payload of the tools/call it stands for', () => {
    const payload = { content: [{ type: 'text', text: 'done' }], _meta: related };
    expect(schema.check(response(payload), 'tasks/result')).toEqual([]);
    expect(schema.check(response({ _meta: related }), 'tasks/result')).toEqual([
      expect.stringMatching(/^CallToolResult .*'content'/),
    ]);
  });

  it('checks tasks/list as ListTasksResult', () => {
    expect(schema.check(response({ tasks: [task], nextCursor: 'page-2' }), 'tasks/list')).toEqual([]);
    expect(schema.check(response({ tasks: [] }), 'tasks/list')).toEqual([]);
    expect(schema.check(response({}), 'tasks/list')).toEqual([expect.stringMatching(/^ListTasksResult .*'tasks'/)]);
    expect(schema.check(response({ tasks: [{ ...task, taskId: 3 }] }), 'tasks/list')).not.toEqual([]);
  });

  it('checks notifications/tasks/status as TaskStatusNotification', () => {
    const notification = (params: Record<string, unknown>) => ({
      jsonrpc: '2.0',
      method: 'notifications/tasks/status',
      params,
    });
    expect(schema.check(notification(task))).toEqual([]);
    const { taskId: _taskId, ...anonymous } = task;
    expect(schema.check(notification(anonymous))).toEqual([
      expect.stringMatching(/^TaskStatusNotification\/params .*'taskId'/),
    ]);
  });

  it('leaves revisions without tasks as they were', () => {
    const older = WireSchema.for('2025-06-18');
    expect(older.check(response({ task }), 'tools/call')).toEqual([
      expect.stringMatching(/^CallToolResult .*'content'/),
    ]);
    expect(older.check(response(task), 'tasks/get')).toEqual([]);
  });
});
