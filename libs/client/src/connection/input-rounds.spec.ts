import { InputRounds, InputRoundsHost } from './input-rounds';

const asking = { resultType: 'input_required', inputRequests: { q: { method: 'roots/list' } }, requestState: 's1' };

function host(results: Array<Record<string, unknown>>) {
  const sent: Array<Record<string, unknown>> = [];
  const asked: string[] = [];
  const rounds: InputRoundsHost = {
    send: async (_method, params) => (sent.push(params), results.shift() ?? { resultType: 'complete' }),
    capabilities: () => ({ roots: {} }),
    answer: async (method) => (asked.push(method), { roots: [] }),
  };
  return { rounds, sent, asked };
}

describe('InputRounds (modern MRTR calls)', () => {
  it('answers a round and sends the call again with the answers and the server’s requestState', async () => {
    const { rounds, sent, asked } = host([asking, { resultType: 'complete', content: [] }]);
    await expect(new InputRounds(rounds, 1_000, 10).run('tools/call', { name: 't' }, {})).resolves.toEqual({
      resultType: 'complete',
      content: [],
    });
    expect(asked).toEqual(['roots/list']);
    expect(sent).toEqual([{ name: 't' }, { name: 't', inputResponses: { q: { roots: [] } }, requestState: 's1' }]);
  });

  it('gives up after maxRounds rounds that still ask for input', async () => {
    const { rounds, sent } = host([asking, asking, asking, asking]);
    await expect(new InputRounds(rounds, 1_000, 2).run('tools/call', {}, {})).rejects.toMatchObject({
      kind: 'protocol',
      message: 'tools/call still needed input after 2 rounds',
    });
    expect(sent).toHaveLength(3);
  });

  it('fails the call as input_handler when a handler throws, naming the input', async () => {
    const { rounds } = host([asking]);
    rounds.answer = async () => {
      throw Object.assign(new Error('no roots for you'), { code: -32603 });
    };
    await expect(new InputRounds(rounds, 1_000, 10).run('tools/call', {}, {})).rejects.toMatchObject({
      kind: 'input_handler',
      code: -32603,
      message: 'The roots/list handler refused "q": no roots for you',
    });
  });
});
