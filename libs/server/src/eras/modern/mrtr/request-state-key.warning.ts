import { Inject, Injectable, Logger, OnModuleInit, Optional } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import { McpModuleOptions } from '../../../interfaces/mcp-module-options.interface';
import { MCP_MODULE_OPTIONS } from '../../../mcp.module-definition';
import { servesEra } from '../../../server-info';

let warned = false;

/**
 * Warns, once per process, that `requestState` is sealed with a random per-process key, when that can break
 * retries: the modern era is served over HTTP, where several instances may serve one endpoint. A stdio server is one
 * process talking to one client, so the warning would only be noise on its stderr.
 */
@Injectable()
export class RequestStateKeyWarning implements OnModuleInit {
  constructor(
    @Inject(MCP_MODULE_OPTIONS) private readonly options: McpModuleOptions,
    @Optional() private readonly adapterHost?: HttpAdapterHost,
  ) {}

  onModuleInit(): void {
    const { options } = this;
    if (warned || options.requestState?.secret !== undefined || !servesEra(options, 'modern')) return;
    if (options.http === false || !this.adapterHost?.httpAdapter) return;
    warned = true;
    new Logger('McpRequestState').warn(
      'requestState is sealed with a random per-process key: set requestState.secret when several instances serve one endpoint',
    );
  }
}
