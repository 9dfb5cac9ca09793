import { ErrorCode, isJsonObject, sanitizeText } from '@conduit-mcp/core';

// The handler decorator that declares each client capability a server may require.
const DECLARED_BY: Record<string, string> = {
  sampling: '@OnSampling()',
  elicitation: '@OnElicitation()',
  roots: '@OnRoots()',
};

/**
 * The message of an `rpc` McpClientError: the server's (sanitized), and, where the code says what to do about it, that
 * too — a missing client capability (-32021) names the handler decorator that declares it.
 */
export function rpcErrorMessage(code: number, message: string, data: unknown): string {
  const text = sanitizeText(message, 512);
  if (code !== ErrorCode.MissingRequiredClientCapability) return text;
  const required = isJsonObject(data) && isJsonObject(data.requiredCapabilities) ? data.requiredCapabilities : {};
  const names = Object.keys(required).map((name) => sanitizeText(name, 64));
  if (names.length === 0) return text;
  const how = names.map((name) => {
    if (name === 'elicitation') {
      const modes = isJsonObject(required.elicitation) ? Object.keys(required.elicitation) : [];
      const decorator = modes.length
        ? `@OnElicitation({ modes: [${modes.map((mode) => `'${sanitizeText(mode, 16)}'`).join(', ')}] })`
        : DECLARED_BY.elicitation;
      return `elicitation${modes.length ? ` (${modes.join(', ')})` : ''} (a handler with ${decorator})`;
    }
    return DECLARED_BY[name] ? `${name} (a handler with ${DECLARED_BY[name]})` : name;
  });
  return `${text}: this client must declare ${how.join(', ')} for the server to go on`;
}
