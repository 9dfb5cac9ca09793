import { StoreUnavailableError, storeCall } from './store.call';

describe('storeCall', () => {
  it("passes a store's answer on, whether given at once or later", async () => {
    expect(await storeCall('session', () => 7)).toBe(7);
    expect(await storeCall('session', () => Promise.resolve('later'))).toBe('later');
  });

  it('turns a store that throws or rejects into a StoreUnavailableError naming the store and the cause', async () => {
    const cause = new Error('connection refused');
    const thrown = storeCall('event', () => {
      throw cause;
    });
    await expect(thrown).rejects.toBeInstanceOf(StoreUnavailableError);
    await expect(thrown).rejects.toMatchObject({ store: 'event', cause, message: expect.stringContaining('refused') });
    await expect(storeCall('session', () => Promise.reject(cause))).rejects.toMatchObject({ store: 'session', cause });
  });

  it('gives up on a store that does not answer in time', async () => {
    const started = Date.now();
    const silent = storeCall('session', () => new Promise<never>(() => undefined), 20);
    await expect(silent).rejects.toThrow(/session store is unavailable: no answer within 20 ms/);
    expect(Date.now() - started).toBeLessThan(1_000);
  });
});
