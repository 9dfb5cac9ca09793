/**
 * The one file of the server that imports Nest's internals by deep path. Everything the handler pipeline needs from
 * `@nestjs/core` beyond its public index comes through here, so a Nest upgrade that moves them breaks one file, and
 * the parity spec (invocation/handler-parity.spec.ts) shows whether the pipeline still behaves as stock Nest.
 */
export { ExecutionContextHost } from '@nestjs/core/helpers/execution-context-host';
export { ParamsFactory } from '@nestjs/core/helpers/external-context-creator';
export { InterceptorsConsumer } from '@nestjs/core/interceptors/interceptors-consumer';
export { ContextId, InstanceWrapper } from '@nestjs/core/injector/instance-wrapper';
export { GUARDS_METADATA } from '@nestjs/common/constants';
