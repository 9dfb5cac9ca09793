/**
 * The cancellation of one in-flight request. Its `AbortSignal` is made only when something asks for it: most
 * requests finish without anyone listening, and an AbortController per request was a measurable share of a call.
 */
export class RequestCancellation {
  private controller: AbortController | undefined;
  private abortedWith: { reason: unknown } | undefined;

  get aborted(): boolean {
    return this.abortedWith !== undefined;
  }

  get signal(): AbortSignal {
    if (!this.controller) {
      this.controller = new AbortController();
      if (this.abortedWith) this.controller.abort(this.abortedWith.reason);
    }
    return this.controller.signal;
  }

  abort(reason: unknown): void {
    if (this.abortedWith) return;
    this.abortedWith = { reason };
    this.controller?.abort(reason);
  }
}
