import { LookupAddress, LookupAllOptions } from 'node:dns';
import {
  AllAddressesResolver,
  createAddressPolicy,
  guardedLookup,
  isLoopbackHostname,
  literalAddress,
} from './address.policy';

describe('createAddressPolicy', () => {
  const strict = createAddressPolicy({ allowLoopback: false, allowPrivateNetworks: [] });

  it('allows public unicast addresses, IPv4 and IPv6', () => {
    for (const address of ['93.184.216.34', '8.8.8.8', '2606:4700::1111', '::ffff:93.184.216.34'])
      expect([address, strict(address)]).toEqual([address, undefined]);
  });

  it('refuses every other range, and says which', () => {
    const refused = {
      '10.1.2.3': 'private',
      '172.16.0.1': 'private',
      '192.168.1.1': 'private',
      '169.254.169.254': 'linkLocal',
      '100.64.0.1': 'carrierGradeNat',
      '127.0.0.1': 'loopback',
      '0.0.0.0': 'unspecified',
      '224.0.0.1': 'multicast',
      '255.255.255.255': 'broadcast',
      '192.0.2.1': 'reserved',
      '::1': 'loopback',
      '::': 'unspecified',
      'fe80::1': 'linkLocal',
      'fd00::1': 'uniqueLocal',
      'ff02::1': 'multicast',
      '64:ff9b::a9fe:a9fe': 'rfc6052',
    };
    for (const [address, range] of Object.entries(refused))
      expect(strict(address)).toBe(`${address} is not a public address (${range})`);
  });

  it('sees through IPv4-mapped IPv6 addresses', () => {
    expect(strict('::ffff:169.254.169.254')).toContain('(linkLocal)');
    expect(strict('::ffff:10.0.0.1')).toContain('(private)');
    expect(strict('::ffff:127.0.0.1')).toContain('(loopback)');
  });

  it('refuses what is not an IP address', () => {
    expect(strict('example.com')).toBe('example.com is not an IP address');
  });

  it('allows loopback, and only loopback, with allowLoopback', () => {
    const loopback = createAddressPolicy({ allowLoopback: true, allowPrivateNetworks: [] });
    for (const address of ['127.0.0.1', '127.8.9.10', '::1', '::ffff:127.0.0.1'])
      expect(loopback(address)).toBeUndefined();
    for (const address of ['10.0.0.1', '169.254.169.254', 'fe80::1', '0.0.0.0'])
      expect(loopback(address)).toBeDefined();
  });

  it('allows the addresses inside allowPrivateNetworks, IPv4 against IPv4 networks and IPv6 against IPv6', () => {
    const policy = createAddressPolicy({ allowLoopback: false, allowPrivateNetworks: ['10.0.0.0/8', 'fd00::/8'] });
    for (const address of ['10.1.2.3', '10.255.255.255', '::ffff:10.1.2.3', 'fd00::1', 'fdff:1::2'])
      expect([address, policy(address)]).toEqual([address, undefined]);
    for (const address of ['192.168.1.1', '172.16.0.1', 'fc00::1', '169.254.169.254', '127.0.0.1'])
      expect(policy(address)).toBeDefined();
    const everyIPv6 = createAddressPolicy({ allowLoopback: false, allowPrivateNetworks: ['::/0'] });
    expect(everyIPv6('fe80::1')).toBeUndefined();
    expect(everyIPv6('10.0.0.1')).toContain('(private)');
    expect(everyIPv6('::ffff:10.0.0.1')).toContain('(private)');
  });

  it('throws at once on a CIDR it cannot parse, naming it', () => {
    for (const cidr of ['10.0.0.0', '10.0.0.0/33', 'fd00::/129', 'intranet'])
      expect(() => createAddressPolicy({ allowLoopback: false, allowPrivateNetworks: [cidr] })).toThrow(
        `allowPrivateNetworks: "${cidr}" is not a CIDR`,
      );
  });
});

describe('literalAddress and isLoopbackHostname', () => {
  it('recognise IP-literal URL hosts, brackets and all', () => {
    expect(literalAddress('127.0.0.1')).toBe('127.0.0.1');
    expect(literalAddress('[::1]')).toBe('::1');
    expect(literalAddress('[fd00::1]')).toBe('fd00::1');
    expect(literalAddress('localhost')).toBeUndefined();
    expect(literalAddress('example.com')).toBeUndefined();
  });

  it('call localhost, 127.0.0.0/8 and [::1] loopback, and nothing else', () => {
    for (const host of ['localhost', '127.0.0.1', '127.1.2.3', '[::1]']) expect(isLoopbackHostname(host)).toBe(true);
    for (const host of ['localhost.example.com', 'example.com', '10.0.0.1', '0.0.0.0', '[fe80::1]'])
      expect(isLoopbackHostname(host)).toBe(false);
  });
});

describe('guardedLookup', () => {
  const refuseNonPublic = (address: string) =>
    createAddressPolicy({ allowLoopback: false, allowPrivateNetworks: [] })(address) === undefined
      ? undefined
      : new Error(`refused ${address}`);
  const resolving =
    (addresses: LookupAddress[], seen: LookupAllOptions[] = []): AllAddressesResolver =>
    (_hostname, options, callback) => {
      seen.push(options);
      setImmediate(() => callback(null, addresses));
    };
  const ask = (resolve: AllAddressesResolver, all: boolean) =>
    new Promise<{ error: unknown; address: unknown; family: unknown }>((done) =>
      guardedLookup(refuseNonPublic, resolve)('host.example', { all, family: 0 }, (error, address, family) =>
        done({ error, address, family }),
      ),
    );

  it('refuses the host when any address it resolves to is refused, whichever comes first', async () => {
    for (const addresses of [
      [
        { address: '93.184.216.34', family: 4 },
        { address: '10.0.0.1', family: 4 },
      ],
      [
        { address: '169.254.169.254', family: 4 },
        { address: '93.184.216.34', family: 4 },
      ],
    ]) {
      const { error } = await ask(resolving(addresses), false);
      expect((error as Error).message).toBe(`refused ${addresses.find((a) => a.address !== '93.184.216.34')!.address}`);
      expect((await ask(resolving(addresses), true)).error).toBeInstanceOf(Error);
    }
  });

  it('answers the first address, or every address when Node asks for all of them', async () => {
    const addresses = [
      { address: '2606:4700::1111', family: 6 },
      { address: '93.184.216.34', family: 4 },
    ];
    const seen: LookupAllOptions[] = [];
    expect(await ask(resolving(addresses, seen), false)).toEqual({
      error: null,
      address: '2606:4700::1111',
      family: 6,
    });
    expect((await ask(resolving(addresses, seen), true)).address).toEqual(addresses);
    expect(seen.every((options) => options.all === true && options.family === 0)).toBe(true);
  });

  it('passes on a resolver failure, and fails on an empty answer', async () => {
    const notFound = Object.assign(new Error('getaddrinfo ENOTFOUND host.example'), { code: 'ENOTFOUND' });
    const failing: AllAddressesResolver = (_hostname, _options, callback) => callback(notFound, []);
    expect((await ask(failing, false)).error).toBe(notFound);
    expect((await ask(resolving([]), false)).error).toMatchObject({ code: 'ENOTFOUND' });
  });
});
