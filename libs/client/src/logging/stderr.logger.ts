import { ConsoleLogger, LogLevel } from '@nestjs/common';

/**
 * A ConsoleLogger that writes every level to stderr, for command-line clients whose stdout carries their output
 * (the server library has its twin for stdio servers; the two libraries do not import each other).
 */
export class StderrLogger extends ConsoleLogger {
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
