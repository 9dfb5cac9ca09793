'use strict';
// The official SDK 2.x over stdio, hand-wired as its docs show: one McpServer with an `echo` tool on a
// StdioServerTransport. The transport closes when stdin ends; we exit then.
const { McpServer } = require('@modelcontextprotocol/server');
const { StdioServerTransport } = require('@modelcontextprotocol/server/stdio');
const { z } = require('zod');

const server = new McpServer({ name: 'bench', version: '1' });
server.registerTool(
  'echo',
  { description: 'Echoes its text', inputSchema: z.object({ text: z.string() }) },
  async ({ text }) => ({
    content: [{ type: 'text', text }],
  }),
);
const transport = new StdioServerTransport();
transport.onclose = () => process.exit(0);
server.connect(transport).catch((error) => {
  console.error(error);
  process.exit(1);
});
