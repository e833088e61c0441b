/**
 * Per-stage configuration of the infrastructure: one base object plus small
 * overrides for the long-lived stages. Any other valid stage name is an
 * ephemeral stage (a pull request, a developer sandbox) and gets the base
 * unchanged, so the base is deliberately the cheap, disposable setting:
 * destroy on delete, short log retention, no alarms.
 *
 * The values are plain data (no CDK types) so that they can be unit tested
 * and printed in docs/infrastructure.md.
 */

import type { Surface } from '../../lambdas/shared/http/routes';

export type RemovalMode = 'destroy' | 'retain';
export type LogLevel = 'DEBUG' | 'INFO' | 'WARN' | 'ERROR';
/** Retention periods CloudWatch Logs accepts (a subset; extend when needed). */
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

export interface AlarmsConfig {
  readonly enabled: boolean;
  /** API Gateway 5XXError count over 5 minutes that raises the alarm. */
  readonly api5xxThreshold: number;
  /** API Gateway p99 Latency (ms) over 5 minutes that raises the alarm. */
  readonly p99LatencyMs: number;
  /** Lambda Errors count per function over 5 minutes that raises the alarm. */
  readonly lambdaErrorsThreshold: number;
  /** When set, an SNS topic with this e-mail subscription receives alarm and OK notifications. */
  readonly notifyEmail?: string;
}

export interface LambdaConfig {
  readonly memoryMb: number;
  /** Must stay below API Gateway's 29 s integration timeout. */
  readonly timeoutSeconds: number;
}

export interface StageConfig {
  readonly stage: string;
  /** `true` for dev, staging and prod; `false` for every ephemeral stage. */
  readonly longLived: boolean;
  readonly removalPolicy: RemovalMode;
  readonly pointInTimeRecovery: boolean;
  readonly deletionProtection: boolean;
  readonly logRetentionDays: LogRetentionDays;
  readonly logLevel: LogLevel;
  /** X-Ray active tracing on the functions and the API stage. */
  readonly tracing: boolean;
  /**
   * Whether this stage's stack sets the account-level API Gateway CloudWatch
   * Logs role (AWS::ApiGateway::Account). Access logging fails to deploy in an
   * account/region where the role was never set; the setting is account-wide,
   * so only long-lived stages own it and ephemeral stages rely on it.
   */
  readonly apiGatewayAccountLogRole: boolean;
  /**
   * Per front door (lib/config/surfaces.ts): the partner API's and the web side's stages throttle
   * apart, so a browser crowd on the player site cannot spend the partners' buckets, nor the reverse.
   */
  readonly apiThrottle: Readonly<Record<Surface, ApiThrottleConfig>>;
  readonly alarms: AlarmsConfig;
  readonly lambda: LambdaConfig;
}

/** Stage names: lowercase letter first, then lowercase letters, digits or hyphens, 20 characters at most. */
export const STAGE_NAME_PATTERN = /^[a-z][a-z0-9-]{0,19}$/;

/** API Gateway stops waiting for a Lambda integration after 29 seconds (default quota). */
export const API_INTEGRATION_TIMEOUT_SECONDS = 29;

const BASE: Omit<StageConfig, 'stage' | 'longLived'> = {
  removalPolicy: 'destroy',
  pointInTimeRecovery: false,
  deletionProtection: false,
  logRetentionDays: 7,
  logLevel: 'INFO',
  tracing: true,
  apiGatewayAccountLogRole: false,
  apiThrottle: {
    partner: { rateLimit: 25, burstLimit: 50 },
    web: { rateLimit: 10, burstLimit: 20 },
  },
  alarms: {
    enabled: false,
    api5xxThreshold: 5,
    p99LatencyMs: 3000,
    lambdaErrorsThreshold: 5,
  },
  lambda: { memoryMb: 512, timeoutSeconds: 10 },
};

type DeepPartial<T> = { readonly [K in keyof T]?: T[K] extends object ? DeepPartial<T[K]> : T[K] };
type StageOverrides = DeepPartial<Omit<StageConfig, 'stage' | 'longLived'>>;

