import { Injectable, Logger } from '@nestjs/common';
import { OnLog } from '@conduit-mcp/client';

/** Shows the server's log entries on stderr (with `--verbose`), already rate limited and sanitized by the library. */
@Injectable()
export class ServerLogHandler {
  private readonly logger = new Logger('Server');

  @OnLog()
  log(entry: { level: string; logger?: string; data?: unknown }): void {
    this.logger.log(
      `${entry.level}${entry.logger ? ` ${entry.logger}` : ''}: ${typeof entry.data === 'string' ? entry.data : JSON.stringify(entry.data)}`,
    );
  }
}
