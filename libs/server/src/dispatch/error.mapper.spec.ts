import {
  BadRequestException,
  ConflictException,
  ForbiddenException,
  HttpException,
  HttpStatus,
  InternalServerErrorException,
  NotFoundException,
  ServiceUnavailableException,
  UnauthorizedException,
} from '@nestjs/common';
import { ThrottlerException } from '@nestjs/throttler';
import { ErrorCode, McpError, errorResponse, httpHintOf } from '@conduit-mcp/core';
import { httpErrorMessage, isClientHttpError, toMcpError, toWireError } from './error.mapper';

const wire = (error: unknown) => (toMcpError(error) as McpError).toJSON();

describe('toMcpError', () => {
  it('passes an McpError through', () => {
    const error = new McpError(ErrorCode.InvalidRequest, 'as it is');
    expect(toMcpError(error)).toBe(error);
  });

  it('answers the McpError an HTTP exception was caused by (a guard refusing without being logged)', () => {
    const meant = new McpError(-32000, 'Insufficient scope', { requiredScopes: ['a'] }, { http: { status: 403 } });
    expect(toMcpError(new ForbiddenException('Insufficient scope', { cause: meant }))).toBe(meant);
    // Any other cause is the exception's own business: mapped by status as usual.
    expect(toMcpError(new ForbiddenException('no', { cause: new Error('x') }))).toMatchObject({ code: -32000 });
  });

  it('maps 4xx HTTP exceptions by status, with their message', () => {
    expect(wire(new BadRequestException(['a must be a string', 'b is required']))).toEqual({
      code: -32602,
      message: 'a must be a string; b is required',
    });
    expect(wire(new NotFoundException('no such note'))).toEqual({ code: -32602, message: 'no such note' });
    expect(wire(new ConflictException('already there'))).toEqual({
      code: -32000,
      message: 'already there',
      data: { status: 409 },
    });
  });

  it('asks HTTP transports for 401, 403 and 429, keeping the JSON-RPC error it maps to', () => {
    const cases: Array<[HttpException, number, string]> = [
      [new UnauthorizedException(), 401, 'Unauthorized'],
      [new ForbiddenException('Not your notebook'), 403, 'Not your notebook'],
      [new ForbiddenException(), 403, 'Forbidden'],
      [new ThrottlerException(), 429, 'ThrottlerException: Too Many Requests'],
    ];
    for (const [exception, status, message] of cases) {
      const mapped = toMcpError(exception) as McpError;
      expect(mapped.toJSON()).toEqual({ code: -32000, message, data: { status } });
      expect(mapped.http).toEqual({ status });
      // The hint rides beside the response the dispatcher builds, which is what the HTTP transports read.
      expect(httpHintOf(errorResponse(1, mapped))).toEqual({ status });
      expect(toWireError(exception).http).toEqual({ status });
    }
  });

  it('leaves the refusal of a guard that answered false a JSON-RPC error alone, as SDK clients expect', () => {
    // What Nest's guards consumer and the pipeline's fast path throw for `canActivate() === false`.
    const mapped = toMcpError(new ForbiddenException('Forbidden resource')) as McpError;
    expect(mapped.toJSON()).toEqual({ code: -32000, message: 'Forbidden resource', data: { status: 403 } });
    expect(mapped.http).toBeUndefined();
  });

  it('gives no HTTP hint to other 4xx statuses', () => {
    expect((toMcpError(new ConflictException('already there')) as McpError).http).toBeUndefined();
    expect((toMcpError(new HttpException('teapot', 418)) as McpError).http).toBeUndefined();
    expect((toMcpError(new BadRequestException('bad')) as McpError).http).toBeUndefined();
    expect((toMcpError(new NotFoundException('gone')) as McpError).http).toBeUndefined();
  });

  it('sends Retry-After with a 429 whose response names a wait, rounded up to whole seconds', () => {
    const limited = (retryAfter: unknown) =>
      toMcpError(
        new HttpException({ message: 'Too many requests', retryAfter }, HttpStatus.TOO_MANY_REQUESTS),
      ) as McpError;
    const mapped = limited(59.2);
    expect(mapped.toJSON()).toEqual({
      code: -32000,
      message: 'Too many requests',
      data: { status: 429, retryAfter: 60 },
    });
    expect(mapped.http).toEqual({ status: 429, headers: { 'Retry-After': '60' } });
    expect(limited(0).http).toEqual({ status: 429, headers: { 'Retry-After': '0' } });
  });

  it.each([
    ['a negative number', -1],
    ['NaN', Number.NaN],
    ['infinity', Number.POSITIVE_INFINITY],
    ['too large for plain digits', 1e300],
    ['a string', '60'],
    ['nothing', undefined],
  ])('sends no Retry-After when the wait is %s', (_, retryAfter) => {
    const mapped = toMcpError(new HttpException({ message: 'Slow down', retryAfter }, 429)) as McpError;
    expect(mapped.http).toEqual({ status: 429 });
    expect(mapped.data).toEqual({ status: 429 });
  });

  it('reads a wait only on a 429', () => {
    const mapped = toMcpError(new HttpException({ message: 'No', retryAfter: 30 }, 403)) as McpError;
    expect(mapped.http).toEqual({ status: 403 });
    expect(mapped.data).toEqual({ status: 403 });
  });

  it('hands a 404 message to the caller’s notFound', () => {
    const notFound = jest.fn((message: string) => new McpError(ErrorCode.ResourceNotFound, message, { uri: 'x://1' }));
    expect((toMcpError(new NotFoundException('gone'), notFound) as McpError).toJSON()).toEqual({
      code: -32002,
      message: 'gone',
      data: { uri: 'x://1' },
    });
    expect(notFound).toHaveBeenCalledWith('gone');
  });

  it('hides 5xx HTTP exceptions and anything else behind -32603', () => {
    expect(wire(new InternalServerErrorException('secret db path'))).toEqual({
      code: -32603,
      message: 'Internal error',
    });
    expect(wire(new ServiceUnavailableException('db host 10.0.0.7 down'))).toEqual({
      code: -32603,
      message: 'Internal error',
    });
    expect(wire(new Error('password'))).toEqual({ code: -32603, message: 'Internal error' });
    expect(toWireError('a string')).toMatchObject({ code: -32603, message: 'Internal error' });
  });
});

