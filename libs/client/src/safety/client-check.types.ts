import { CanActivate, NestInterceptor, PipeTransform, Type } from '@nestjs/common';

/** The names of the built-in checks: the keys of the module's `checks` option. */
export type McpClientCheckName =
  | 'inputBudget'
  | 'samplingRequest'
  | 'samplingParams'
  | 'samplingResult'
  | 'elicitationRequest'
  | 'elicitationContext'
  | 'elicitationAnswer'
  | 'localRoots';

/** A check in place of a built-in one (best a subclass of it), or `false` to run without it. */
export type McpClientCheckChoice = Type<CanActivate | NestInterceptor | PipeTransform> | false;
