import { Injectable, Module } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { InjectMcpServer, McpModule, McpServer, McpTool } from '@conduit-mcp/server';

@Injectable()
class Tools {
  @McpTool({ name: 'hello' })
  hello() {
    return 'hello';
  }
}

// A feature module that does not import McpModule: it injects the server the root module configured.
@Injectable()
class Announcer {
  constructor(
    readonly server: McpServer,
    @InjectMcpServer('root') readonly named: McpServer,
  ) {}
}

@Module({ providers: [Announcer], exports: [Announcer] })
class FeatureModule {}

describe('injecting McpServer', () => {
  it('works in a feature module that does not import McpModule', async () => {
    @Module({
      imports: [McpModule.forRoot({ name: 'root', version: '1', http: false }), FeatureModule],
      providers: [Tools],
    })
    class AppModule {}
    const moduleRef = await Test.createTestingModule({ imports: [AppModule] }).compile();
    const app = await moduleRef.init();
    try {
      const announcer = app.get(Announcer);
      expect(announcer.server).toBeInstanceOf(McpServer);
      expect(announcer.server.name).toBe('root');
      expect(announcer.named).toBe(announcer.server);
      expect(announcer.server.setToolEnabled('hello', false)).toBe(true);
    } finally {
      await app.close();
    }
  });

  it('is scoped to the importing module with isGlobal: false', async () => {
    @Module({
      imports: [McpModule.forRoot({ name: 'root', version: '1', http: false, isGlobal: false }), FeatureModule],
      providers: [Tools],
    })
    class AppModule {}
    await expect(Test.createTestingModule({ imports: [AppModule] }).compile()).rejects.toThrow(/McpServer/);
  });
});
