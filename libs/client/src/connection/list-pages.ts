import { jsonSizeUpTo } from '@conduit-mcp/core';
import { McpClientError } from '../errors/mcp-client.error';
import { McpClientModuleOptions } from '../interfaces/mcp-client-options.interface';
import { DEFAULT_TIMEOUT_MS } from './call-table';
import { DEFAULT_LIST_LIMITS, ListLimits } from './list-limits';
import { McpCallOptions } from './mcp-call-options';
import { McpListParams } from './mcp-client.types';

/** Sends one page request (`request` of the client, so the era's envelope and rounds apply). */
export type SendPage = (
  method: string,
  params: Record<string, unknown>,
  options: McpCallOptions,
) => Promise<Record<string, unknown>>;

/**
 * The `tools/list`, `resources/list`, `resources/templates/list` and `prompts/list` loop: it follows `nextCursor`
 * until the server has no more, a cursor comes back (a cycle), or a limit is passed. Passing a limit fails the call
 * with kind `protocol` naming the limit rather than returning part of the list, which a caller would take for all of
 * it. The call's `timeout` and `maxTotalTimeout` bound the whole loop, not each page.
 */
export class ListPages {
  private readonly limits: ListLimits;
  private readonly defaultTimeoutMs: number;

  constructor(
    private readonly send: SendPage,
    options: Pick<McpClientModuleOptions, 'maxListPages' | 'maxListItems' | 'maxListBytes' | 'requestTimeoutMs'>,
  ) {
    this.limits = {
      maxPages: options.maxListPages ?? DEFAULT_LIST_LIMITS.maxPages,
      maxItems: options.maxListItems ?? DEFAULT_LIST_LIMITS.maxItems,
      maxBytes: options.maxListBytes ?? DEFAULT_LIST_LIMITS.maxBytes,
    };
    this.defaultTimeoutMs = options.requestTimeoutMs ?? DEFAULT_TIMEOUT_MS;
  }

  async collect<T>(method: string, key: string, params: McpListParams, options: McpCallOptions = {}): Promise<T[]> {
    const { maxPages, maxItems, maxBytes } = this.limits;
    const started = Date.now();
    const timeout = options.timeout ?? this.defaultTimeoutMs;
    const items: T[] = [];
    const seen = new Set<string>();
    let cursor = params.cursor;
    let bytes = 0;
    for (let pages = 1; ; pages++) {
      const elapsed = Date.now() - started;
      if (elapsed >= timeout || (options.maxTotalTimeout !== undefined && elapsed >= options.maxTotalTimeout))
        throw new McpClientError('timeout', `${method} timed out after its deadline, ${pages - 1} pages in`);
      const page = await this.send(method, cursor === undefined ? {} : { cursor }, {
        ...options,
        timeout: timeout - elapsed,
        maxTotalTimeout: options.maxTotalTimeout === undefined ? undefined : options.maxTotalTimeout - elapsed,
      });
      const list = page[key] ?? [];
      if (!Array.isArray(list)) throw new McpClientError('protocol', `${method} answered with ${key} not an array`);
      if (items.length + list.length > maxItems) throw overLimit(method, `${maxItems} items`, 'maxListItems');
      bytes += jsonSizeUpTo(list, maxBytes - bytes);
      if (bytes > maxBytes) throw overLimit(method, `${maxBytes} bytes`, 'maxListBytes');
      // One push per item: a spread of a long page would pass the engine's limit on arguments.
      for (const item of list) items.push(item as T);
      const next = page.nextCursor;
      if (params.all === false || typeof next !== 'string' || seen.has(next)) return items;
      if (pages >= maxPages) throw overLimit(method, `${maxPages} pages`, 'maxListPages');
      bytes += next.length;
      if (bytes > maxBytes) throw overLimit(method, `${maxBytes} bytes`, 'maxListBytes');
      seen.add(next);
      cursor = next;
    }
  }
}

function overLimit(method: string, limit: string, option: string): McpClientError {
  return new McpClientError(
    'protocol',
    `${method}: the server's list goes past ${limit} (the client's ${option}); ask for it page by page ({ cursor, all: false })`,
  );
}
