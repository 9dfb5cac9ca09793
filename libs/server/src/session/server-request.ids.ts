import { randomBytes } from 'node:crypto';

// Random per process, so that two instances holding copies of one session never issue the same id: the client's answer
// (which may reach any instance, and travels on the bus) is taken only by the copy that asked.
const PROCESS_TAG = randomBytes(6).toString('base64url');
// Shared by every session of the process, so that two servers (or two apps) in one process never collide either.
let issued = 0;

/**
 * A new id for a server-to-client request (`elicitation/create`, `sampling/createMessage`, `roots/list`, `ping`):
 * `s<process tag>-<counter>`, unique across the instances of a server. JSON- and URL-safe; nothing parses it.
 */
export function nextServerRequestId(): string {
  return `s${PROCESS_TAG}-${++issued}`;
}
