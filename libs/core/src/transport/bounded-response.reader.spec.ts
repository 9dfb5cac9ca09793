import { readBoundedResponse } from './bounded-response.reader';

const tooLarge = () => new Error('too large');

describe('readBoundedResponse', () => {
  it('reads a body up to the bound', async () => {
    expect((await readBoundedResponse(new Response('12345'), 5, tooLarge)).toString()).toBe('12345');
    expect((await readBoundedResponse(new Response(null), 5, tooLarge)).length).toBe(0);
  });

  it('refuses a body that says it is larger, before reading it', async () => {
    const response = new Response('1', { headers: { 'content-length': '999' } });
    await expect(readBoundedResponse(response, 5, tooLarge)).rejects.toThrow('too large');
  });

  it('refuses a body that grows past the bound as it arrives, and cancels the rest', async () => {
    let cancelled = false;
    const stream = new ReadableStream<Uint8Array>({
      pull: (controller) => controller.enqueue(new Uint8Array(4)),
      cancel: () => void (cancelled = true),
    });
    await expect(readBoundedResponse(new Response(stream), 10, tooLarge)).rejects.toThrow('too large');
    expect(cancelled).toBe(true);
  });
});
