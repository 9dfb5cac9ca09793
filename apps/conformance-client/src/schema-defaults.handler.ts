import { Injectable, Logger } from '@nestjs/common';
import { ElicitRequestParams, ElicitResult, JsonSchemaObject } from '@conduit-mcp/core';
import { OnElicitation } from '@conduit-mcp/client';

/**
 * Answers every form elicitation the way a person who keeps the proposed values would: accept, with each field's
 * schema `default` (SEP-1034). A required field without a default cannot be answered that way, so it declines.
 */
@Injectable()
export class SchemaDefaultsHandler {
  private readonly logger = new Logger('ConformanceClient');

  @OnElicitation()
  elicit(params: ElicitRequestParams): ElicitResult {
    const schema: Partial<JsonSchemaObject> = 'requestedSchema' in params ? params.requestedSchema : {};
    const properties = (schema.properties ?? {}) as Record<string, { default?: unknown }>;
    const content = Object.fromEntries(
      Object.entries(properties)
        .filter(([, field]) => field.default !== undefined)
        .map(([name, field]) => [name, field.default]),
    ) as ElicitResult['content'];
    const missing = (schema.required ?? []).filter((name) => !(name in (content ?? {})));
    this.logger.log(
      `elicitation "${params.message}": ${missing.length ? `decline (no default for ${missing.join(', ')})` : `accept ${JSON.stringify(content)}`}`,
    );
    return missing.length ? { action: 'decline' } : { action: 'accept', content };
  }
}
