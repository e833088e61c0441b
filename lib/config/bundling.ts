/**
 * How every Lambda is bundled, declared once: the CDK construct passes these
 * to NodejsFunction (local esbuild) and the benchmark builds the very same
 * bundles to measure their size and load time.
 */
export const LAMBDA_BUNDLING = {
  minify: true,
  sourceMap: true,
  sourcesContent: false,
  target: 'node22',
  format: 'cjs',
  /** Prefer packages' ES module builds, which esbuild can tree-shake (the AWS SDK v3 ships both). */
  mainFields: ['module', 'main'],
  /** Empty: bundle everything, the AWS SDK included, so the deployed version is the one in package-lock.json. */
  externalModules: [] as string[],
} as const;

/** Set on every function: stack traces point at the TypeScript sources. */
export const LAMBDA_NODE_OPTIONS = '--enable-source-maps';
