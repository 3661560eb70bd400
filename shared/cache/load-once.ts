/**
 * A loader that runs once and hands every caller the same promise (a module imported on first use, …); a
 * failed load is forgotten, so the next call tries again instead of failing for the life of the process.
 */
export function loadOnce<T>(load: () => Promise<T>): () => Promise<T> {
  let loading: Promise<T> | undefined;
  return () => {
    loading ??= load().catch((error: unknown) => {
      loading = undefined;
      throw error;
    });
    return loading;
  };
}
