import type { IncomingMessage } from 'node:http';
import { HeaderVerdicts } from './header-verdicts';

/** The path of a request URL, without its query. */
export function requestPath(req: IncomingMessage): string {
  const url = req.url ?? '/';
  const query = url.indexOf('?');
  return query === -1 ? url : url.slice(0, query);
}

/** A request header as one string; undefined when absent. */
export function headerValue(req: IncomingMessage, name: string): string | undefined {
  const value = req.headers[name.toLowerCase()];
  return Array.isArray(value) ? value.join(', ') : value;
}

/** Whether the request's `Accept` header admits `mediaType` (exactly, as `type/*` or `*\/*`, with q > 0). */
export function accepts(req: IncomingMessage, mediaType: string): boolean {
  const accept = headerValue(req, 'accept');
  if (!accept) return false;
  let verdicts = acceptVerdicts.get(mediaType);
  if (!verdicts) acceptVerdicts.set(mediaType, (verdicts = new HeaderVerdicts((value) => admits(value, mediaType))));
  return verdicts.of(accept);
}

// Verdicts per media type asked about (a handful, fixed by the code).
const acceptVerdicts = new Map<string, HeaderVerdicts<boolean>>();

function admits(accept: string, mediaType: string): boolean {
  const wildcard = `${mediaType.split('/')[0]}/*`;
  return accept.split(',').some((part) => {
    const [range, ...params] = part.split(';').map((item) => item.trim().toLowerCase());
    if (range !== mediaType && range !== wildcard && range !== '*/*') return false;
    const q = params.find((param) => param.startsWith('q='));
    return q === undefined || Number(q.slice(2)) > 0;
  });
}

/** Whether the request body is declared as JSON (`application/json`, parameters allowed). */
export function isJsonContentType(req: IncomingMessage): boolean {
  const type = headerValue(req, 'content-type');
  return type !== undefined && type.split(';', 1)[0].trim().toLowerCase() === 'application/json';
}
