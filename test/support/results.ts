/** Resolves with what a promise rejected with; fails the test when it resolves. */
export async function errorOf<E = Error>(promise: Promise<unknown>): Promise<E> {
  try {
    await promise;
  } catch (error) {
    return error as E;
  }
  throw new Error('expected the request to fail');
}

/** The text of a result's first content block ('' when it is not text). */
export function textOf(result: object): string {
  const [first] = ((result as { content?: unknown }).content ?? []) as Array<{ type: string; text?: string }>;
  return first?.type === 'text' ? (first.text ?? '') : '';
}
