import { Inject, Injectable, Logger } from '@nestjs/common';
import { CreateMessageResult } from '@conduit-mcp/core';
import { OnSampling } from '@conduit-mcp/client';

/** The text `--sample-with` gives. */
export const SAMPLE_WITH = Symbol('SAMPLE_WITH');

/**
 * Answers every sampling request with the text given on the command line, as the model "cli-fixed". Provided only
 * with `--sample-with`: without it the client declares no sampling capability, so servers are refused up front.
 */
@Injectable()
export class FixedSamplingHandler {
  private readonly logger = new Logger('Sampling');

  constructor(@Inject(SAMPLE_WITH) private readonly text: string) {}

  @OnSampling()
  sample(): CreateMessageResult {
    this.logger.log(`Answered a sampling request with the fixed text`);
    return { role: 'assistant', content: { type: 'text', text: this.text }, model: 'cli-fixed', stopReason: 'endTurn' };
  }
}
