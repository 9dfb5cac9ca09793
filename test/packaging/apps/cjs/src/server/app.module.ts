import { Controller, Get, Module } from '@nestjs/common';
import { HealthCheck, HealthCheckService, TerminusModule } from '@nestjs/terminus';
import { McpHealthIndicator, McpModule } from '@conduit-mcp/server';
import { DenyGuard, PackagedTools } from './tools';

@Controller('health')
export class HealthController {
  constructor(
    private readonly health: HealthCheckService,
    private readonly mcp: McpHealthIndicator,
  ) {}

  @Get()
  @HealthCheck()
  check() {
    return this.health.check([() => this.mcp.isHealthy('mcp')]);
  }
}

@Module({
  imports: [McpModule.forRoot({ name: 'packaged', version: '1.0.0', http: { path: '/mcp' } }), TerminusModule],
  controllers: [HealthController],
  providers: [PackagedTools, DenyGuard],
})
export class AppModule {}
