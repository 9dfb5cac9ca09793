import { McpRegisteredClient, McpStoredTokens, McpTokenKey, McpTokenStore, MemoryTokenStore } from './mcp-token.store';

const AS_A = 'https://as-a.example.com';
const AS_B = 'https://as-b.example.com';
const MCP_1 = 'https://mcp.example.com/one';
const MCP_2 = 'https://mcp.example.com/two';
const LIMIT = 1000;

const tokens = (accessToken: string): McpStoredTokens => ({
  accessToken,
  tokenType: 'Bearer',
  expiresAt: 1_900_000_000_000,
  refreshToken: `${accessToken}-refresh`,
  scope: ['mcp:basic'],
});
const client = (clientId: string): McpRegisteredClient => ({ clientId, authMethod: 'none' });
const nth = (i: number): McpTokenKey => ({ issuer: AS_A, resource: `${MCP_1}/${i}` });

describe('MemoryTokenStore', () => {
  let store: MemoryTokenStore;
  beforeEach(() => (store = new MemoryTokenStore()));

  it('is an McpTokenStore that answers at once', () => {
    const asInterface: McpTokenStore = store;
    expect(asInterface.get({ issuer: AS_A, resource: MCP_1 })).toBeUndefined();
  });

  describe('tokens', () => {
    it('gives back what was set for a key, until it is deleted', () => {
      const key = { issuer: AS_A, resource: MCP_1 };
      store.set(key, tokens('t1'));
      expect(store.get({ issuer: AS_A, resource: MCP_1 })).toEqual(tokens('t1'));
      store.set(key, tokens('t2'));
      expect(store.get(key)).toEqual(tokens('t2'));
      store.delete({ ...key });
      expect(store.get(key)).toBeUndefined();
      expect(() => store.delete(key)).not.toThrow();
    });

    it('never gives a token to another resource or another issuer', () => {
      store.set({ issuer: AS_A, resource: MCP_1 }, tokens('a-1'));
      expect(store.get({ issuer: AS_A, resource: MCP_2 })).toBeUndefined();
      expect(store.get({ issuer: AS_B, resource: MCP_1 })).toBeUndefined();
      store.set({ issuer: AS_B, resource: MCP_1 }, tokens('b-1'));
      store.set({ issuer: AS_A, resource: MCP_2 }, tokens('a-2'));
      expect(store.get({ issuer: AS_A, resource: MCP_1 })?.accessToken).toBe('a-1');
      expect(store.get({ issuer: AS_B, resource: MCP_1 })?.accessToken).toBe('b-1');
      expect(store.get({ issuer: AS_A, resource: MCP_2 })?.accessToken).toBe('a-2');
      store.delete({ issuer: AS_B, resource: MCP_1 });
      expect(store.get({ issuer: AS_A, resource: MCP_1 })?.accessToken).toBe('a-1');
      expect(store.get({ issuer: AS_A, resource: MCP_2 })?.accessToken).toBe('a-2');
    });

    it('compares keys as given: no two keys share an entry, whatever their strings hold', () => {
      store.set({ issuer: 'https://as.example.com/x y', resource: MCP_1 }, tokens('spaced issuer'));
      expect(store.get({ issuer: 'https://as.example.com/x', resource: `y ${MCP_1}` })).toBeUndefined();
      store.set({ issuer: AS_A, resource: MCP_1 }, tokens('plain'));
      expect(store.get({ issuer: `${AS_A}/`, resource: MCP_1 })).toBeUndefined();
      expect(store.get({ issuer: AS_A, resource: `${MCP_1}/` })).toBeUndefined();
      expect(store.get({ issuer: MCP_1, resource: AS_A })).toBeUndefined();
    });

    it('keeps the newest 1000: the oldest goes first', () => {
      for (let i = 0; i <= LIMIT; i++) store.set(nth(i), tokens(`t${i}`));
      expect(store.get(nth(0))).toBeUndefined();
      expect(store.get(nth(1))?.accessToken).toBe('t1');
      expect(store.get(nth(LIMIT))?.accessToken).toBe(`t${LIMIT}`);
      store.set(nth(LIMIT + 1), tokens('next'));
      expect(store.get(nth(1))).toBeUndefined();
      expect(store.get(nth(2))?.accessToken).toBe('t2');
    });

    it('makes an entry set again the newest', () => {
      for (let i = 0; i < LIMIT; i++) store.set(nth(i), tokens(`t${i}`));
      store.set(nth(0), tokens('t0 again'));
      store.set(nth(LIMIT), tokens('one more'));
      expect(store.get(nth(0))?.accessToken).toBe('t0 again');
      expect(store.get(nth(1))).toBeUndefined();
      expect(store.get(nth(2))?.accessToken).toBe('t2');
    });

    it('frees the place of a deleted entry', () => {
      for (let i = 0; i < LIMIT; i++) store.set(nth(i), tokens(`t${i}`));
      store.delete(nth(500));
      store.set(nth(LIMIT), tokens('one more'));
      expect(store.get(nth(0))?.accessToken).toBe('t0');
      expect(store.get(nth(LIMIT))?.accessToken).toBe('one more');
    });
  });

  describe('registered clients', () => {
    it('are kept per issuer', () => {
      store.setClient(AS_A, client('client-a'));
      expect(store.getClient(AS_A)).toEqual(client('client-a'));
      expect(store.getClient(AS_B)).toBeUndefined();
      store.setClient(AS_B, { clientId: 'client-b', clientSecret: 's', authMethod: 'client_secret_basic' });
      store.setClient(AS_A, client('client-a2'));
      expect(store.getClient(AS_A)?.clientId).toBe('client-a2');
      expect(store.getClient(AS_B)?.clientId).toBe('client-b');
    });

    it('are apart from tokens: neither bound crowds out the other', () => {
      store.set({ issuer: AS_A, resource: MCP_1 }, tokens('kept'));
      for (let i = 0; i <= LIMIT; i++) store.setClient(`${AS_B}/${i}`, client(`c${i}`));
      expect(store.get({ issuer: AS_A, resource: MCP_1 })?.accessToken).toBe('kept');
      expect(store.getClient(`${AS_B}/0`)).toBeUndefined();
      expect(store.getClient(`${AS_B}/1`)?.clientId).toBe('c1');
      store.setClient(AS_A, client('client-a'));
      for (let i = 0; i <= LIMIT; i++) store.set(nth(i), tokens(`t${i}`));
      expect(store.getClient(AS_A)?.clientId).toBe('client-a');
      expect(store.get({ issuer: AS_A, resource: MCP_1 })).toBeUndefined();
    });
  });
});
