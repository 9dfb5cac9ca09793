import { ProtocolError } from '@modelcontextprotocol/client';
import { waitFor } from './interop.scenarios';
import { ElicitAnswer, ModernPeer, ModernPeerOptions } from './modern-client';
import { errorOf as errorOfAny, textOf } from './results';

const SUBSCRIPTION_ID = 'io.modelcontextprotocol/subscriptionId';
const SERVER_INFO = 'io.modelcontextprotocol/serverInfo';
const LOG_LEVEL = 'io.modelcontextprotocol/logLevel';
const LEGACY_REVISIONS = ['2025-11-25', '2025-06-18', '2025-03-26', '2024-11-05'];

/** What the modern-era scenarios need from a transport. */
export interface ModernTarget {
  /** `http`: cancelling closes the request's stream; `stdio`: it sends `notifications/cancelled`. */
  transport: 'http' | 'stdio';
  /** A 2.x client connected to the demo server (pinned to 2026-07-28 unless told otherwise). */
  connect(options?: ModernPeerOptions): Promise<ModernPeer>;
  /** A 2.x client connected to the rounds fixture (`test/support/rounds-fixture.ts`). */
  connectRounds(options?: ModernPeerOptions): Promise<ModernPeer>;
  /** Resolves once the demo server saw the named tool's handler end as cancelled; only where it runs in-process. */
  handlerCancelled?(tool: string): Promise<void>;
  /** Resolves once the rounds fixture's `count_slowly` handler for this request saw `ctx.signal` abort. */
  handlerAborted(rounds: ModernPeer, requestId: unknown): Promise<void>;
}

type Message = Record<string, unknown>;

const errorOf = (promise: Promise<unknown>) => errorOfAny<ProtocolError>(promise);

function paramsOf(message: Message | undefined): Message {
  return (message?.params ?? {}) as Message;
}

