import { isJsonObject } from '../json/json-object';
import { LegacyRevision, Revision } from '../protocol/revisions';

/** The newest revision with JSON-RPC batches: 2025-06-18 removed them, and the modern era never had them. */
export const LAST_BATCH_REVISION: LegacyRevision = '2025-03-26';

/** Whether a peer at `revision` may send a JSON-RPC batch (2025-03-26 and older). */
export function revisionAllowsBatches(revision: Revision): boolean {
  return revision <= LAST_BATCH_REVISION;
}

/** Most messages of a batch, where the revision has batches, unless configured otherwise. */
export const DEFAULT_MAX_BATCH_LENGTH = 32;

/** A batch's verdict: acceptable, or the -32600 message it is refused with. */
export type BatchVerdict = { ok: true } | { ok: false; message: string };

const ACCEPTED: BatchVerdict = { ok: true };

/**
 * The checks a batch passes whatever the revision, cheapest first so that a long one costs no more than a look at its
 * length: not empty, at most `maxLength` messages, no `initialize` among them (it must be alone). Never throws.
 */
export function checkBatchShape(batch: readonly unknown[], maxLength: number): BatchVerdict {
  if (batch.length === 0) return { ok: false, message: 'Invalid Request: empty batch' };
  if (batch.length > maxLength)
    return { ok: false, message: `Invalid Request: a batch may hold at most ${maxLength} messages` };
  for (const item of batch) {
    if (isJsonObject(item) && item.method === 'initialize')
      return { ok: false, message: 'Invalid Request: initialize must not be part of a batch' };
  }
  return ACCEPTED;
}

/** Whether a batch is accepted at `revision`: refused from 2025-06-18 on, naming the revision. Never throws. */
export function checkBatchRevision(revision: Revision): BatchVerdict {
  if (revisionAllowsBatches(revision)) return ACCEPTED;
  return {
    ok: false,
    message: `Invalid Request: JSON-RPC batches are not part of revision ${revision} (removed in 2025-06-18); send one message per request`,
  };
}
