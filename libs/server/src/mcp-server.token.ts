import { Inject } from '@nestjs/common';

/** The injection token of the MCP server named `name` (`McpModule.forRoot({ name })`). */
export const getMcpServerToken = (name: string): string => `conduit-mcp:server:${name}`;

/** Injects the `McpServer` named `name`, for apps that run several. */
export const InjectMcpServer = (name: string): ParameterDecorator => Inject(getMcpServerToken(name));