export const LONG_LIVED_STAGES = ['dev', 'staging', 'prod'] as const;
export type LongLivedStage = (typeof LONG_LIVED_STAGES)[number];

const OVERRIDES: Record<LongLivedStage, StageOverrides> = {
  dev: {
    logLevel: 'DEBUG',
    apiGatewayAccountLogRole: true,
  },
  staging: {
    removalPolicy: 'retain',
    pointInTimeRecovery: true,
    logRetentionDays: 30,
    apiGatewayAccountLogRole: true,
    apiThrottle: { partner: { rateLimit: 50, burstLimit: 100 }, web: { rateLimit: 25, burstLimit: 50 } },
    alarms: { enabled: true },
  },
  prod: {
    removalPolicy: 'retain',
    pointInTimeRecovery: true,
    deletionProtection: true,
    logRetentionDays: 30,
    apiGatewayAccountLogRole: true,
    apiThrottle: { partner: { rateLimit: 200, burstLimit: 400 }, web: { rateLimit: 100, burstLimit: 200 } },
    alarms: { enabled: true, p99LatencyMs: 2000 },
  },
};

export class StageConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'StageConfigError';
  }
}

export interface ResolveOptions {
  /** Alarm e-mail, e.g. from `-c notifyEmail=ops@example.com`; ignored when alarms are disabled. */
  readonly notifyEmail?: string;
}

/** The configuration of a stage: the base merged with the stage's overrides. Throws on invalid names or values. */
export function resolveStageConfig(name: string, options: ResolveOptions = {}): StageConfig {
  if (typeof name !== 'string' || !STAGE_NAME_PATTERN.test(name)) {
    throw new StageConfigError(
      `Invalid stage name ${JSON.stringify(name)}: use 1-20 characters, a lowercase letter first, ` +
        `then lowercase letters, digits or hyphens (e.g. dev, prod, pr-123).`,
    );
  }
  const longLived = (LONG_LIVED_STAGES as readonly string[]).includes(name);
  const overrides: StageOverrides = longLived ? OVERRIDES[name as LongLivedStage] : {};
  const merged = deepMerge(BASE, overrides);
  const config: StageConfig = {
    ...merged,
    stage: name,
    longLived,
    alarms: { ...merged.alarms, ...(options.notifyEmail ? { notifyEmail: options.notifyEmail } : {}) },
  };
  validate(config);
  return deepFreeze(config);
}

function validate(config: StageConfig): void {
  const problems: string[] = [];
  const { lambda, apiThrottle, alarms } = config;
  if (!Number.isInteger(lambda.timeoutSeconds) || lambda.timeoutSeconds < 1 || lambda.timeoutSeconds >= API_INTEGRATION_TIMEOUT_SECONDS) {
    problems.push(`lambda.timeoutSeconds must be an integer from 1 to ${API_INTEGRATION_TIMEOUT_SECONDS - 1} (API Gateway gives up at ${API_INTEGRATION_TIMEOUT_SECONDS} s)`);
  }
  if (!Number.isInteger(lambda.memoryMb) || lambda.memoryMb < 128 || lambda.memoryMb > 10240) {
    problems.push('lambda.memoryMb must be an integer from 128 to 10240');
  }
  for (const [surface, throttle] of Object.entries(apiThrottle)) {
    if (!(throttle.rateLimit > 0) || !Number.isInteger(throttle.burstLimit) || throttle.burstLimit < 1) {
      problems.push(`apiThrottle.${surface} needs rateLimit > 0 and an integer burstLimit >= 1`);
    }
  }
  if (alarms.notifyEmail !== undefined && !/^[^@\s]+@[^@\s]+\.[^@\s]+$/.test(alarms.notifyEmail)) {
    problems.push(`alarms.notifyEmail ${JSON.stringify(alarms.notifyEmail)} is not an e-mail address`);
  }
  if (config.deletionProtection && config.removalPolicy !== 'retain') {
    problems.push('deletionProtection requires removalPolicy retain');
  }
  if (problems.length > 0) {
    throw new StageConfigError(`Invalid configuration for stage ${config.stage}: ${problems.join('; ')}`);
  }
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