describe('isClientHttpError', () => {
  it('is true for 4xx HTTP exceptions only', () => {
    expect(isClientHttpError(new NotFoundException())).toBe(true);
    expect(isClientHttpError(new HttpException('teapot', 418))).toBe(true);
    expect(isClientHttpError(new InternalServerErrorException())).toBe(false);
    expect(isClientHttpError(new HttpException('moved', 301))).toBe(false);
    expect(isClientHttpError(new Error('x'))).toBe(false);
    expect(isClientHttpError(undefined)).toBe(false);
  });
});

describe('httpErrorMessage', () => {
  it('reads a string response, a message, a message array, or falls back to the exception’s message', () => {
    expect(httpErrorMessage(new HttpException('plain', 400))).toBe('plain');
    expect(httpErrorMessage(new NotFoundException('no such city'))).toBe('no such city');
    expect(httpErrorMessage(new BadRequestException(['one', 'two']))).toBe('one; two');
    expect(httpErrorMessage(new NotFoundException())).toBe('Not Found');
    expect(httpErrorMessage(new HttpException({ reason: 'x' }, 400))).toBe('Http Exception');
  });

  it('sanitizes and clamps', () => {
    expect(httpErrorMessage(new NotFoundException('a\u202eb\nc\u0000'))).toBe('abc');
    expect(httpErrorMessage(new NotFoundException('x'.repeat(600)))).toHaveLength(512);
    expect(httpErrorMessage(new NotFoundException('x'.repeat(600)), 20)).toBe(`${'x'.repeat(19)}…`);
  });
});