function resultOf(message: Message | undefined): Message {
  return (message?.result ?? {}) as Message;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * The retry of an MRTR round: a new id, the original params, the answers to exactly the keys asked, and the
 * `requestState` echoed byte for byte (absent when the server sent none).
 */
function expectRetry(retry: Message, previous: Message, answered: Message): void {
  const asked = resultOf(previous);
  const params = paramsOf(retry);
  expect(retry.id).not.toEqual(previous.id);
  expect(Object.keys((params.inputResponses ?? {}) as Message).sort()).toEqual(
    Object.keys((asked.inputRequests ?? {}) as Message).sort(),
  );
  expect(params.inputResponses).toMatchObject(answered);
  if (asked.requestState === undefined) expect(params).not.toHaveProperty('requestState');
  else expect(params.requestState).toBe(asked.requestState);
}

/** Runs the modern-era (2026-07-28) scenarios every transport must pass with the official 2.x client. */
export function modernScenarios(target: ModernTarget): void {
  describe('with the official 2.x client', () => scenarios(target));
}

function scenarios(target: ModernTarget): void {
  let peers: ModernPeer[] = [];
  let peer: ModernPeer;

  const open = async (options?: ModernPeerOptions, rounds = false) => {
    const opened = await (rounds ? target.connectRounds(options) : target.connect(options));
    peers.push(opened);
    return opened;
  };

  beforeEach(async () => {
    peers = [];
    peer = await open();
  });

  afterEach(async () => {
    await Promise.all(peers.map((p) => p.close()));
    for (const p of peers) {
      expect(p.recorder.received.every((r) => r.revision === '2026-07-28')).toBe(true);
      expect(p.recorder.serverRequests()).toEqual([]);
      expect(p.recorder.problems()).toEqual([]);
    }
  });

  it('connects pinned to 2026-07-28 and discovers versions, capabilities, identity and instructions', async () => {
    const { client, recorder } = peer;
    expect(client.getProtocolEra()).toBe('modern');
    expect(client.getNegotiatedProtocolVersion()).toBe('2026-07-28');
    expect(client.getServerVersion()).toMatchObject({ name: 'conduit-demo', version: '0.1.0' });

    const discover = await client.discover();
    expect(discover.supportedVersions).toEqual(expect.arrayContaining(['2026-07-28', ...LEGACY_REVISIONS]));
    expect(discover.capabilities).toMatchObject({
      tools: expect.any(Object),
      resources: expect.objectContaining({ subscribe: true }),
      prompts: expect.any(Object),
      completions: {},
    });
    expect(discover.instructions).toEqual(expect.any(String));
    const [wire] = recorder.responsesTo('server/discover').slice(-1);
    expect(resultOf(wire)).toMatchObject({
      resultType: 'complete',
      ttlMs: expect.any(Number),
      cacheScope: expect.stringMatching(/^(public|private)$/),
      _meta: { [SERVER_INFO]: { name: 'conduit-demo', version: '0.1.0' } },
    });
    // The request carried the full per-request envelope.
    expect(paramsOf(recorder.requestsSent('server/discover').at(-1))._meta).toMatchObject({
      'io.modelcontextprotocol/protocolVersion': '2026-07-28',
      'io.modelcontextprotocol/clientCapabilities': expect.objectContaining({
        elicitation: expect.any(Object),
        sampling: {},
      }),
    });
  });

  it('is chosen by a client in auto negotiation', async () => {
    const auto = await open({ negotiation: 'auto' });
    expect(auto.client.getProtocolEra()).toBe('modern');
    expect(auto.client.getNegotiatedProtocolVersion()).toBe('2026-07-28');
    expect(auto.recorder.requestsSent('initialize')).toEqual([]);
    const result = await auto.client.callTool({ name: 'forecast', arguments: { city: 'Bergen', days: 1 } });
    expect(result.structuredContent).toMatchObject({ city: 'Bergen' });
  });

  it('lists tools with resultType and cache hints, leaving out the one whose guard refuses the caller', async () => {
    const { tools } = await peer.client.listTools();
    const names = tools.map((tool) => tool.name);
    expect(names).toEqual(
      expect.arrayContaining(['forecast', 'weather_report', 'summarize_forecast', 'add_note', 'delete_note']),
    );
    expect(names).not.toContain('reset_notes');
    const forecast = tools.find((tool) => tool.name === 'forecast')!;
    expect(forecast.inputSchema).toMatchObject({
      type: 'object',
      properties: { city: { type: 'string' } },
      required: ['city'],
    });
    expect(forecast.outputSchema).toMatchObject({ type: 'object', required: ['city', 'units', 'days'] });
    const [wire] = peer.recorder.responsesTo('tools/list');
    expect(resultOf(wire)).toMatchObject({
      resultType: 'complete',
      ttlMs: expect.any(Number),
      cacheScope: expect.stringMatching(/^(public|private)$/),
    });
    expect(Number.isInteger(resultOf(wire).ttlMs) && (resultOf(wire).ttlMs as number) >= 0).toBe(true);
  });

  it('lists and reads resources and prompts with cache hints; an unknown resource is -32602', async () => {
    const { client, recorder } = peer;
    const { resources } = await client.listResources();
    expect(resources).toEqual(
      expect.arrayContaining([expect.objectContaining({ uri: 'notes://index', name: 'notes-index' })]),
    );
    const { resourceTemplates } = await client.listResourceTemplates();
    expect(resourceTemplates).toEqual([expect.objectContaining({ uriTemplate: 'notes://notes/{id}', name: 'note' })]);
    const note = await client.readResource({ uri: 'notes://notes/welcome' });
    expect(note.contents[0]).toMatchObject({
      uri: 'notes://notes/welcome',
      mimeType: 'text/markdown',
      text: expect.stringContaining('# Welcome'),
    });
    const { prompts } = await client.listPrompts();
    expect(prompts).toEqual([expect.objectContaining({ name: 'trip_brief' })]);
    for (const method of ['resources/list', 'resources/templates/list', 'resources/read', 'prompts/list']) {
      const [wire] = recorder.responsesTo(method);
      expect({ method, ...resultOf(wire) }).toMatchObject({
        method,
        resultType: 'complete',
        ttlMs: expect.any(Number),
        cacheScope: expect.any(String),
      });
    }
    expect((await errorOf(client.readResource({ uri: 'notes://notes/missing' }))).code).toBe(-32602);
    expect((await errorOf(client.readResource({ uri: 'nowhere://x' }))).code).toBe(-32602);

    const prompt = await client.getPrompt({ name: 'trip_brief', arguments: { city: 'Oslo' } });
    expect(prompt.messages[0]).toMatchObject({
      role: 'user',
      content: { type: 'text', text: expect.stringContaining('Oslo') },
    });
    expect(resultOf(recorder.responsesTo('prompts/get')[0]).resultType).toBe('complete');
    expect((await errorOf(client.getPrompt({ name: 'trip_brief', arguments: {} }))).code).toBe(-32602);
    const completion = await client.complete({
      ref: { type: 'ref/prompt', name: 'trip_brief' },
      argument: { name: 'city', value: 'Be' },
    });
    expect(completion.completion.values).toEqual(['Berlin', 'Bergen']);
  });

  it('calls a tool with a DTO input and structured output; bad input is a tool error', async () => {
    const result = await peer.client.callTool({ name: 'forecast', arguments: { city: 'Oslo', days: 2 } });
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent).toMatchObject({ city: 'Oslo', units: 'metric', days: [{ day: 1 }, { day: 2 }] });
    expect(JSON.parse(textOf(result))).toEqual(result.structuredContent);
    expect(resultOf(peer.recorder.responsesTo('tools/call')[0]).resultType).toBe('complete');

    const bad = await peer.client.callTool({ name: 'forecast', arguments: { city: 42, days: 9 } });
    expect(bad.isError).toBe(true);
    expect(textOf(bad)).toMatch(/city/);
  });

  it('refuses an unknown tool with -32602 and a guarded tool with an error', async () => {
    expect((await errorOf(peer.client.callTool({ name: 'no_such_tool' }))).code).toBe(-32602);
    const guarded = await errorOf(peer.client.callTool({ name: 'reset_notes' }));
    expect(guarded).toBeInstanceOf(ProtocolError);
  });

  it("answers a sampling question through the client's sampling handler (MRTR), never with a server request", async () => {
    const { client, recorder } = peer;
    const result = await client.callTool({ name: 'summarize_forecast', arguments: { city: 'Oslo' } });
    expect(textOf(result)).toBe('Mild and dry. (model: test-model)');
    expect(peer.samplings).toEqual([{ key: 'summary', params: expect.objectContaining({ maxTokens: 200 }) }]);

    const calls = recorder.requestsSent('tools/call');
    const responses = recorder.responsesTo('tools/call');
    expect(calls).toHaveLength(2);
    expect(resultOf(responses[0])).toMatchObject({
      resultType: 'input_required',
      inputRequests: {
        summary: { method: 'sampling/createMessage', params: expect.objectContaining({ maxTokens: 200 }) },
      },
    });
    expect(paramsOf(calls[1])).toMatchObject({ name: 'summarize_forecast', arguments: { city: 'Oslo' } });
    expectRetry(calls[1], responses[0], {
      summary: expect.objectContaining({ model: 'test-model', role: 'assistant' }),
    });
    expect(resultOf(responses[1]).resultType).toBe('complete');
  });

  it('asks to confirm a deletion through the elicitation handler (MRTR): decline keeps, accept deletes', async () => {
    const { client, recorder } = peer;
    const added = await client.callTool({ name: 'add_note', arguments: { title: 'Temp', body: 'x' } });
    const uri = (added.content as Array<{ uri: string }>)[0].uri;
    const id = uri.split('/').pop()!;

    peer.elicitAnswer = { action: 'decline' };
    expect(textOf(await client.callTool({ name: 'delete_note', arguments: { id } }))).toBe('Kept the note.');
    expect((await client.readResource({ uri })).contents).toHaveLength(1);

    peer.elicitAnswer = { action: 'accept', content: { confirm: true } };
    expect(textOf(await client.callTool({ name: 'delete_note', arguments: { id } }))).toBe('Deleted the note "Temp".');
    expect((await errorOf(client.readResource({ uri }))).code).toBe(-32602);

    expect(peer.elicitations).toEqual([
      {
        key: 'confirm',
        params: expect.objectContaining({
          message: 'Delete the note "Temp"?',
          requestedSchema: expect.objectContaining({ type: 'object' }),
        }),
      },
      { key: 'confirm', params: expect.objectContaining({ message: 'Delete the note "Temp"?' }) },
    ]);
    const deletes = recorder.requestsSent('tools/call').filter((call) => paramsOf(call).name === 'delete_note');
    const answers = deletes.map((call) => recorder.responseTo(call.id)!);
    expect(deletes).toHaveLength(4);
    expect(resultOf(answers[0])).toMatchObject({
      resultType: 'input_required',
      inputRequests: { confirm: { method: 'elicitation/create' } },
    });
    expectRetry(deletes[1], answers[0], { confirm: { action: 'decline' } });
    expectRetry(deletes[3], answers[2], { confirm: { action: 'accept', content: { confirm: true } } });
  });

  it('asks again when a retry leaves out an answer, and refuses a malformed answer with -32602', async () => {
    const call = (params: Message) =>
      peer.client.request(
        { method: 'tools/call', params },
        { allowInputRequired: true },
      ) as Promise<unknown> as Promise<Message>;
    const remove = { name: 'delete_note', arguments: { id: 'welcome' } };
    const first = await call(remove);
    expect(first).toMatchObject({ resultType: 'input_required', inputRequests: { confirm: expect.any(Object) } });
    const state = first.requestState !== undefined ? { requestState: first.requestState } : {};
    const again = await call({ ...remove, inputResponses: { unrelated: { action: 'decline' } }, ...state });
    expect(again).toMatchObject({ resultType: 'input_required', inputRequests: { confirm: expect.any(Object) } });
    const malformed = await errorOf(call({ ...remove, inputResponses: { confirm: { action: 'maybe' } }, ...state }));
    expect(malformed.code).toBe(-32602);
    expect(peer.recorder.responsesTo('tools/call').at(-1)).toMatchObject({ error: { code: -32602 } });
    expect((await peer.client.readResource({ uri: 'notes://notes/welcome' })).contents).toHaveLength(1);
  });

  it('refuses an answer that breaks the requested schema with -32602, and the handler never acts on it', async () => {
    const call = (params: Message) =>
      peer.client.request(
        { method: 'tools/call', params },
        { allowInputRequired: true },
      ) as Promise<unknown> as Promise<Message>;
    const remove = { name: 'delete_note', arguments: { id: 'welcome' } };
    const first = await call(remove);
    const state = first.requestState !== undefined ? { requestState: first.requestState } : {};
    // With `confirm: true` the handler would delete the note, were the answer with an undeclared field let through.
    const content = { confirm: true, also: { delete: 'everything' } };
    const refused = await errorOf(
      call({ ...remove, inputResponses: { confirm: { action: 'accept', content } }, ...state }),
    );
    expect(refused.code).toBe(-32602);
    expect(refused.message).toMatch(
      /Invalid input response "confirm": elicitation content has undeclared field "also"/,
    );
    expect(peer.recorder.responsesTo('tools/call').at(-1)).toMatchObject({ error: { code: -32602 } });
    expect((await peer.client.readResource({ uri: 'notes://notes/welcome' })).contents).toHaveLength(1);
  });

  it('refuses input the client did not declare it can give with -32021, and asks nothing', async () => {
    const bare = await open({ capabilities: {} });
    const added = await bare.client.callTool({ name: 'add_note', arguments: { title: 'Kept', body: 'x' } });
    const uri = (added.content as Array<{ uri: string }>)[0].uri;
    const refused = await errorOf(
      bare.client.callTool({ name: 'delete_note', arguments: { id: uri.split('/').pop()! } }),
    );
    expect(refused.code).toBe(-32021);
    expect((refused.data as { requiredCapabilities?: object }).requiredCapabilities).toHaveProperty('elicitation');
    const sampling = await errorOf(bare.client.callTool({ name: 'summarize_forecast', arguments: { city: 'Oslo' } }));
    expect(sampling.code).toBe(-32021);
    expect((sampling.data as { requiredCapabilities?: object }).requiredCapabilities).toHaveProperty('sampling');
    expect((await bare.client.readResource({ uri })).contents).toHaveLength(1);
    const inputRequired = bare.recorder.received.filter(
      ({ message }) => resultOf(message).resultType === 'input_required',
    );
    expect(inputRequired).toEqual([]);
  });

  it('runs two elicitation rounds, keeping what the handler learnt in ctx.state through requestState', async () => {
    const rounds = await open(undefined, true);
    rounds.elicitAnswer = (question): ElicitAnswer =>
      question.key === 'city'
        ? { action: 'accept', content: { city: 'Lisbon' } }
        : { action: 'accept', content: { confirm: true } };
    const result = await rounds.client.callTool({ name: 'plan_trip', arguments: { traveller: 'Ada' } });

    expect(rounds.elicitations.map((question) => question.key)).toEqual(['city', 'confirm']);
    const ref = /\(ref (\w+)\)\?$/.exec(String(rounds.elicitations[1].params.message))?.[1];
    expect(rounds.elicitations[1].params.message).toBe(`Book Lisbon for Ada (ref ${ref})?`);
    expect(textOf(result)).toBe(`Booked Lisbon for Ada, ref ${ref}.`);

    const calls = rounds.recorder.requestsSent('tools/call');
    const responses = rounds.recorder.responsesTo('tools/call');
    expect(calls).toHaveLength(3);
    expect(new Set(calls.map((call) => call.id)).size).toBe(3);
    expect(Object.keys(resultOf(responses[0]).inputRequests as Message)).toEqual(['city']);
    expect(Object.keys(resultOf(responses[1]).inputRequests as Message)).toEqual(['confirm']);
    expect(resultOf(responses[1]).requestState).toEqual(expect.any(String));
    expectRetry(calls[1], responses[0], { city: { action: 'accept', content: { city: 'Lisbon' } } });
    // The third request answers only round 2: the city and the reference came back through requestState alone.
    expectRetry(calls[2], responses[1], { confirm: { action: 'accept', content: { confirm: true } } });
    expect(resultOf(responses[2]).resultType).toBe('complete');
  });

  it('refuses a tampered requestState, and one presented on another request', async () => {
    const rounds = await open(undefined, true);
    const call = (params: Message) =>
      rounds.client.request(
        { method: 'tools/call', params },
        { allowInputRequired: true },
      ) as Promise<unknown> as Promise<Message>;
    const plan = { name: 'plan_trip', arguments: { traveller: 'Eve' } };

    const first = await call(plan);
    expect(first.resultType).toBe('input_required');
    const second = await call({
      ...plan,
      inputResponses: { city: { action: 'accept', content: { city: 'Oslo' } } },
      ...(first.requestState !== undefined ? { requestState: first.requestState } : {}),
    });
    expect(second).toMatchObject({
      resultType: 'input_required',
      inputRequests: { confirm: expect.any(Object) },
      requestState: expect.any(String),
    });
    const state = second.requestState as string;
    const confirm = { confirm: { action: 'accept', content: { confirm: true } } };

    const middle = Math.floor(state.length / 2);
    const tampered = state.slice(0, middle) + (state[middle] === 'A' ? 'B' : 'A') + state.slice(middle + 1);
    const refused = await errorOf(call({ ...plan, inputResponses: confirm, requestState: tampered }));
    expect(refused).toBeInstanceOf(ProtocolError);
    expect([-32600, -32602]).toContain(refused.code);
    expect(rounds.recorder.responsesTo('tools/call').at(-1)).toMatchObject({ error: { code: refused.code } });

    const elsewhere = await errorOf(
      call({ name: 'plan_trip', arguments: { traveller: 'Mallory' }, inputResponses: confirm, requestState: state }),
    );
    expect(elsewhere).toBeInstanceOf(ProtocolError);
    expect(rounds.recorder.responsesTo('tools/call').at(-1)).toMatchObject({ error: { code: elsewhere.code } });

    const booked = await call({ ...plan, inputResponses: confirm, requestState: state });
    expect(textOf(booked)).toMatch(/^Booked Oslo for Eve, ref \w+\.$/);
    expect(resultOf(rounds.recorder.responsesTo('tools/call').at(-1)).resultType).toBe('complete');
  });

  it('reports progress on a modern request, and no log messages unless the request asks with a log level', async () => {
    const progress: number[] = [];
    const result = await peer.client.callTool(
      { name: 'weather_report', arguments: { steps: 3 } },
      { onprogress: (p) => progress.push(p.progress) },
    );
    expect(textOf(result)).toBe('Report compiled in 3 steps.');
    // On the wire: 1, 2, 3 for this request's token, all before its response.
    const call = peer.recorder.requestsSent('tools/call').at(-1)!;
    const token = (paramsOf(call)._meta as Message).progressToken;
    const related = peer.recorder.received
      .map((r) => r.message)
      .filter(
        (m) => m.id === call.id || (m.method === 'notifications/progress' && paramsOf(m).progressToken === token),
      );
    expect(related.map((m) => (m.method ? paramsOf(m).progress : 'response'))).toEqual([1, 2, 3, 'response']);
    // The 2.x client dispatches notifications a tick later than responses, so over stdio it may drop the last
    // progress that shares a read with the response: what it reports is a prefix.
    expect(progress.length).toBeGreaterThanOrEqual(target.transport === 'http' ? 3 : 2);
    expect(progress).toEqual([1, 2, 3].slice(0, progress.length));
    expect(peer.recorder.notifications('notifications/message')).toEqual([]);

    await peer.client.callTool({ name: 'weather_report', arguments: { steps: 2 }, _meta: { [LOG_LEVEL]: 'info' } });
    expect(peer.recorder.notifications('notifications/message')).toEqual([]);
    await peer.client.callTool({ name: 'weather_report', arguments: { steps: 2 }, _meta: { [LOG_LEVEL]: 'debug' } });
    const logged = peer.recorder.notifications('notifications/message');
    expect(logged.map((n) => paramsOf(n).level)).toEqual(['debug', 'debug']);
    // Request-scoped: on the stream of the request that asked (stdio: before its response).
    const lastCall = peer.recorder.requestsSent('tools/call').at(-1)!;
    const order = peer.recorder.received.map((r) => r.message);
    expect(order.indexOf(logged[1])).toBeLessThan(order.indexOf(peer.recorder.responseTo(lastCall.id)!));
  });

  it(`cancels a running tool (${target.transport === 'http' ? 'by closing its stream' : 'with notifications/cancelled'}): no response, the handler is aborted`, async () => {
    const { client, recorder } = peer;
    const controller = new AbortController();
    const call = client.callTool(
      { name: 'weather_report', arguments: { steps: 50 } },
      { signal: controller.signal, onprogress: (p) => p.progress === 2 && controller.abort('enough') },
    );
    await expect(call).rejects.toThrow();
    const request = recorder.requestsSent('tools/call').at(-1)!;
    const cancels = recorder.notificationsSent('notifications/cancelled');
    if (target.transport === 'stdio')
      expect(cancels).toEqual([
        expect.objectContaining({ params: expect.objectContaining({ requestId: request.id }) }),
      ]);
    else expect(cancels).toEqual([]);
    await target.handlerCancelled?.('weather_report');

    await sleep(400);
    expect(recorder.responseTo(request.id)).toBeUndefined();
    const token = (paramsOf(request)._meta as Message).progressToken;
    expect(
      recorder.notifications('notifications/progress').filter((n) => paramsOf(n).progressToken === token).length,
    ).toBeLessThanOrEqual(3);
    const after = await client.callTool({ name: 'forecast', arguments: { city: 'Oslo', days: 1 } });
    expect(after.isError).toBeFalsy();
  });

  it("aborts a cancelled call's handler: its ctx.signal fires", async () => {
    const rounds = await open(undefined, true);
    const controller = new AbortController();
    const call = rounds.client.callTool(
      { name: 'count_slowly', arguments: { to: 50 } },
      { signal: controller.signal, onprogress: (p) => p.progress === 2 && controller.abort('enough') },
    );
    await expect(call).rejects.toThrow();
    const request = rounds.recorder.requestsSent('tools/call').at(-1)!;
    await target.handlerAborted(rounds, request.id);
    await sleep(300);
    expect(rounds.recorder.responseTo(request.id)).toBeUndefined();
    expect(textOf(await rounds.client.callTool({ name: 'count_slowly', arguments: { to: 1 } }))).toBe('Counted to 1.');
  });

  it('asks for input from prompts/get (elicitation) and resources/read (roots) too', async () => {
    const rounds = await open(undefined, true);
    rounds.elicitAnswer = { action: 'accept', content: { name: 'Grace' } };
    const prompt = await rounds.client.getPrompt({ name: 'greeting' });
    expect(prompt.messages[0]).toMatchObject({ role: 'user', content: { type: 'text', text: 'Say hello to Grace.' } });
    expect(rounds.elicitations).toEqual([
      { key: 'name', params: expect.objectContaining({ message: 'Whom should I greet?' }) },
    ]);
    const gets = rounds.recorder.requestsSent('prompts/get');
    const gotten = rounds.recorder.responsesTo('prompts/get');
    expect(resultOf(gotten[0])).toMatchObject({
      resultType: 'input_required',
      inputRequests: { name: { method: 'elicitation/create' } },
    });
    expectRetry(gets[1], gotten[0], { name: { action: 'accept', content: { name: 'Grace' } } });

    const workspace = await rounds.client.readResource({ uri: 'rounds://workspace' });
    expect(JSON.parse((workspace.contents[0] as { text: string }).text)).toEqual(['file:///work']);
    expect(rounds.rootsRequests.map((request) => request.key)).toEqual(['roots']);
    const reads = rounds.recorder.requestsSent('resources/read');
    const read = rounds.recorder.responsesTo('resources/read');
    expect(resultOf(read[0])).toMatchObject({
      resultType: 'input_required',
      inputRequests: { roots: { method: 'roots/list' } },
    });
    expectRetry(reads[1], read[0], { roots: { roots: [{ uri: 'file:///work', name: 'work' }] } });
    // The final read is cacheable again; the interim one carried no hints (checked by the schema rules).
    expect(resultOf(read[1])).toMatchObject({
      resultType: 'complete',
      ttlMs: expect.any(Number),
      cacheScope: expect.any(String),
    });
  });

  it('delivers resource updates on a subscriptions/listen stream after add_note, and stops when it closes', async () => {
    const { client, recorder } = peer;
    const updates: Message[] = [];
    client.setNotificationHandler('notifications/resources/updated', (notification) => {
      updates.push(notification.params as Message);
    });
    const subscription = await client.listen({ resourceSubscriptions: ['notes://index'] });
    expect(subscription.honoredFilter).toEqual({ resourceSubscriptions: ['notes://index'] });
    // A second subscription, to another resource: add_note must not notify it.
    const other = await client.listen({ resourceSubscriptions: ['notes://notes/welcome'] });

    await client.callTool({ name: 'add_note', arguments: { title: 'Watched', body: 'x' } });
    await waitFor(() => updates.length === 1);
    expect(updates[0]).toMatchObject({ uri: 'notes://index' });
    const [listen, otherListen] = recorder.requestsSent('subscriptions/listen');
    expect(listen.id).not.toEqual(otherListen.id);
    const [ack] = recorder.notifications('notifications/subscriptions/acknowledged');
    expect(paramsOf(ack)).toMatchObject({
      _meta: { [SUBSCRIPTION_ID]: listen.id },
      notifications: { resourceSubscriptions: ['notes://index'] },
    });
    await sleep(200);
    const delivered = recorder.notifications('notifications/resources/updated');
    expect(delivered).toHaveLength(1);
    expect(paramsOf(delivered[0])).toMatchObject({ uri: 'notes://index', _meta: { [SUBSCRIPTION_ID]: listen.id } });
    await other.close();
    // Request-scoped notifications never travel on the listen stream, and nothing else was asked for.
    expect(recorder.notifications('notifications/tools/list_changed')).toEqual([]);

    await subscription.close();
    expect(await subscription.closed).toBe('local');
    await client.callTool({ name: 'add_note', arguments: { title: 'Unwatched', body: 'x' } });
    await sleep(300);
    expect(updates).toHaveLength(1);
    // Cancelled by the client: ended without a response (a graceful result is for the server's own teardown).
    expect(recorder.responseTo(listen.id)).toBeUndefined();
    expect(recorder.responseTo(otherListen.id)).toBeUndefined();
  });
}
