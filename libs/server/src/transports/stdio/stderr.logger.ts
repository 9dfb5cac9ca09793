import { ConsoleLogger, ConsoleLoggerOptions, LogLevel } from '@nestjs/common';

/**
 * A ConsoleLogger that writes every level to stderr, so stdout carries nothing but protocol. Coloured only when stderr
 * is a terminal (and `NO_COLOR` is not set): Nest's own default colours a pipe or a file too, which an MCP client
 * collecting the server's stderr then shows as escape codes.
 */
export class StderrLogger extends ConsoleLogger {
  constructor(options: ConsoleLoggerOptions = {}) {
    super({ ...options, colors: options.colors ?? (process.stderr.isTTY === true && !process.env.NO_COLOR) });
  }

  protected printMessages(
    messages: unknown[],
    context?: string,
    logLevel?: LogLevel,
    _stream?: 'stdout' | 'stderr',
    errorStack?: unknown,
  ): void {
    super.printMessages(messages, context, logLevel, 'stderr', errorStack);
  }
}
