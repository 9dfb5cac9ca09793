import { EnvelopeSource, ModernEnvelope } from './modern-envelope';

const source = (era: 'legacy' | 'modern' | undefined): EnvelopeSource => ({
  era: () => era,
  revision: () => '2026-07-28',
  capabilities: () => ({ elicitation: { form: {} } }),
  clientInfo: () => ({ name: 'c', version: '1' }),
  logLevel: () => 'warning',
});

describe('ModernEnvelope', () => {
  it('modern era: completes _meta with the revision, capabilities, client info, log level and progress token', () => {
    const envelope = new ModernEnvelope(source('modern'));
    expect(envelope.params({ name: 't', _meta: { mine: 1 } }, 7)).toEqual({
      name: 't',
      _meta: {
        mine: 1,
        progressToken: 7,
        'io.modelcontextprotocol/protocolVersion': '2026-07-28',
        'io.modelcontextprotocol/clientCapabilities': { elicitation: { form: {} } },
        'io.modelcontextprotocol/clientInfo': { name: 'c', version: '1' },
        'io.modelcontextprotocol/logLevel': 'warning',
      },
    });
  });

  it("modern era: a request's own capabilities (the tasks extension) are added to the client's, for it alone", () => {
    const envelope = new ModernEnvelope(source('modern'));
    const own = {
      'io.modelcontextprotocol/clientCapabilities': { extensions: { 'io.modelcontextprotocol/tasks': {} } },
    };
    expect(envelope.params({ taskId: 't', _meta: own }, undefined)._meta).toMatchObject({
      'io.modelcontextprotocol/clientCapabilities': {
        elicitation: { form: {} },
        extensions: { 'io.modelcontextprotocol/tasks': {} },
      },
    });
    const plain = envelope.params({ taskId: 't' }, undefined)._meta as Record<string, unknown>;
    expect(plain['io.modelcontextprotocol/clientCapabilities']).toEqual({ elicitation: { form: {} } });
    expect(envelope.headers('tasks/get', { taskId: 't-1' })).toEqual({ 'Mcp-Method': 'tasks/get', 'Mcp-Name': 't-1' });
    expect(envelope.headers('tasks/update', { taskId: 't-1' })).toMatchObject({ 'Mcp-Name': 't-1' });
    expect(envelope.headers('tasks/cancel', { taskId: 't-1' })).toMatchObject({ 'Mcp-Name': 't-1' });
    expect(envelope.headers('tasks/result', { taskId: 't-1' })).toEqual({ 'Mcp-Method': 'tasks/result' });
  });

  it('legacy era: only a progress token, and the params themselves when there is none', () => {
    const envelope = new ModernEnvelope(source('legacy'));
    const params = { name: 't' };
    expect(envelope.params(params, undefined)).toBe(params);
    expect(envelope.params(params, 3)).toEqual({ name: 't', _meta: { progressToken: 3 } });
    expect(envelope.headers('tools/call', params)).toBeUndefined();
  });

  it('mirrors the method, the name and the declared x-mcp-header arguments in headers', () => {
    const envelope = new ModernEnvelope(source('modern'));
    const tool = {
      name: 'forecast',
      inputSchema: { type: 'object', properties: { city: { type: 'string', 'x-mcp-header': 'City' } } },
    };
    expect(envelope.learnTool(tool)).toBe(true);
    expect(envelope.headers('tools/call', { name: 'forecast', arguments: { city: 'Oslo', days: 2 } })).toEqual({
      'Mcp-Method': 'tools/call',
      'Mcp-Name': 'forecast',
      'Mcp-Param-City': 'Oslo',
    });
    expect(envelope.headers('resources/read', { uri: 'notes://index' })).toEqual({
      'Mcp-Method': 'resources/read',
      'Mcp-Name': 'notes://index',
    });
  });

  it('refuses to learn a tool whose x-mcp-header declarations are invalid', () => {
    const envelope = new ModernEnvelope(source('modern'));
    const bad = {
      name: 'bad',
      inputSchema: { type: 'object', properties: { where: { type: 'object', 'x-mcp-header': 'Where' } } },
    };
    expect(envelope.learnTool(bad)).toBe(false);
  });
});

describe('ModernEnvelope: the tools it keeps', () => {
  const tool = (name: string) => ({
    name,
    inputSchema: { type: 'object', properties: { city: { type: 'string', 'x-mcp-header': 'City' } } },
  });

  it('keeps at most maxTools, forgetting the one learnt first', () => {
    const envelope = new ModernEnvelope(source('modern'), 2);
    for (const name of ['a', 'b', 'c']) envelope.learnTool(tool(name));
    expect(['a', 'b', 'c'].map((name) => envelope.knowsTool(name))).toEqual([false, true, true]);
    expect(envelope.headers('tools/call', { name: 'a', arguments: { city: 'Oslo' } })).not.toHaveProperty(
      'Mcp-Param-City',
    );
  });

  it('knows an unlisted tool as having no header once told, and a tool with invalid declarations likewise', () => {
    const envelope = new ModernEnvelope(source('modern'));
    expect(envelope.knowsTool('ghost')).toBe(false);
    envelope.assumeNoHeaders('ghost');
    expect(envelope.knowsTool('ghost')).toBe(true);
    const bad = {
      name: 'bad',
      inputSchema: { type: 'object', properties: { w: { type: 'object', 'x-mcp-header': 'W' } } },
    };
    expect(envelope.learnTool(bad)).toBe(false);
    expect(envelope.knowsTool('bad')).toBe(true);
    expect(envelope.headers('tools/call', { name: 'bad', arguments: { w: {} } })).toEqual({
      'Mcp-Method': 'tools/call',
      'Mcp-Name': 'bad',
    });
  });

  it('does not let assumeNoHeaders overwrite a declaration it learnt', () => {
    const envelope = new ModernEnvelope(source('modern'));
    envelope.learnTool(tool('forecast'));
    envelope.assumeNoHeaders('forecast');
    expect(envelope.headers('tools/call', { name: 'forecast', arguments: { city: 'Oslo' } })).toHaveProperty(
      'Mcp-Param-City',
      'Oslo',
    );
  });
});
