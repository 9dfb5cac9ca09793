/** A JSON-RPC error refusing a server's request or an answer to it. */
export interface CheckError {
  code: number;
  message: string;
}

/** Outcome of a safety check: the value to go on with, or the error to answer with. */
export type Checked<T> = { ok: true; value: T } | { ok: false; error: CheckError };

export function accepted<T>(value: T): Checked<T> {
  return { ok: true, value };
}

export function refused(code: number, message: string): Checked<never> {
  return { ok: false, error: { code, message } };
}
