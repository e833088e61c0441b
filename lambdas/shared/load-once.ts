/**
 * A module (and what is built from it) loaded on first use. Bundled, what `import()` loads is a chunk of its own that
 * a cold start does not load (lib/config/bundling.ts): the AWS clients only some calls use (Secrets Manager, KMS, SQS,
 * Step Functions) and a route's own libraries come in this way. One load per container; a failed one is tried again.
 */
export function loadOnce<T>(load: () => Promise<T>): () => Promise<T> {
  let loading: Promise<T> | undefined;
  return () => {
    if (!loading) {
      const attempt = load();
      loading = attempt;
      attempt.catch(() => {
        if (loading === attempt) loading = undefined;
      });
    }
    return loading;
  };
}

/** An AWS client's module and the container's client built from it, both on first use (see loadOnce). */
export function loadClientOnce<M, C>(load: () => Promise<M>, build: (module: M) => C): () => Promise<{ module: M; client: C }> {
  return loadOnce(async () => {
    const module = await load();
    return { module, client: build(module) };
  });
}
