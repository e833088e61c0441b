/**
 * What a Lambda container builds once and every request shares: the
 * DynamoDB client, table names, the admission store and its per-container
 * memories (immutable key facts, last seen windows, rejection-log sampling),
 * the limits, the in-process edge guard and the clock. Tests and the local
 * stack pass their own.
 *
 * The DynamoDB client and the admission store are built on their first call,
 * the SDK's modules imported then (deferred-object.ts): this module imports
 * nothing of the SDK, so the system function, which calls no table, loads
 * none of it (docs/infrastructure.md "Cold start").
 */
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { deferredObject } from './deferred-object';
import { KeyFactsCache } from './identity/key-authentication';
import type { AdmissionStore } from './limits/admission-store';
import { RateLogSampler } from './limits/rejection-log';
import { WindowMemory } from './limits/window-memory';
import { EdgeGuard } from './limits/edge-guard';
import { LIMITS, type Limit } from './limits/limits-table';
import type { Surface } from './http/routes';
import type { Sealer } from './sealing';
import type { SecretId, SecretSource } from './secrets';
import { requireTable, tableNamesFromEnv, type TableNames } from './storage/table-names';

export type Clock = () => Date;

export interface Platform {
  /** Built on first use (storage/dynamo-client.ts createDocumentClient), unless given. */
  readonly documentClient: DynamoDBDocumentClient;
  /** The tables this function is granted (only those: see dataAccessOf in http/routes.ts). */
  readonly tables: TableNames;
  /** Built on first use: a function with no key-authenticated route (system) has no table at all. */
  readonly admissionStore: AdmissionStore;
  readonly keyCache: KeyFactsCache;
  readonly windowMemory: WindowMemory;
  readonly rateLog: RateLogSampler;
  readonly limits: readonly Limit[];
  /** The 10-second burst limits below WAF's resolution; undefined where something in front enforces them. */
  readonly edgeGuard: EdgeGuard | undefined;
  readonly clock: Clock;
  /**
   * The front door this function serves (API_SURFACE, set by the stack: each function belongs to one
   * REST API); undefined in the local stack, whose one front serves both, so the path decides.
   */
  readonly surface?: Surface;
  /** A service secret (secrets.ts), one source per secret per container so its value is cached. */
  secret(id: SecretId): SecretSource;
  /**
   * Switches of the local stack only (local/local-stack.ts sets them through configureSharedPlatform;
   * no environment variable or setting does): a deployed function never has any.
   */
  readonly localSwitches?: LocalSwitches;
}

/**
 * The local stack's switches. A group adds its own by declaration merging from its folder (the webhooks group:
 * `webhooks`, in lambdas/webhooks/webhook-runtime.ts), so this module imports nothing of a group.
 */
export interface LocalSwitches {
  /** `ticket bridge --fail on`: the ticket bridge fails as an unavailable store would. */
  ticketBridgeDown(): boolean;
  /**
   * The local stack's stand-in for KMS (local/sealing.ts): two-factor seeds and callbacks' secrets. One for every
   * handler, yet each invocation may use it only as its function's role may use the deployed key: the local stack runs
   * each invocation in a scope naming its function, which the sealer reads (a role without the use is refused).
   */
  readonly sealer?: Sealer;
  /**
   * The bound of admission's compensations and lease releases (deployed: CLEANUP_TIMEOUT_MS, 1 s). DynamoDB Local on a
   * busy machine can take longer, and a compensation cut short leaves a refused request counted.
   */
  readonly cleanupTimeoutMs?: number;
  /** Admission's budget (deployed: ADMISSION_BUDGET_MS, 3 s), raised with the local stack's `storageWaitMs` by a test that counts. */
  readonly admissionBudgetMs?: number;
}

export function createPlatform(overrides: Partial<Platform> = {}): Platform {
  const tables = overrides.tables ?? tableNamesFromEnv();
  const limits = overrides.limits ?? LIMITS;
  let documentClient = overrides.documentClient;
  let admissionStore = overrides.admissionStore;
  const platform: Platform = {
    get documentClient() {
      documentClient ??= deferredObject(async () => (await import('./storage/dynamo-client')).createDocumentClient(), ['send', 'destroy'], { destroy: () => undefined });
      return documentClient;
    },
    tables,
    get admissionStore() {
      if (!admissionStore) {
        // Refused here, as before the store was deferred, when the function is not granted the table.
        const table = requireTable(tables, 'access');
        admissionStore = deferredObject(async () => new (await import('./limits/admission-store')).AdmissionStore(platform.documentClient, table), [
          'read',
          'apply',
          'compensate',
          'release',
          'claimRateLogSlot',
        ]);
      }
      return admissionStore;
    },
    keyCache: overrides.keyCache ?? new KeyFactsCache(),
    windowMemory: overrides.windowMemory ?? new WindowMemory(),
    rateLog: overrides.rateLog ?? new RateLogSampler(),
    limits,
    // Only in-process options turn the guard off (the local stack, tests): no variable of a deployed function can.
    edgeGuard: 'edgeGuard' in overrides ? overrides.edgeGuard : new EdgeGuard(limits, 'application'),
    clock: overrides.clock ?? (() => new Date()),
    ...surfaceOption(overrides),
    secret: overrides.secret ?? memoizedSecrets(),
    ...(overrides.localSwitches ? { localSwitches: overrides.localSwitches } : {}),
  };
  return platform;
}

function surfaceOption(overrides: Partial<Platform>): { surface?: Surface } {
  if ('surface' in overrides) return overrides.surface ? { surface: overrides.surface } : {};
  const configured = process.env.API_SURFACE;
  return configured === 'partner' || configured === 'web' ? { surface: configured } : {};
}

function memoizedSecrets(): (id: SecretId) => SecretSource {
  const sources = new Map<SecretId, SecretSource>();
  return (id) => {
    let source = sources.get(id);
    // The module loads on a secret's first read (a join link, the player's token, a device cookie), not at a cold start.
    if (!source) sources.set(id, (source = deferredObject(async () => (await import('./secrets')).secretSource(id), ['versions'])));
    return source;
  };
}

/**
 * A value built once per platform (that is, per container), on first use: a group's stores over
 * the platform's client and tables.
 */
export function perPlatform<T>(build: (platform: Platform) => T): (platform: Platform) => T {
  const built = new WeakMap<Platform, T>();
  return (platform) => {
    let value = built.get(platform);
    if (value === undefined) built.set(platform, (value = build(platform)));
    return value;
  };
}

let shared: Platform | undefined;
let sharedOverrides: Partial<Platform> = {};

/** The container's platform, created on first use (after the environment is in place). */
export function sharedPlatform(): Platform {
  shared ??= createPlatform(sharedOverrides);
  return shared;
}

/**
 * What the local stack gives the shared platform before the first request (its switches, and no edge guard: its
 * front applies the edge rules, or none with `npm start -- --no-edge`; in fault-injection tests, a document client
 * whose calls can be made to fail: local/fault-injection.ts); never called in a deployed function.
 */
export function configureSharedPlatform(overrides: Pick<Partial<Platform>, 'localSwitches' | 'clock' | 'edgeGuard' | 'documentClient'>): void {
  sharedOverrides = overrides;
  shared = undefined;
}
