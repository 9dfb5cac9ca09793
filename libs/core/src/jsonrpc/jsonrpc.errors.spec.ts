import { ErrorCode, McpError, errorResponse, httpHintOf, invalidParams } from './jsonrpc.errors';
import { serializeMessage } from './jsonrpc.serializer';

describe('McpError', () => {
  const hint = { status: 403, headers: { 'WWW-Authenticate': 'Bearer error="insufficient_scope"' } };

  it('takes an HTTP hint as an option, or as a property set later', () => {
    expect(new McpError(ErrorCode.ServerError, 'Forbidden', undefined, { http: hint }).http).toBe(hint);
    const later = invalidParams('Bad');
    expect(later.http).toBeUndefined();
    later.http = hint;
    expect(later.http).toBe(hint);
  });

  it('never serializes the hint', () => {
    const error = new McpError(ErrorCode.ServerError, 'Forbidden', { scope: 'notes:write' }, { http: hint });
    expect(error.toJSON()).toEqual({ code: -32000, message: 'Forbidden', data: { scope: 'notes:write' } });
    const response = errorResponse(1, error);
    expect(JSON.parse(serializeMessage(response))).toEqual({
      jsonrpc: '2.0',
      id: 1,
      error: { code: -32000, message: 'Forbidden', data: { scope: 'notes:write' } },
    });
  });

  it('keeps the hint beside the error response it builds, for the HTTP transport', () => {
    const error = new McpError(ErrorCode.ServerError, 'Forbidden', undefined, { http: hint });
    expect(httpHintOf(errorResponse(1, error))).toBe(hint);
    expect(httpHintOf(errorResponse(null, error))).toBe(hint);
    expect(httpHintOf(errorResponse(1, invalidParams('Bad')))).toBeUndefined();
    expect(httpHintOf(errorResponse(1, { code: -32000, message: 'plain' }))).toBeUndefined();
    expect(httpHintOf({ jsonrpc: '2.0', id: 1, error: { code: -32000, message: 'copy' } })).toBeUndefined();
  });
});
