import { probeState } from './state.probe';

describe('probeState', () => {
  it('is undefined when no part reports its health (the in-memory defaults)', async () => {
    expect(await probeState({ sessionStore: {}, eventBus: {} })).toBeUndefined();
  });

  it('reports each part that has a health(), as it answers, and is up when all are', async () => {
    const state = await probeState({
      sessionStore: { health: async () => ({ up: true, status: 'ready', latencyMs: 0.4 }) },
      eventStore: {},
      eventBus: { health: async () => ({ up: true }) },
    });
    expect(state).toEqual({
      up: true,
      parts: { sessionStore: { up: true, status: 'ready', latencyMs: 0.4 }, eventBus: { up: true } },
    });
  });

  it('is down when one part is down, throws, rejects, answers nonsense or answers late', async () => {
    const cases = {
      down: { health: async () => ({ up: false, status: 'reconnecting' }) },
      throws: {
        health: (): Promise<{ up: boolean }> => {
          throw new Error('bug');
        },
      },
      rejects: { health: () => Promise.reject(new Error('connection refused')) },
      nonsense: { health: async () => ({ status: 'fine' }) as never },
      late: { health: () => new Promise<never>(() => undefined) },
    };
    for (const [name, part] of Object.entries(cases)) {
      const state = await probeState({ fine: { health: async () => ({ up: true }) }, [name]: part }, 20);
      expect(state?.up).toBe(false);
      expect(state?.parts.fine).toEqual({ up: true });
    }
    const late = await probeState({ late: cases.late }, 20);
    expect(late?.parts.late).toEqual({ up: false, error: 'no answer within 20 ms' });
    expect((await probeState({ rejects: cases.rejects }))?.parts.rejects).toEqual({
      up: false,
      error: 'connection refused',
    });
    expect((await probeState({ throws: cases.throws }))?.parts.throws).toEqual({ up: false, error: 'bug' });
    expect((await probeState({ nonsense: cases.nonsense }))?.parts.nonsense).toMatchObject({ up: false });
  });
});
