import { ConsoleLogger, LogLevel } from '@nestjs/common';

/** A ConsoleLogger that writes every level to stderr, so stdout carries nothing but protocol. */
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
