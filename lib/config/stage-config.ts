/**
 * Per-stage configuration of the infrastructure: one base object plus small
 * overrides for the long-lived stages. Any other valid stage name is an
 * ephemeral stage (a pull request, a developer sandbox) or the integration
 * test's (INTEG_STAGE) and gets the base unchanged, so the base is
 * deliberately the cheap, disposable setting:
 * destroy on delete, no alarms, no dashboard. Log retention is the one
 * exception: the spec keeps the call logs of every stage 30 days, and the
 * call logs live in the functions' log groups, so no stage keeps less.
 *
 * The values are plain data (no CDK types) so that they can be unit tested
 * and printed in docs/infrastructure.md and docs/alarms.md.
 */

import { PASSWORD_HASH_SECONDS_PER_VCPU } from '../../lambdas/back-office/passwords';
import { PASSWORD_HASHES_PER_REQUEST, passwordHashProblems } from './password-hashing';
import { ENDPOINT_GROUPS, type EndpointGroup, type Surface } from '../../lambdas/shared/http/routes';
import { CLAIMING_RECONCILIATION_BOUND_SECONDS } from '../../lambdas/shared/observability/metric-catalog';
import { SQS_MAX_DELAY_SECONDS } from '../../lambdas/webhooks/delivery-schedule';
import { DELIVERY_QUEUE_VISIBILITY_SECONDS } from '../../lambdas/webhooks/pipeline-settings';

export type RemovalMode = 'destroy' | 'retain';
export type LogLevel = 'DEBUG' | 'INFO' | 'WARN' | 'ERROR';
/** Retention periods CloudWatch Logs accepts (a subset; extend when needed). Validation refuses less than CALL_LOG_RETENTION_DAYS. */
export type LogRetentionDays = 1 | 3 | 5 | 7 | 14 | 30 | 60 | 90 | 120 | 150 | 180 | 365;

/**
 * Default method throttling of a `v1` stage. API Gateway applies it per
 * method (each resource + verb has its own token bucket), bounded by the
 * account-level limit; it protects the account, it is not a client quota.
 */
export interface ApiThrottleConfig {
  /** Steady-state requests per second per method. */
  readonly rateLimit: number;
  /** Token-bucket capacity per method. */
  readonly burstLimit: number;
}

/**
 * The thresholds of every alarm of a stage (lib/constructs/observability.ts;
 * each alarm and what to do about it: docs/alarms.md). Counts are per
 * evaluation period of the alarm (5 minutes unless said otherwise).
 */
export interface AlarmsConfig {
  readonly enabled: boolean;
  /** 5XX responses of one REST API, in percent of its requests over 5 minutes, that raise the alarm. */
  readonly api5xxRatePercent: number;
  /** Requests a REST API must answer in the 5 minutes before its 5XX rate counts: one 500 on 2 requests at 3 a.m. is not an incident. */
  readonly api5xxMinRequests: number;
  /** API Gateway p99 Latency (ms) over 5 minutes that raises the alarm (in 2 of 3 periods). */
  readonly p99LatencyMs: number;
  /** Lambda Errors per function over 5 minutes that raise the alarm. */
  readonly lambdaErrorsThreshold: number;
  /** Lambda Throttles per function over 5 minutes that raise the alarm (a throttled request failed without running). */
  readonly lambdaThrottlesThreshold: number;
  /** DynamoDB ThrottledRequests per table over 5 minutes that raise the alarm. */
  readonly tableThrottlesThreshold: number;
  /** Blocks by a Region-wide WAF rule over 5 minutes that raise the alarm (a junk-credential flood being shed). */
  readonly wafRegionWideBlocksThreshold: number;
  /** Visible messages in a dead-letter queue that raise the alarm (work given up on). */
  readonly deadLetterMessagesThreshold: number;
  /** Failed executions of the webhook retry state machine over 5 minutes that raise the alarm. */
  readonly stateMachineFailuresThreshold: number;
  /**
   * Age (s) of the oldest message of the webhook delivery queue that raises the alarm. Above the
   * longest delay SQS holds a retry plus one visibility timeout, so a healthy retry never trips it.
   */
  readonly deliveryQueueOldestAgeSeconds: number;
  /** Deliveries that ended `failed` (all 8 attempts spent), in percent of all deliveries that ended in the hour, that raise the alarm. */
  readonly webhookFailureRatePercent: number;
  /** Deliveries that must end in the hour before the failure rate counts. */
  readonly webhookFailureMinDeliveries: number;
  /** Webhook deliveries the sweeper queued again over 5 minutes that raise the alarm (each was stuck: a lost message, a failed retry execution, a dead worker). */
  readonly sweptDeliveriesThreshold: number;
  /** Age (s) of the oldest invitation left `claiming` that raises the alarm; at least the reconciliation bound. */
  readonly claimingOldestAgeSeconds: number;
  /**
   * When set, the alarm topic gets an e-mail subscription to this address (ALARM and OK
   * notifications). Set it here, in the stage's overrides, and commit it: a value given per deploy
   * (the old `-c notifyEmail=`) removed the subscription on every deploy that forgot it.
   */
  readonly notifyEmail?: string;
}

