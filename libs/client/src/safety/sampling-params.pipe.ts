import { ArgumentMetadata, Inject, Injectable, PipeTransform } from '@nestjs/common';
import { CreateMessageRequestParams } from '@conduit-mcp/core';
import { McpClientModuleOptions } from '../interfaces/mcp-client-options.interface';
import { MCP_CLIENT_OPTIONS } from '../mcp-client.module-definition';
import { SamplingOptions, normalizeSamplingRequest, samplingOptions } from './sampling.check';

/**
 * Hands `@OnSampling` a copy of the request with `maxTokens` clamped to `sampling.maxTokens` (default 4096) and
 * `includeContext` coerced to `none` unless `sampling.context` is true. Runs on the handler's params only.
 */
@Injectable()
export class SamplingParamsPipe implements PipeTransform {
  constructor(@Inject(MCP_CLIENT_OPTIONS) protected readonly options: McpClientModuleOptions) {}

  transform(value: unknown, metadata: ArgumentMetadata): unknown {
    if (metadata.data !== 'params') return value;
    return normalizeSamplingRequest(value as CreateMessageRequestParams, this.getOptions());
  }

  protected getOptions(): Pick<SamplingOptions, 'maxTokens' | 'context'> {
    return samplingOptions(this.options.sampling);
  }
}
