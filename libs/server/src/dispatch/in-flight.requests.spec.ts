import { McpSession } from '../session/mcp-session';
import { RequestCancellation } from '../session/request-cancellation';
import { InFlightRequests, SHUTDOWN_REASON } from './in-flight.requests';

const cancellations = new Map<string, RequestCancellation>();

function begin(requests: InFlightRequests, session: McpSession, id: string): void {
  cancellations.set(id, session.beginRequest(id) as RequestCancellation);
  requests.began(session);
}

function running(requests: InFlightRequests, id: string): McpSession {
  const session = new McpSession(undefined, false);
  begin(requests, session, id);
  return session;
}

function finish(requests: InFlightRequests, session: McpSession, id: string): void {
  session.endRequest(id, cancellations.get(id) as RequestCancellation);
  requests.ended(session);
}

describe('InFlightRequests', () => {
  it('lists a session once, however many of its requests run, until the last returns', () => {
    const requests = new InFlightRequests();
    const session = running(requests, 'a');
    begin(requests, session, 'b');
    expect(requests.size).toBe(1);
    finish(requests, session, 'a');
    expect(requests.size).toBe(1);
    expect(requests.busy).toBe(true);
    finish(requests, session, 'b');
    expect(requests.size).toBe(0);
    expect(requests.busy).toBe(false);
  });

  it('keeps the others listed when sessions end in any order, and cancels exactly those at shutdown', () => {
    const requests = new InFlightRequests();
    const sessions = ['1', '2', '3', '4', '5'].map((id) => running(requests, id));
    finish(requests, sessions[1], '2'); // from the middle: the last one moves into its place
    finish(requests, sessions[4], '5'); // the last one
    finish(requests, sessions[0], '1'); // the first one
    expect(requests.size).toBe(2);
    const reasons: unknown[] = [];
    for (const session of sessions) session.onClose(() => reasons.push(session));
    requests.cancelAll();
    expect(sessions.map((session) => session.closed)).toEqual([false, false, true, true, false]);
    expect(reasons).toEqual([sessions[2], sessions[3]]);
    // A session listed again after it left starts at a fresh place.
    const again = running(requests, '6');
    finish(requests, again, '6');
    expect(requests.size).toBe(2);
  });

  it('aborts the requests it cancels with the shutdown reason', () => {
    const requests = new InFlightRequests();
    const session = new McpSession(undefined, false);
    const cancellation = session.beginRequest('x');
    requests.began(session);
    requests.cancelAll();
    expect(cancellation?.signal.aborted).toBe(true);
    expect(String((cancellation?.signal.reason as Error).message)).toContain(SHUTDOWN_REASON);
  });
});
