import { McpStateHealth } from './state-health.interface';

/** How long a `health()` may take: a slower one counts as down (a health route must answer while a store hangs). */
export const STATE_HEALTH_TIMEOUT_MS = 2_000;

/** A part of a server's state that may report its health. */
export interface HealthReporter {
  health?(): Promise<McpStateHealth>;
}

/** The health of the parts that report one, by name; `up` unless one of them is down. */
export interface StateHealth {
  up: boolean;
  parts: Record<string, McpStateHealth>;
}

/**
 * Asks each part that has a `health()` (at once, each bounded by `timeoutMs`); a part that throws, rejects, answers
 * late or answers something without a boolean `up` is down, with the reason in `error`. Undefined when no part
 * reports health (the in-memory defaults). Never rejects.
 */
export async function probeState(
  parts: Record<string, HealthReporter>,
  timeoutMs = STATE_HEALTH_TIMEOUT_MS,
): Promise<StateHealth | undefined> {
  const asked = Object.entries(parts).filter(([, part]) => typeof part.health === 'function');
  if (asked.length === 0) return undefined;
  const answers = await Promise.all(asked.map(([, part]) => probe(part, timeoutMs)));
  const named = Object.fromEntries(asked.map(([name], index) => [name, answers[index]]));
  return { up: answers.every((answer) => answer.up), parts: named };
}

async function probe(part: HealthReporter, timeoutMs: number): Promise<McpStateHealth> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<McpStateHealth>((resolve) => {
    timer = setTimeout(() => resolve({ up: false, error: `no answer within ${timeoutMs} ms` }), timeoutMs);
  });
  try {
    const answer = await Promise.race([Promise.resolve().then(() => part.health!()), late]);
    if (typeof answer !== 'object' || answer === null || typeof answer.up !== 'boolean')
      return { up: false, error: 'health() answered without a boolean "up"' };
    return answer;
  } catch (error) {
    return { up: false, error: error instanceof Error ? error.message : String(error) };
  } finally {
    clearTimeout(timer);
  }
}