/**
 * The spec keeps redacted call logs of calls entering business processing 30 days; they are the
 * functions' logs, so no stage may keep its log groups less.
 */
export const CALL_LOG_RETENTION_DAYS = 30;

/**
 * A domain name the operator owns, served by one front door through an API Gateway custom domain
 * (regional, TLS 1.2) mapped at base path `v1`, so every URL keeps the execute-api shape
 * (`https://<name>/v1/...`). The certificate is the operator's, in ACM in the stage's Region (a
 * regional endpoint takes no other); the DNS record is the operator's too: the stack outputs the
 * target to point it at. docs/infrastructure.md, "Custom domains", says why the web side should have one.
 */
export interface CustomDomainConfig {
  /** Lowercase host name, e.g. `play.example.com`. */
  readonly name: string;
  /** `arn:aws:acm:<region>:<account>:certificate/<id>`, in the stage's Region, covering `name`. */
  readonly certificateArn: string;
}

export interface LambdaConfig {
  /** Every function's memory, unless groupMemoryMb names its group. */
  readonly memoryMb: number;
  /**
   * An API group's function that runs with other memory than memoryMb (functionMemoryMb). Lambda's CPU share is in
   * proportion to memory (one vCPU at LAMBDA_MB_PER_VCPU): sign-in, whose every call is a password hash, gets a full
   * vCPU, so a hash takes its measured time and each attempt holds an execution as briefly as it can.
   */
  readonly groupMemoryMb: Readonly<Partial<Record<EndpointGroup, number>>>;
  /** Must stay below API Gateway's 29 s integration timeout. */
  readonly timeoutSeconds: number;
}

/** Lambda's memory setting: 128 MB to 10,240 MB, in whole MB. */
export const LAMBDA_MEMORY_MB = { min: 128, max: 10240 } as const;
const isLambdaMemory = (value: unknown): value is number => typeof value === 'number' && Number.isInteger(value) && value >= LAMBDA_MEMORY_MB.min && value <= LAMBDA_MEMORY_MB.max;

/** Lambda gives a function one full vCPU at 1,769 MB, and a CPU share in proportion to its memory below that (the Lambda guide's memory page). */
export const LAMBDA_MB_PER_VCPU = 1769;

/**
 * The integration test's stage (test/integ/integ.partner-api.ts, docs/deploying.md "A throwaway stage"): integ-runner
 * deploys it, makes a user's first checks through its front doors and destroys it in the same run. Reserved for that:
 * a sandbox of this name would be the test's to destroy. Its settings are the base's, and validation keeps every
 * resource of it destroyed with its stacks (throwawayProblems).
 */
export const INTEG_STAGE = 'integ';

