/**
 * An object built on the first call of one of its methods, from what `load` imports then: the platform's
 * DynamoDB parts (platform.ts), so that a function that never calls DynamoDB (system: GET /health and the 404s)
 * never loads the AWS SDK at its cold start, nor later. In every other function the SDK's modules are in the
 * cold start's static graph anyway (the front door's first read imports its command: key authentication, the session
 * lookup, the possession check), so the import resolves from what the cold start loaded; once built, a call goes straight to the object, in the same tick as a direct call.
 *
 * For objects used only through methods that return a promise (DynamoDBDocumentClient's `send`, the admission
 * store's reads and writes), named in `methods`: reading one gives a function, and a failure to load is its promise's
 * rejection; reading anything else throws (a caller that needs the client's middleware stack or configuration passes
 * a client it built). `idle`: what a method does while nothing was built yet (`destroy`: nothing to destroy). Not a
 * thenable, so that `await` on it is harmless.
 */
import { loadOnce } from './load-once';

export function deferredObject<T extends object>(load: () => Promise<T>, methods: readonly (keyof T & string)[], idle: Partial<Record<keyof T & string, () => unknown>> = {}): T {
  let built: T | undefined;
  const building = loadOnce(async () => (built = await load()));
  const call = (target: T, name: string, args: unknown[]): unknown => (target as Record<string, (...a: unknown[]) => unknown>)[name](...args);
  const known = new Set<string>(methods);
  return new Proxy(Object.create(null) as T, {
    get: (_target, name) => {
      if (typeof name === 'symbol' || name === 'then') return undefined;
      // Anything but the methods listed would be a lie of the type (a property read before the object exists): loud.
      if (!known.has(name)) throw new TypeError(`${name} of an object built on first use: only ${methods.join(', ')} (deferred-object.ts)`);
      const before = idle[name as keyof T & string];
      return (...args: unknown[]) => (built ? call(built, name, args) : before ? before() : building().then((target) => call(target, name, args)));
    },
  });
}
