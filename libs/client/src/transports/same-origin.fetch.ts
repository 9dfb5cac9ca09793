import { describeNetworkFailure } from './network-failure';

const MAX_REDIRECTS = 5;
const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);

/**
 * `fetch` that follows redirects only within the origin of `url` (at most 5): a redirect to another origin, or one
 * that would turn a POST into a GET (301/302/303), rejects instead of being followed, so credentials in headers
 * never reach another host and a message is never silently dropped. A network failure rejects with a
 * `ServerUnreachableError` naming the URL and the cause; an aborted request with the signal's reason.
 */
export async function fetchSameOrigin(fetchFn: typeof fetch, url: URL, init: RequestInit): Promise<Response> {
  let target = url;
  for (let hops = 0; ; hops++) {
    let response: Response;
    try {
      response = await fetchFn(target, Object.assign({}, init, { redirect: 'manual' as const })); // not a spread: V8's slow path
    } catch (error) {
      throw init.signal?.aborted ? error : describeNetworkFailure(error, target);
    }
    if (!REDIRECT_STATUSES.has(response.status)) return response;
    void response.body?.cancel().catch(() => undefined);
    const next = redirectTarget(response, target);
    if (!next || next.origin !== url.origin) {
      throw new Error(
        `Refused HTTP ${response.status} redirect from ${url.origin} to ${next?.origin ?? 'an invalid location'}`,
      );
    }
    if (init.method !== 'GET' && response.status !== 307 && response.status !== 308) {
      throw new Error(`Refused HTTP ${response.status} redirect: it would turn the ${init.method} into a GET`);
    }
    if (hops === MAX_REDIRECTS) throw new Error(`Too many redirects (over ${MAX_REDIRECTS})`);
    target = next;
  }
}

function redirectTarget(response: Response, base: URL): URL | undefined {
  const location = response.headers.get('location');
  if (!location) return undefined;
  try {
    return new URL(location, base);
  } catch {
    return undefined;
  }
}