export interface StageConfig {
  readonly stage: string;
  /** `true` for dev, staging and prod; `false` for every ephemeral stage and the integ stage. */
  readonly longLived: boolean;
  readonly removalPolicy: RemovalMode;
  readonly pointInTimeRecovery: boolean;
  readonly deletionProtection: boolean;
  readonly logRetentionDays: LogRetentionDays;
  readonly logLevel: LogLevel;
  /** X-Ray active tracing on the functions and the API stage. */
  readonly tracing: boolean;
  /**
   * Per front door (lib/config/surfaces.ts): the partner API's and the web side's stages throttle
   * apart, so a browser crowd on the player site cannot spend the partners' buckets, nor the reverse.
   */
  readonly apiThrottle: Readonly<Record<Surface, ApiThrottleConfig>>;
  /**
   * The sign-in method's own stage throttle (`POST /settings/api/session`, every route of category
   * `settings-sign-in`), apart from and within the web side's. Each attempt costs a password hash
   * (scrypt); WAF already refuses an address past the function's per-IP sign-in rate
   * (`sign-in-ip-minute`, 10 a minute), so holding sign-in at this throttle takes
   * rateLimit × 60 / 10 addresses. On a stage that reserves concurrency for the `sign-in` function,
   * validation keeps what this throttle lets run at once within that reservation
   * (signInPeakConcurrency), so a flood meets 429 at API Gateway, never Lambda's throttle (a 5XX).
   * docs/infrastructure.md gives the numbers.
   */
  readonly signInThrottle: ApiThrottleConfig;
  /**
   * Reserved concurrency per API group's function: the web side's functions get a ceiling (and a
   * floor) so that a flood on the player site or web settings cannot take the account's concurrency
   * from the partner API. Lambda keeps at least UNRESERVED_CONCURRENCY_MINIMUM of the account's
   * concurrency unreserved, so the sum is bounded (docs/infrastructure.md gives the numbers).
   */
  readonly reservedConcurrency: Readonly<Partial<Record<EndpointGroup, number>>>;
  /** Per front door, an operator-owned domain to serve it on (none by default: execute-api hosts only). */
  readonly customDomains: Readonly<Partial<Record<Surface, CustomDomainConfig>>>;
  readonly alarms: AlarmsConfig;
  /**
   * The stage's CloudWatch dashboard (lib/constructs/dashboard.ts). About $3 a month each beyond
   * the account's first three, so ephemeral stages go without; every long-lived stage has one,
   * dev included (it is where a change is first watched under real traffic).
   */
  readonly dashboard: boolean;
  readonly lambda: LambdaConfig;
}

/**
 * Stage names: a lowercase letter, then lowercase letters or digits, 20 characters at most. No
 * hyphen: every physical name is `partner-api-<stage>` followed by a hyphen and the resource's own
 * part (`partner-api-dev-web-edge`), so a stage named `dev-web` would claim stage `dev`'s web-side
 * names, and `x-api` stage `x`'s `api-…` alarms. Without a hyphen the stage is always the whole
 * token between `partner-api-` and the next hyphen: no stage can produce another's names
 * (lib/compliance/deploy-readiness, `unique-physical-names`, checks every name on every synthesis).
 */
export const STAGE_NAME_PATTERN = /^[a-z][a-z0-9]{0,19}$/;

/**
 * Names no stage may take: `baseline` is the account-level stack's token (lib/baseline-stack.ts,
 * `partner-api-baseline-…`, `/partner-api/baseline/…`).
 */
export const RESERVED_STAGE_NAMES: readonly string[] = ['baseline'];

/** API Gateway stops waiting for a Lambda integration after 29 seconds (default quota). */
export const API_INTEGRATION_TIMEOUT_SECONDS = 29;

