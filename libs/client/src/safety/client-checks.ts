import { Type } from '@nestjs/common';
import type { QuestionKind } from '../handlers/client-handlers';
import { McpClientCheckName } from './client-check.types';
import { ElicitationAnswerInterceptor } from './elicitation-answer.interceptor';
import { ElicitationContextInterceptor } from './elicitation-context.interceptor';
import { ElicitationRequestGuard } from './elicitation-request.guard';
import { InputBudgetGuard } from './input-budget.guard';
import { LocalRootsInterceptor } from './local-roots.interceptor';
import { SamplingParamsPipe } from './sampling-params.pipe';
import { SamplingRequestGuard } from './sampling-request.guard';
import { SamplingResultInterceptor } from './sampling-result.interceptor';

/** The built-in checks by name: the keys of the module's `checks` option. */
export const BUILT_IN_CHECKS = {
  inputBudget: InputBudgetGuard,
  samplingRequest: SamplingRequestGuard,
  samplingParams: SamplingParamsPipe,
  samplingResult: SamplingResultInterceptor,
  elicitationRequest: ElicitationRequestGuard,
  elicitationContext: ElicitationContextInterceptor,
  elicitationAnswer: ElicitationAnswerInterceptor,
  localRoots: LocalRootsInterceptor,
} as const satisfies Record<McpClientCheckName, Type<object>>;

/**
 * Which checks protect each kind of question, in the order they run: guards (the budget first, then the kind's request
 * checks), interceptors (the first listed is outermost: the answer check sees the handler's final answer), pipes.
 */
export const CHECKS_OF: Readonly<
  Record<
    QuestionKind,
    { guards: McpClientCheckName[]; interceptors: McpClientCheckName[]; pipes: McpClientCheckName[] }
  >
> = {
  sampling: { guards: ['inputBudget', 'samplingRequest'], interceptors: ['samplingResult'], pipes: ['samplingParams'] },
  elicitation: {
    guards: ['inputBudget', 'elicitationRequest'],
    interceptors: ['elicitationAnswer', 'elicitationContext'],
    pipes: [],
  },
  roots: { guards: ['inputBudget'], interceptors: ['localRoots'], pipes: [] },
};

/** What each check must implement, by its role. */
export const CHECK_ROLE: Readonly<Record<McpClientCheckName, 'canActivate' | 'intercept' | 'transform'>> = {
  inputBudget: 'canActivate',
  samplingRequest: 'canActivate',
  samplingParams: 'transform',
  samplingResult: 'intercept',
  elicitationRequest: 'canActivate',
  elicitationContext: 'intercept',
  elicitationAnswer: 'intercept',
  localRoots: 'intercept',
};
