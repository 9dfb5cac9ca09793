import { Injectable, Module } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { McpModule, McpPrompt, McpResource, McpServer, McpTool } from '@conduit-mcp/server';

@Injectable()
class Things {
  @McpTool({ name: 'alpha', description: 'First' })
  alpha() {
    return 'a';
  }

  @McpTool({ name: 'beta' })
  beta() {
    return 'b';
  }

  @McpResource({ uri: 'memo://1', name: 'memo' })
  memo() {
    return 'memo';
  }

  @McpResource({ uri: 'memo://{id}', name: 'memos' })
  memos() {
    return 'memo';
  }

  @McpPrompt({ name: 'ask' })
  ask() {
    return 'ask';
  }
}

@Module({ imports: [McpModule.forRoot({ name: 'facade', version: '1', http: false })], providers: [Things] })
class FacadeModule {}

describe('McpServer, the public facade', () => {
  it('exposes only what users need: notify, enable/disable, catalog, connect, endSessionsOf', () => {
    const members = Object.getOwnPropertyNames(McpServer.prototype).filter((name) => name !== 'constructor');
    expect(members.sort()).toEqual(
      [
        'catalog',
        'connect',
        'endSessionsOf',
        'name',
        'notifyResourceUpdated',
        'setPromptEnabled',
        'setResourceEnabled',
        'setToolEnabled',
      ].sort(),
    );
  });

  it("catalog() lists what the server serves, with each entry's state, as a read-only copy", async () => {
    const moduleRef = await Test.createTestingModule({ imports: [FacadeModule] }).compile();
    await moduleRef.init();
    try {
      const server = moduleRef.get(McpServer);
      expect(server.setToolEnabled('beta', false)).toBe(true);
      const catalog = server.catalog();
      expect(catalog.tools.map((t) => [t.definition.name, t.enabled, t.source])).toEqual([
        ['alpha', true, 'Things.alpha'],
        ['beta', false, 'Things.beta'],
      ]);
      expect(catalog.resources.map((r) => r.definition.uri)).toEqual(['memo://1']);
      expect(catalog.resourceTemplates.map((r) => r.definition.uriTemplate)).toEqual(['memo://{id}']);
      expect(catalog.prompts.map((p) => p.definition.name)).toEqual(['ask']);
      expect(() => {
        (catalog.tools[0].definition as { description?: string }).description = 'changed';
      }).toThrow(TypeError);
      expect(server.catalog().tools[0].definition.description).toBe('First');
    } finally {
      await moduleRef.close();
    }
  });
});