const BASE: Omit<StageConfig, 'stage' | 'longLived'> = {
  removalPolicy: 'destroy',
  pointInTimeRecovery: false,
  deletionProtection: false,
  logRetentionDays: CALL_LOG_RETENTION_DAYS,
  logLevel: 'INFO',
  tracing: true,
  apiThrottle: {
    partner: { rateLimit: 25, burstLimit: 50 },
    web: { rateLimit: 10, burstLimit: 20 },
  },
  signInThrottle: { rateLimit: 5, burstLimit: 10 },
  // No reservation on an ephemeral stage: it is disposable and must deploy into an account with a small quota; its
  // sign-in function shares the account's pool, where the throttle bounds it to signInPeakConcurrency (14) executions.
  reservedConcurrency: {},
  customDomains: {},
  alarms: {
    enabled: false,
    api5xxRatePercent: 5,
    api5xxMinRequests: 20,
    p99LatencyMs: 3000,
    lambdaErrorsThreshold: 5,
    lambdaThrottlesThreshold: 1,
    tableThrottlesThreshold: 1,
    wafRegionWideBlocksThreshold: 1,
    deadLetterMessagesThreshold: 1,
    stateMachineFailuresThreshold: 1,
    deliveryQueueOldestAgeSeconds: 3600,
    webhookFailureRatePercent: 20,
    webhookFailureMinDeliveries: 5,
    sweptDeliveriesThreshold: 1,
    claimingOldestAgeSeconds: CLAIMING_RECONCILIATION_BOUND_SECONDS,
  },
  dashboard: false,
  lambda: { memoryMb: 512, groupMemoryMb: { 'sign-in': LAMBDA_MB_PER_VCPU }, timeoutSeconds: 10 },
};

type DeepPartial<T> = { readonly [K in keyof T]?: T[K] extends object ? DeepPartial<T[K]> : T[K] };
type StageOverrides = DeepPartial<Omit<StageConfig, 'stage' | 'longLived'>>;

export const LONG_LIVED_STAGES = ['dev', 'staging', 'prod'] as const;
export type LongLivedStage = (typeof LONG_LIVED_STAGES)[number];

/**
 * The long-lived stages' overrides. A team deploying this service sets its alarm e-mail here
 * (`alarms: { notifyEmail: 'ops@…' }` on staging and prod) and commits it, so that every deploy
 * keeps the subscription (docs/deploying.md).
 */
const OVERRIDES: Record<LongLivedStage, StageOverrides> = {
  dev: {
    logLevel: 'DEBUG',
    dashboard: true,
    // Sign-in's function at most (and at least) this many at once: signInPeakConcurrency is 10 + 5 × 0.8 = 14.
    reservedConcurrency: { 'sign-in': 15 },
  },
  staging: {
    removalPolicy: 'retain',
    pointInTimeRecovery: true,
    dashboard: true,
    apiThrottle: { partner: { rateLimit: 50, burstLimit: 100 }, web: { rateLimit: 25, burstLimit: 50 } },
    signInThrottle: { rateLimit: 10, burstLimit: 20 },
    // signInPeakConcurrency: 20 + 10 × 0.8 = 28.
    reservedConcurrency: { 'sign-in': 30 },
    alarms: { enabled: true },
  },
  prod: {
    removalPolicy: 'retain',
    pointInTimeRecovery: true,
    deletionProtection: true,
    dashboard: true,
    apiThrottle: { partner: { rateLimit: 200, burstLimit: 400 }, web: { rateLimit: 100, burstLimit: 200 } },
    // 25 sign-ins a second is far above what account holders need (a handful a minute), and each one holds a full vCPU
    // for a hash: a higher throttle would only raise what a flood can make the stage reserve.
    signInThrottle: { rateLimit: 25, burstLimit: 25 },
    // The web side's functions at most (and at least) this many at once: the rest of the account is the partner API's.
    // Sign-in's covers what its throttle lets run at once (signInPeakConcurrency: 25 + 25 × 0.8 = 45).
    reservedConcurrency: { player: 40, settings: 20, 'sign-in': 45, webhooks: 10 },
    // More traffic: a lower 5XX rate is already an incident, and the minimum volume is reached sooner.
    alarms: { enabled: true, p99LatencyMs: 2000, api5xxRatePercent: 2, api5xxMinRequests: 50, webhookFailureRatePercent: 10 },
  },
};

export class StageConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'StageConfigError';
  }
}

