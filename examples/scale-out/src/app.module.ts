import { Module } from '@nestjs/common';
import { McpModule } from '@conduit-mcp/server';
import { McpRedis, McpRedisModule } from '@conduit-mcp/redis';
import { NotesTools } from './notes.tools';

// Every instance (and the task worker) runs this module: the same server name, key prefix and requestState keys.
@Module({
  imports: [
    McpRedisModule.forRoot({ url: process.env.REDIS_URL, keyPrefix: 'notes:' }),
    McpModule.forRootAsync({
      inject: [McpRedis],
      useFactory: (redis: McpRedis) => ({
        name: 'notes',
        version: '1.0.0',
        // Comma-separated, newest first: rotate by deploying "new,old", later "new".
        requestState: { secret: (process.env.MCP_STATE_KEYS ?? '').split(',').filter(Boolean) },
        // Behind a public name, list it (the Host check against DNS rebinding accepts loopback names by default).
        http: { allowedHosts: process.env.MCP_ALLOWED_HOSTS?.split(',') },
        ...redis.state('notes'),
      }),
    }),
  ],
  providers: [NotesTools],
})
export class AppModule {}
