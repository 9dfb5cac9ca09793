// The README's "Testing your tools", as a user runs it: no HTTP, the tools called in process.
import 'reflect-metadata';
import { strict as assert } from 'node:assert';
import { createMcpTestingModule } from '@conduit-mcp/server/testing';
import { AppModule } from './app.module';

async function main(): Promise<void> {
  const testing = await createMcpTestingModule({ imports: [AppModule] });
  try {
    const result = await testing.client.callTool('add', { a: 2, b: 3 });
    assert.deepEqual(result.structuredContent, { sum: 5 });
    const tools = await testing.client.listTools();
    assert.deepEqual(tools.tools.map((tool) => tool.name).sort(), ['add', 'confirm']);
  } finally {
    await testing.close();
  }
  console.log('TESTING OK');
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