export interface ResolveOptions {
  /** Test hook: an alarm e-mail over the stage's own (deployments take it from OVERRIDES only). */
  readonly notifyEmail?: string;
  /** Test hook: custom domains over the stage's own (deployments take them from OVERRIDES only). */
  readonly customDomains?: StageConfig['customDomains'];
}

/** The configuration of a stage: the base merged with the stage's overrides. Throws on invalid names or values. */
export function resolveStageConfig(name: string, options: ResolveOptions = {}): StageConfig {
  if (typeof name !== 'string' || !STAGE_NAME_PATTERN.test(name)) {
    throw new StageConfigError(
      `Invalid stage name ${JSON.stringify(name)}: use 1-20 characters, a lowercase letter first, then lowercase letters ` +
        `or digits (e.g. dev, prod, pr123). No hyphens: a stage named "dev-web" would claim the names of stage dev's web side.`,
    );
  }
  if (RESERVED_STAGE_NAMES.includes(name)) {
    throw new StageConfigError(`Invalid stage name ${JSON.stringify(name)}: reserved for the account-level stack (PartnerApi-Baseline).`);
  }
  const longLived = (LONG_LIVED_STAGES as readonly string[]).includes(name);
  const overrides: StageOverrides = longLived ? OVERRIDES[name as LongLivedStage] : {};
  const merged = deepMerge(BASE, overrides);
  const config: StageConfig = {
    ...merged,
    stage: name,
    longLived,
    alarms: { ...merged.alarms, ...(options.notifyEmail ? { notifyEmail: options.notifyEmail } : {}) },
    ...(options.customDomains ? { customDomains: options.customDomains } : {}),
  };
  assertValidStageConfig(config);
  return deepFreeze(config);
}

/** Throws a StageConfigError naming every invalid value of a stage's configuration. */
export function assertValidStageConfig(config: StageConfig): void {
  const problems: string[] = [];
  const { lambda, apiThrottle, alarms } = config;
  if (!(config.logRetentionDays >= CALL_LOG_RETENTION_DAYS)) {
    problems.push(`logRetentionDays must be at least ${CALL_LOG_RETENTION_DAYS} (the spec keeps call logs ${CALL_LOG_RETENTION_DAYS} days; they are the functions' logs)`);
  }
  if (!Number.isInteger(lambda.timeoutSeconds) || lambda.timeoutSeconds < 1 || lambda.timeoutSeconds >= API_INTEGRATION_TIMEOUT_SECONDS) {
    problems.push(`lambda.timeoutSeconds must be an integer from 1 to ${API_INTEGRATION_TIMEOUT_SECONDS - 1} (API Gateway gives up at ${API_INTEGRATION_TIMEOUT_SECONDS} s)`);
  }
  if (!isLambdaMemory(lambda.memoryMb)) problems.push(`lambda.memoryMb must be an integer from ${LAMBDA_MEMORY_MB.min} to ${LAMBDA_MEMORY_MB.max}`);
  for (const [group, memoryMb] of Object.entries(lambda.groupMemoryMb)) {
    if (!ENDPOINT_GROUPS.includes(group as EndpointGroup)) problems.push(`lambda.groupMemoryMb names an unknown group ${group}`);
    if (!isLambdaMemory(memoryMb)) problems.push(`lambda.groupMemoryMb.${group} must be an integer from ${LAMBDA_MEMORY_MB.min} to ${LAMBDA_MEMORY_MB.max}`);
  }
  for (const [surface, throttle] of Object.entries(apiThrottle)) {
    if (!(throttle.rateLimit > 0) || !Number.isInteger(throttle.burstLimit) || throttle.burstLimit < 1) {
      problems.push(`apiThrottle.${surface} needs rateLimit > 0 and an integer burstLimit >= 1`);
    }
  }
  const signIn = config.signInThrottle;
  if (!(signIn.rateLimit > 0) || !Number.isInteger(signIn.burstLimit) || signIn.burstLimit < 1) {
    problems.push('signInThrottle needs rateLimit > 0 and an integer burstLimit >= 1');
  } else if (signIn.rateLimit > apiThrottle.web.rateLimit || signIn.burstLimit > apiThrottle.web.burstLimit) {
    problems.push(`signInThrottle (${signIn.rateLimit} / ${signIn.burstLimit}) must stay within apiThrottle.web (${apiThrottle.web.rateLimit} / ${apiThrottle.web.burstLimit})`);
  }
  problems.push(...reservedConcurrencyProblems(config.reservedConcurrency));
  problems.push(...signInReservationProblems(config));
  problems.push(...passwordHashProblems(hashingFunctions(config), lambda.timeoutSeconds));
  problems.push(...customDomainProblems(config.customDomains));
  problems.push(...alarmProblems(alarms));
  if (alarms.notifyEmail !== undefined && !/^[^@\s]+@[^@\s]+\.[^@\s]+$/.test(alarms.notifyEmail)) {
    problems.push(`alarms.notifyEmail ${JSON.stringify(alarms.notifyEmail)} is not an e-mail address`);
  }
  if (config.deletionProtection && config.removalPolicy !== 'retain') {
    problems.push('deletionProtection requires removalPolicy retain');
  }
  problems.push(...throwawayProblems(config));
  if (problems.length > 0) {
    throw new StageConfigError(`Invalid configuration for stage ${config.stage}: ${problems.join('; ')}`);
  }
}

