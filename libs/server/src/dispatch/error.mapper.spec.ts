import {
  BadRequestException,
  ConflictException,
  HttpException,
  InternalServerErrorException,
  NotFoundException,
  ServiceUnavailableException,
} from '@nestjs/common';
import { ErrorCode, McpError } from '@conduit-mcp/core';
import { httpErrorMessage, isClientHttpError, toMcpError, toWireError } from './error.mapper';

const wire = (error: unknown) => (toMcpError(error) as McpError).toJSON();

describe('toMcpError', () => {
  it('passes an McpError through', () => {
    const error = new McpError(ErrorCode.InvalidRequest, 'as it is');
    expect(toMcpError(error)).toBe(error);
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
