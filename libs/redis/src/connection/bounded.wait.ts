/** `promise`, or a rejection with `message` once `ms` passed (the timer is cleared either way). */
export async function withTimeout<T>(promise: Promise<T>, ms: number, message: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(message)), ms);
  });
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/** An error's message, for logs (a thrown non-Error is turned into text). */
export function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