/**
 * The integ stage is destroyed at the end of every run (integ-runner's clean-up is `cdk destroy`): nothing of it may
 * outlive its stacks or stop their deletion (a retained table, secret or log group would make the next run's create
 * fail on its name), and nothing may need what a run cannot own (a custom domain's certificate and DNS record).
 */
function throwawayProblems(config: StageConfig): string[] {
  if (config.stage !== INTEG_STAGE) return [];
  const problems: string[] = [];
  if (config.removalPolicy !== 'destroy') problems.push('the integ stage must destroy its resources with its stacks (removalPolicy destroy)');
  if (config.deletionProtection) problems.push('the integ stage must have no deletion protection (tables, termination protection)');
  if (Object.values(config.customDomains).some(Boolean)) problems.push('the integ stage serves on its execute-api hosts only (customDomains)');
  return problems;
}

/** Lambda refuses a reservation that leaves the account fewer unreserved concurrent executions than this. */
export const UNRESERVED_CONCURRENCY_MINIMUM = 100;
/** The usual account quota of concurrent executions per Region (new accounts may start far lower: docs/deploying.md). */
export const ACCOUNT_CONCURRENCY_DEFAULT = 1000;
/**
 * The most one stage may reserve: half of what the default quota allows to be reserved, so that two
 * stages (dev and staging sharing an account) still leave Lambda its unreserved minimum.
 */
export const STAGE_RESERVED_CONCURRENCY_MAXIMUM = (ACCOUNT_CONCURRENCY_DEFAULT - UNRESERVED_CONCURRENCY_MINIMUM) / 2;

/** The memory a group's function runs with: its own (lambda.groupMemoryMb) or the stage's. */
export const functionMemoryMb = (config: Pick<StageConfig, 'lambda'>, group: EndpointGroup): number => config.lambda.groupMemoryMb[group] ?? config.lambda.memoryMb;

/**
 * Seconds one password hash holds an execution of a function with `memoryMb`: the measured time on a full vCPU
 * (PASSWORD_HASH_SECONDS_PER_VCPU), stretched by the CPU share below LAMBDA_MB_PER_VCPU (scrypt runs on one thread,
 * so more than one vCPU does not shorten it).
 */
export function hashSeconds(memoryMb: number): number {
  return PASSWORD_HASH_SECONDS_PER_VCPU * Math.max(1, LAMBDA_MB_PER_VCPU / memoryMb);
}

/**
 * The most executions of the sign-in function its method throttle can keep busy at once. API Gateway's throttle is a
 * token bucket of burstLimit tokens refilled at rateLimit a second: over any interval of T seconds it lets through at
 * most burstLimit + rateLimit × T requests (a full bucket spent at once, then the refill). A sign-in holds its
 * execution for T = hashSeconds(memory) (the rest of the call, a few DynamoDB round trips, is milliseconds: the
 * declared hash time's margin over the measured one covers it), so that many run at once at most. Stricter than
 * checking rateLimit × T and burstLimit apart: both terms add up when a burst lands on a refilling bucket.
 */
