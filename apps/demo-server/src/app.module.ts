import { Module } from '@nestjs/common';
import { TerminusModule } from '@nestjs/terminus';
import { McpModule } from '@conduit-mcp/server';
import { DEMO_PROVIDERS } from './demo.providers';
import { HealthController } from './health/health.controller';

@Module({
  imports: [
    McpModule.forRoot({
      name: 'conduit-demo',
      title: 'Conduit demo server',
      version: '0.1.0',
      instructions: 'Weather forecasts, a notebook, and an admin tool. Ask before deleting notes.',
      http: { path: '/mcp' },
    }),
    TerminusModule,
  ],
  controllers: [HealthController],
  providers: DEMO_PROVIDERS,
})
export class AppModule {}
