export { McpTracing } from './mcp-tracing';
export { McpTracingModule } from './mcp-tracing.module';
export { MCP_TRACING_OPTIONS } from './mcp-tracing.module-definition';
export type { McpTracingOptions } from './mcp-tracing.options';
export { HANDLER_OUTCOME_ATTRIBUTE } from './mcp-span.attributes';
