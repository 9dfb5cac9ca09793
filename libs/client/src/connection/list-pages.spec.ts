import { ListPages, SendPage } from './list-pages';

/** A server answering page `cursor` (undefined: the first) with what `pages` says. */
function pagesOf(pages: Record<string, Record<string, unknown>>): { send: SendPage; asked: unknown[] } {
  const asked: unknown[] = [];
  const send: SendPage = async (_method, params) => {
    asked.push(params.cursor);
    return pages[String(params.cursor ?? 'first')];
  };
  return { send, asked };
}

describe('ListPages', () => {
  it('follows nextCursor to the end, or takes one page with all: false', async () => {
    const { send, asked } = pagesOf({
      first: { tools: [{ name: 'a' }], nextCursor: 'p2' },
      p2: { tools: [{ name: 'b' }] },
    });
    const pages = new ListPages(send, {});
    expect(await pages.collect('tools/list', 'tools', {})).toEqual([{ name: 'a' }, { name: 'b' }]);
    expect(await pages.collect('tools/list', 'tools', { all: false })).toEqual([{ name: 'a' }]);
    expect(await pages.collect('tools/list', 'tools', { cursor: 'p2' })).toEqual([{ name: 'b' }]);
    expect(asked).toEqual([undefined, 'p2', undefined, 'p2']);
  });

  it('stops at a cursor it has seen (a cycle), and takes a page without the key as empty', async () => {
    const { send, asked } = pagesOf({
      first: { nextCursor: 'p2' },
      p2: { prompts: [{ name: 'a' }], nextCursor: 'p2' },
    });
    expect(await new ListPages(send, {}).collect('prompts/list', 'prompts', {})).toEqual([{ name: 'a' }]);
    expect(asked).toEqual([undefined, 'p2']);
  });

  it('refuses a page whose list is not an array, with kind protocol', async () => {
    const { send } = pagesOf({ first: { resources: { length: 1e9 } } });
    await expect(new ListPages(send, {}).collect('resources/list', 'resources', {})).rejects.toMatchObject({
      kind: 'protocol',
      message: 'resources/list answered with resources not an array',
    });
  });

  it('counts a long cursor in maxListBytes', async () => {
    const { send } = pagesOf({ first: { tools: [], nextCursor: 'c'.repeat(2_000) } });
    await expect(new ListPages(send, { maxListBytes: 1_000 }).collect('tools/list', 'tools', {})).rejects.toMatchObject(
      { kind: 'protocol', message: expect.stringContaining("past 1000 bytes (the client's maxListBytes)") },
    );
  });

  it('hands each page what is left of the deadline', async () => {
    const timeouts: Array<number | undefined> = [];
    const send: SendPage = async (_method, params, options) => {
      timeouts.push(options.timeout);
      await new Promise((resolve) => setTimeout(resolve, 30));
      return { tools: [], nextCursor: String(Number(params.cursor ?? 0) + 1) };
    };
    await expect(
      new ListPages(send, { requestTimeoutMs: 200, maxListPages: 1_000 }).collect('tools/list', 'tools', {}),
    ).rejects.toMatchObject({ kind: 'timeout' });
    expect(timeouts[0]).toBe(200);
    for (let i = 1; i < timeouts.length; i++) expect(timeouts[i]!).toBeLessThan(timeouts[i - 1]!);
  });
});
