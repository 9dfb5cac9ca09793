import { Inject } from '@nestjs/common';

/** The injection token of the client of server `id`. */
export const getMcpClientToken = (id: string): string => `conduit-mcp:client:${id}`;

/** Injects the `McpClient` of the server with this id (`McpClientModule.forRoot({ servers: [{ id }] })`). */
export const InjectMcpClient = (id: string): ParameterDecorator => Inject(getMcpClientToken(id));
