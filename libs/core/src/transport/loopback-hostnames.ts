/**
 * Host names that always reach this machine (as `URL.hostname` spells them): the server's default Host and Origin
 * allow-list, and the hosts on which a resource URI may use plain `http`.
 */
export const LOOPBACK_HOSTNAMES: readonly string[] = ['localhost', '127.0.0.1', '[::1]'];