export function signInPeakConcurrency(config: Pick<StageConfig, 'lambda' | 'signInThrottle'>): number {
  const { rateLimit, burstLimit } = config.signInThrottle;
  return burstLimit + rateLimit * hashSeconds(functionMemoryMb(config, 'sign-in'));
}

/**
 * A flood of sign-ins must meet API Gateway's 429 (the sign-in method's throttle), never Lambda's throttle (a 5XX):
 * where the stage reserves concurrency for the sign-in function, the throttle may never keep more executions busy
 * than that reservation. Every long-lived stage reserves it (an ephemeral stage, disposable, shares the account's pool).
 */
function signInReservationProblems(config: StageConfig): string[] {
  const reserved = config.reservedConcurrency['sign-in'];
  if (reserved === undefined) return config.longLived ? ["reservedConcurrency['sign-in'] is required on a long-lived stage (signInThrottle is checked against it)"] : [];
  const peak = signInPeakConcurrency(config);
  if (peak <= reserved) return [];
  const { rateLimit, burstLimit } = config.signInThrottle;
  const memoryMb = functionMemoryMb(config, 'sign-in');
  return [
    `signInThrottle (${rateLimit} / ${burstLimit}) can keep ${round2(peak)} sign-in executions busy (${burstLimit} + ${rateLimit} × ${round2(hashSeconds(memoryMb))} s a hash at ${memoryMb} MB), ` +
      `above reservedConcurrency['sign-in'] ${reserved}: a flood would meet Lambda's throttle (5XX) instead of 429`,
  ];
}

const round2 = (value: number) => Math.round(value * 100) / 100;

/** Each function that hashes passwords, with its memory and one hash's time there (lib/config/password-hashing.ts). */
function hashingFunctions(config: Pick<StageConfig, 'lambda'>) {
  return Object.entries(PASSWORD_HASHES_PER_REQUEST).map(([group, hashes]) => {
    const memoryMb = functionMemoryMb(config, group as EndpointGroup);
    return { group: group as EndpointGroup, hashes: hashes as number, memoryMb, hashSeconds: hashSeconds(memoryMb) };
  });
}

function reservedConcurrencyProblems(reserved: StageConfig['reservedConcurrency']): string[] {
  const problems: string[] = [];
  let total = 0;
  for (const [group, value] of Object.entries(reserved)) {
    if (!ENDPOINT_GROUPS.includes(group as EndpointGroup)) problems.push(`reservedConcurrency names an unknown group ${group}`);
    if (typeof value !== 'number' || !Number.isInteger(value) || value < 1) problems.push(`reservedConcurrency.${group} must be an integer >= 1 (0 would stop the function)`);
    else total += value;
  }
  if (total > STAGE_RESERVED_CONCURRENCY_MAXIMUM) {
    problems.push(
      `reservedConcurrency reserves ${total} in all, above ${STAGE_RESERVED_CONCURRENCY_MAXIMUM} (Lambda keeps ${UNRESERVED_CONCURRENCY_MINIMUM} of the account's ${ACCOUNT_CONCURRENCY_DEFAULT} unreserved; two stages may share an account)`,
    );
  }
  return problems;
}

/** A host name of at least two labels, lowercase letters, digits and hyphens, 253 characters at most. */
const HOST_NAME = /^(?=.{4,253}$)(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z][a-z0-9-]{0,61}[a-z0-9]$/;
/** An ACM certificate ARN; the Region is checked against the stack's at deploy time (SurfaceApi's template rule). */
export const ACM_CERTIFICATE_ARN = /^arn:aws[a-z-]*:acm:([a-z]{2}(?:-[a-z]+)+-\d):\d{12}:certificate\/[0-9a-f-]{36}$/;

