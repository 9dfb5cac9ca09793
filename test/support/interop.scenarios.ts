import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { EmptyResultSchema, McpError as SdkMcpError } from '@modelcontextprotocol/sdk/types.js';
import { AnsweringClient } from './sdk-client';
import { errorOf as errorOfAny, textOf } from './results';

/** Runs the interoperability scenarios every transport must pass against the demo server. */
export interface InteropTarget {
  /** A connected answering client; called once per test. */
  connect(): Promise<AnsweringClient>;
  /**
   * Whether the connection is a session (not in stateless mode): state the client sets (log level, subscriptions)
   * lasts across requests, and notifications outside a request reach the client.
   */
  sessions: boolean;
  /** Whether the server can ask the client questions (not in stateless mode). */
  serverRequests: boolean;
}

const errorOf = (promise: Promise<unknown>) => errorOfAny<SdkMcpError>(promise);

export function interopScenarios(target: InteropTarget): void {
  let peer: AnsweringClient;
  let client: Client;

  beforeEach(async () => {
    peer = await target.connect();
    client = peer.client;
  });

  afterEach(async () => {
    await client.close();
    expect(peer.recorder.problems()).toEqual([]);
  });

  it('negotiates the latest revision and advertises only what has handlers', () => {
    expect(peer.recorder.revision).toBe('2025-11-25');
    expect(client.getServerVersion()).toMatchObject({ name: 'conduit-demo', version: '0.1.0' });
    expect(client.getInstructions()).toEqual(expect.any(String));
    expect(client.getServerCapabilities()).toEqual({
      logging: {},
      tools: { listChanged: true },
      resources: { subscribe: true, listChanged: true },
      prompts: { listChanged: true },
      completions: {},
    });
  });

  it('answers ping', async () => {
    await expect(client.ping()).resolves.toEqual({});
  });

  it('lists tools with their schemas, leaving out the one whose guard refuses the caller', async () => {
    const { tools } = await client.listTools();
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
  });

  it('calls a tool with a DTO input and structured output', async () => {
    const result = await client.callTool({ name: 'forecast', arguments: { city: 'Oslo', days: 2 } });
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent).toMatchObject({ city: 'Oslo', units: 'metric', days: [{ day: 1 }, { day: 2 }] });
    expect(JSON.parse(textOf(result))).toEqual(result.structuredContent);
  });

  it('reports invalid tool input as a tool error, not a protocol error', async () => {
    const result = await client.callTool({ name: 'forecast', arguments: { city: 42, days: 9 } });
    expect(result.isError).toBe(true);
    expect(textOf(result)).toMatch(/city/);
    expect(textOf(result)).toMatch(/days/);
  });

  it('refuses an unknown tool with -32602 and a guarded tool with -32000', async () => {
    expect((await errorOf(client.callTool({ name: 'no_such_tool' }))).code).toBe(-32602);
    expect((await errorOf(client.callTool({ name: 'reset_notes' }))).code).toBe(-32000);
  });

  it('answers an unknown method with -32601', async () => {
    const error = await errorOf(client.request({ method: 'no/such/method', params: {} } as never, EmptyResultSchema));
    expect(error.code).toBe(-32601);
  });

  it('lists and reads resources and templates; an unknown resource is -32002', async () => {
    const { resources } = await client.listResources();
    expect(resources).toEqual([
      expect.objectContaining({ uri: 'notes://index', name: 'notes-index', mimeType: 'application/json' }),
    ]);
    const { resourceTemplates } = await client.listResourceTemplates();
    expect(resourceTemplates).toEqual([expect.objectContaining({ uriTemplate: 'notes://notes/{id}', name: 'note' })]);
    const index = await client.readResource({ uri: 'notes://index' });
    expect(JSON.parse((index.contents[0] as { text: string }).text)).toEqual(
      expect.arrayContaining([expect.objectContaining({ id: 'welcome' })]),
    );
    const note = await client.readResource({ uri: 'notes://notes/welcome' });
    expect(note.contents[0]).toMatchObject({
      uri: 'notes://notes/welcome',
      mimeType: 'text/markdown',
      text: expect.stringContaining('# Welcome'),
    });
    expect((await errorOf(client.readResource({ uri: 'notes://notes/missing' }))).code).toBe(-32002);
    expect((await errorOf(client.readResource({ uri: 'nowhere://x' }))).code).toBe(-32002);
  });

  it('gets prompts, refuses missing required arguments, and completes arguments', async () => {
    const { prompts } = await client.listPrompts();
    expect(prompts).toEqual([
      expect.objectContaining({
        name: 'trip_brief',
        arguments: expect.arrayContaining([expect.objectContaining({ name: 'city', required: true })]),
      }),
    ]);
    const prompt = await client.getPrompt({ name: 'trip_brief', arguments: { city: 'Oslo' } });
    expect(prompt.messages[0]).toMatchObject({
      role: 'user',
      content: { type: 'text', text: expect.stringContaining('Oslo') },
    });
    expect((await errorOf(client.getPrompt({ name: 'trip_brief', arguments: {} }))).code).toBe(-32602);
    const completion = await client.complete({
      ref: { type: 'ref/prompt', name: 'trip_brief' },
      argument: { name: 'city', value: 'Be' },
    });
    expect(completion.completion.values).toEqual(['Berlin', 'Bergen']);
    const ids = await client.complete({
      ref: { type: 'ref/resource', uri: 'notes://notes/{id}' },
      argument: { name: 'id', value: 'w' },
    });
    expect(ids.completion.values).toEqual(['welcome']);
  });

  it('reports progress on the request stream', async () => {
    const progress: number[] = [];
    const result = await client.callTool({ name: 'weather_report', arguments: { steps: 3 } }, undefined, {
      onprogress: (p) => progress.push(p.progress),
    });
    expect(textOf(result)).toBe('Report compiled in 3 steps.');
    // Every step is on the wire before the result. The SDK 1.x client hands notifications to callbacks a microtask
    // late, so one that shares a read with the response (likely over stdio) can miss the callback: the callback
    // sees the wire's progress in order, possibly without the last one.
    const onWire = peer.recorder
      .notifications('notifications/progress')
      .map((n) => (n.params as { progress: number }).progress);
    expect(onWire).toEqual([1, 2, 3]);
    expect([
      [1, 2],
      [1, 2, 3],
    ]).toContainEqual(progress);
  });

  if (target.sessions) {
    it('filters log messages by the level the client set', async () => {
      await client.setLoggingLevel('info');
      await client.callTool({ name: 'weather_report', arguments: { steps: 2 } });
      expect(peer.recorder.notifications('notifications/message')).toEqual([]);
      await client.setLoggingLevel('debug');
      await client.callTool({ name: 'weather_report', arguments: { steps: 2 } });
      expect(
        peer.recorder.notifications('notifications/message').map((n) => (n.params as { level: string }).level),
      ).toEqual(['debug', 'debug']);
    });
  }

  it('cancels a running tool: the handler is aborted and no response is sent', async () => {
    const controller = new AbortController();
    const call = client.callTool({ name: 'weather_report', arguments: { steps: 50 } }, undefined, {
      signal: controller.signal,
      onprogress: (p) => p.progress === 2 && controller.abort('enough'),
    });
    await expect(call).rejects.toThrow();
    // The session stays usable, and the cancelled request never got a response.
    await expect(client.ping()).resolves.toEqual({});
    const responses = peer.recorder.received.filter(
      (r) => 'result' in r.message && (r.message.result as { content?: unknown }).content,
    );
    expect(responses).toEqual([]);
  });

  if (!target.serverRequests) {
    it('refuses at once a tool that needs to ask the client, with a clear error', async () => {
      const error = await errorOf(client.callTool({ name: 'summarize_forecast', arguments: { city: 'Oslo' } }));
      expect(error.code).toBe(-32000);
      expect(error.message).toMatch(/sampling\/createMessage needs a session/);
    });
  }

  if (target.serverRequests) {
    it('asks the client to confirm through elicitation', async () => {
      const added = await client.callTool({ name: 'add_note', arguments: { title: 'Temp', body: 'x' } });
      const uri = (added.content as Array<{ uri: string }>)[0].uri;
      const id = uri.split('/').pop()!;
      peer.elicitAnswer = { action: 'decline' };
      expect(textOf(await client.callTool({ name: 'delete_note', arguments: { id } }))).toBe('Kept the note.');
      peer.elicitAnswer = { action: 'accept', content: { confirm: true } };
      expect(textOf(await client.callTool({ name: 'delete_note', arguments: { id } }))).toBe(
        'Deleted the note "Temp".',
      );
      expect(peer.elicitations).toEqual([
        expect.objectContaining({
          message: 'Delete the note "Temp"?',
          requestedSchema: expect.objectContaining({ type: 'object' }),
        }),
        expect.anything(),
      ]);
    });

    it("samples the client's model", async () => {
      const result = await client.callTool({ name: 'summarize_forecast', arguments: { city: 'Oslo' } });
      expect(textOf(result)).toBe('Mild and dry. (model: test-model)');
      expect(peer.samplings).toEqual([expect.objectContaining({ maxTokens: 200 })]);
    });
  }

  if (target.sessions) {
    it('notifies subscribers when a resource changes, and stops after unsubscribe', async () => {
      await client.subscribeResource({ uri: 'notes://index' });
      await client.callTool({ name: 'add_note', arguments: { title: 'Watched', body: 'x' } });
      await waitFor(() => peer.recorder.notifications('notifications/resources/updated').length === 1);
      expect(peer.recorder.notifications('notifications/resources/updated')[0].params).toEqual({
        uri: 'notes://index',
      });
      await client.unsubscribeResource({ uri: 'notes://index' });
      await client.callTool({ name: 'add_note', arguments: { title: 'Unwatched', body: 'x' } });
      await client.ping();
      expect(peer.recorder.notifications('notifications/resources/updated')).toHaveLength(1);
    });
  }
}

/** Polls a condition every 20 ms for up to 5 s. */
export async function waitFor(condition: () => boolean, timeoutMs = 5_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
