import { Injectable, Logger } from '@nestjs/common';
import { OnLog } from '@conduit-mcp/client';

/** Shows the server's log entries on stderr (with `--verbose`), already rate limited and sanitized by the library. */
@Injectable()
export class ServerLogHandler {
  private readonly logger = new Logger('Server');

  @OnLog()
  log(level: string, params: { logger?: string; data?: unknown }): void {
    this.logger.log(
      `${level}${params.logger ? ` ${params.logger}` : ''}: ${typeof params.data === 'string' ? params.data : JSON.stringify(params.data)}`,
    );
  }
}
