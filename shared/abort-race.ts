/**
 * `work`'s outcome, or `whenAborted()`'s as soon as `signal` aborts (its value, or its throw as the rejection).
 * One listener per wait, removed when `work` settles (a race against one long-lived promise would keep a reaction per
 * wait until the signal's owner ends). A `work` left pending settles later, unseen.
 */
export function settledOrAborted<T, A>(work: Promise<T>, signal: AbortSignal, whenAborted: () => A): Promise<T | A> {
  const aborted = () => new Promise<A>((resolve) => resolve(whenAborted()));
  if (signal.aborted) {
    work.catch(() => undefined);
    return aborted();
  }
  return new Promise<T | A>((resolve, reject) => {
    const onAbort = () => aborted().then(resolve, reject);
    signal.addEventListener('abort', onAbort, { once: true });
    work.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(error);
      },
    );
  });
}
