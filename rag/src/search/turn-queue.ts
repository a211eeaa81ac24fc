/**
 * Runs synchronous jobs one at a time, each in a turn of the event loop of its own
 * (docs/retrieval.md#query-limits). A search's ranking step is synchronous on purpose (one snapshot
 * from start to end); when many searches are ready at once, running them back to back would hold the
 * event loop for all of them, and a GET /health that arrived meanwhile would wait for every one. Here
 * the next job is scheduled only once the previous one has finished, and Node runs an immediate
 * scheduled during the check phase in the next loop iteration, so new requests are read and answered
 * between two searches: /health waits for at most one.
 */
export class TurnQueue {
  #tail: Promise<unknown> = Promise.resolve();

  run<T>(job: () => T): Promise<T> {
    const result = this.#tail.then(
      () =>
        new Promise<T>((resolve, reject) => {
          setImmediate(() => {
            try {
              resolve(job());
            } catch (err) {
              reject(err);
            }
          });
        }),
    );
    this.#tail = result.catch(() => undefined);
    return result;
  }
}