function customDomainProblems(domains: StageConfig['customDomains']): string[] {
  const problems: string[] = [];
  const names = new Set<string>();
  for (const [surface, domain] of Object.entries(domains)) {
    if (!domain) continue;
    if (!HOST_NAME.test(domain.name)) problems.push(`customDomains.${surface}.name ${JSON.stringify(domain.name)} is not a lowercase host name`);
    else if (/(^|\.)amazonaws\.com$|(^|\.)amazonaws\.com\.cn$/.test(domain.name)) problems.push(`customDomains.${surface}.name must be a domain the operator owns, not an AWS one`);
    if (!ACM_CERTIFICATE_ARN.test(domain.certificateArn)) {
      problems.push(`customDomains.${surface}.certificateArn ${JSON.stringify(domain.certificateArn)} is not an ACM certificate ARN (arn:aws:acm:<region>:<account>:certificate/<id>)`);
    }
    if (names.has(domain.name)) problems.push(`customDomains: ${domain.name} is given to two front doors`);
    names.add(domain.name);
  }
  return problems;
}

/** The least age of the oldest delivery message a healthy pipeline can show: SQS's longest delay plus one visibility timeout. */
export const DELIVERY_QUEUE_HEALTHY_AGE_SECONDS = SQS_MAX_DELAY_SECONDS + DELIVERY_QUEUE_VISIBILITY_SECONDS;

function alarmProblems(alarms: AlarmsConfig): string[] {
  const problems: string[] = [];
  const positiveIntegers: (keyof AlarmsConfig)[] = [
    'api5xxMinRequests',
    'p99LatencyMs',
    'lambdaErrorsThreshold',
    'lambdaThrottlesThreshold',
    'tableThrottlesThreshold',
    'wafRegionWideBlocksThreshold',
    'deadLetterMessagesThreshold',
    'stateMachineFailuresThreshold',
    'webhookFailureMinDeliveries',
    'sweptDeliveriesThreshold',
  ];
  for (const key of positiveIntegers) {
    const value = alarms[key];
    if (typeof value !== 'number' || !Number.isInteger(value) || value < 1) problems.push(`alarms.${key} must be an integer >= 1`);
  }
  for (const key of ['api5xxRatePercent', 'webhookFailureRatePercent'] as const) {
    if (!(alarms[key] > 0 && alarms[key] <= 100)) problems.push(`alarms.${key} must be a percentage above 0 and at most 100`);
  }
  if (!Number.isInteger(alarms.claimingOldestAgeSeconds) || alarms.claimingOldestAgeSeconds < CLAIMING_RECONCILIATION_BOUND_SECONDS) {
    problems.push(
      `alarms.claimingOldestAgeSeconds must be an integer of at least ${CLAIMING_RECONCILIATION_BOUND_SECONDS} (the reconciliation bound: younger claims are healthy)`,
    );
  }
  if (!Number.isInteger(alarms.deliveryQueueOldestAgeSeconds) || alarms.deliveryQueueOldestAgeSeconds <= DELIVERY_QUEUE_HEALTHY_AGE_SECONDS) {
    problems.push(
      `alarms.deliveryQueueOldestAgeSeconds must be an integer above ${DELIVERY_QUEUE_HEALTHY_AGE_SECONDS} ` +
        `(a retry delayed ${SQS_MAX_DELAY_SECONDS} s plus one ${DELIVERY_QUEUE_VISIBILITY_SECONDS} s visibility timeout is healthy)`,
    );
  }
  return problems;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function deepMerge<T>(base: T, overrides: DeepPartial<T>): T {
  const out: Record<string, unknown> = { ...(base as Record<string, unknown>) };
  for (const [key, value] of Object.entries(overrides as Record<string, unknown>)) {
    if (value === undefined) continue;
    const current = out[key];
    out[key] = isPlainObject(current) && isPlainObject(value) ? deepMerge(current, value) : value;
  }
  return out as T;
}

function deepFreeze<T>(value: T): T {
  if (isPlainObject(value)) {
    Object.values(value).forEach(deepFreeze);
    Object.freeze(value);
  }
  return value;
}
