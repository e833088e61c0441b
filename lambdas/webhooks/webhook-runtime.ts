/**
 * What the webhook code talks to besides DynamoDB, behind small interfaces:
 * the delivery queue (SQS), the retry state machine (Step Functions), the
 * sealing of callback secrets (KMS) and the guarded HTTPS sender.
 *
 * A deployed function builds the AWS adapters from its environment
 * (webhook-env.ts). The local stack hands in-process counterparts to the
 * platform instead (LocalSwitches.webhooks: local/webhook-pipeline.ts), and
 * only there can loopback receivers be allowed or waits be scaled: no
 * environment variable or setting of a deployed function reaches either.
 */
import { loadClientOnce } from '../shared/load-once';
import { traceAwsClient } from '../shared/observability/tracer';
import { perPlatform, type Platform } from '../shared/platform';
import { kmsSealerFromEnv, type Sealer } from '../shared/sealing';
import type { DeliveryMessage, RetryExecutionInput } from './delivery-schedule';
import { createWebhookSender, type SendOutcome, type WebhookRequest } from './destination/safe-sender';
import type { UrlPolicy } from './destination/url-rules';
import { WEBHOOK_ENV, WEBHOOK_SECRET_PURPOSE } from './webhook-env';
import { ATTEMPT_LEASE_MS } from './deliveries';
import { WEBHOOK_PIPELINE } from './pipeline-settings';

/** The local stack's scaled sweeper grace is never shorter than this: a queue hop takes a moment even there. */
const MIN_SCALED_GRACE_MS = 2000;

/** The sweeper's grace at a wait scale (1 in AWS: 5 minutes; the local stack's `--webhook-wait-scale` shortens it with the waits). */
export const sweepGraceMs = (waitScale = 1) => {
  const grace = WEBHOOK_PIPELINE.sweeper.graceSeconds * 1000;
  return waitScale === 1 ? grace : Math.max(MIN_SCALED_GRACE_MS, grace * waitScale);
};

/** The delivery queue: one message per attempt, delayed up to SQS's 15 minutes. */
export interface DeliveryQueue {
  send(message: DeliveryMessage, delaySeconds: number): Promise<void>;
}

/** The delivery queue as its consumer sees it: when a received message comes back. */
export interface MessageVisibility {
  /** ChangeMessageVisibility: the received message (by its receipt handle) becomes visible again after `seconds`. */
  change(receiptHandle: string, seconds: number): Promise<void>;
}

/** The retry state machine: hold `input.message` for `input.wait_seconds`, then queue it. `name` makes a start idempotent. */
export interface RetryScheduler {
  schedule(name: string, input: RetryExecutionInput): Promise<void>;
}

/** The encryption context of a sealed secret: a sealed value opens only for its own callback. */
export interface SealContext {
  readonly webhookId: string;
  readonly partnerId: string;
}

/** Seals a callback's signing secret for storage and opens it for signing. */
export interface SecretSealer {
  seal(secret: string, context: SealContext): Promise<string>;
  open(sealed: string, context: SealContext): Promise<string>;
}

declare module '../shared/platform' {
  interface LocalSwitches {
    /** The local webhook pipeline's queue, state machine runner and secret sealer, and its local-only options. */
    readonly webhooks?: WebhookLocalSwitches;
  }
}

/** The local stack's counterparts (local/webhook-pipeline.ts); never present in a deployed function. */
export interface WebhookLocalSwitches {
  readonly queue: DeliveryQueue;
  readonly visibility: MessageVisibility;
  readonly scheduler: RetryScheduler;
  readonly sealer: SecretSealer;
  /** `--allow-local-webhooks`: callbacks may point at https://127.0.0.1:<port> or https://localhost:<port>. */
  readonly allowLocalWebhooks: boolean;
  /** The ports the local stack serves on (its front), known once it listens: never a callback's, even with `allowLocalWebhooks`. */
  readonly ownPorts?: () => readonly number[];
  /** `--webhook-wait-scale F`: retry waits multiplied by F. */
  readonly waitScale: number;
  /** Tests only: the sender's name resolution (an unresolvable name, say). */
  readonly resolve?: (host: string) => Promise<readonly string[]>;
  /** Tests only: the attempt timeout (default 8 s). */
  readonly timeoutMs?: number;
  /** Tests only: how long a claimed attempt is its worker's (default ATTEMPT_LEASE_MS, 45 s): a dead worker's attempt is taken over sooner. */
  readonly attemptLeaseMs?: number;
  /**
   * Tests only: the sweeper's grace (default: 5 min × the wait scale, at least 2 s). Fault tests keep it longer than an
   * attempt's lease and backoff, as deployed, so that what the worker recovers by itself is not the sweeper's doing.
   */
  readonly sweepGraceMs?: number;
  /** Tests only: wraps the HTTPS sender (fault injection: local/fault-injection.ts). */
  readonly wrapSend?: (send: WebhookRuntime['send']) => WebhookRuntime['send'];
}

export interface WebhookRuntime {
  readonly queue: DeliveryQueue;
  readonly visibility: MessageVisibility;
  readonly scheduler: RetryScheduler;
  readonly sealer: SecretSealer;
  readonly policy: UrlPolicy;
  readonly waitScale: number;
  /** How long a claimed attempt is its worker's before another may take it over. */
  readonly attemptLeaseMs: number;
  /** How far past its due time an open delivery must be before the sweeper queues it again. */
  readonly sweepGraceMs: number;
  send(request: WebhookRequest): Promise<SendOutcome>;
}

/** A delivery attempt gets 8 seconds (the spec's timeout), name resolution, connection and response included. */
export const ATTEMPT_TIMEOUT_MS = 8000;

/** The encryption context KMS binds a sealed secret to (the IAM policies condition on `purpose`). */
export const sealContextOf = (context: SealContext) => ({ purpose: WEBHOOK_SECRET_PURPOSE, webhook_id: context.webhookId, partner_id: context.partnerId });

/** A callback's signing secret sealed by the stage's sealer (lambdas/shared/sealing.ts) under the callback's context. */
export function webhookSecretSealer(sealer: Sealer): SecretSealer {
  return {
    seal: (secret, context) => sealer.seal(secret, sealContextOf(context)),
    open: (sealed, context) => sealer.open(sealed, sealContextOf(context)),
  };
}

/** The SQS and Step Functions clients' modules, loaded on first use (not at a cold start); the container's clients traced. */
const sqsModule = loadClientOnce(
  () => import('@aws-sdk/client-sqs'),
  (module) => traceAwsClient(new module.SQSClient({})),
);
const sfnModule = loadClientOnce(
  () => import('@aws-sdk/client-sfn'),
  (module) => traceAwsClient(new module.SFNClient({})),
);

class SqsDeliveryQueue implements DeliveryQueue, MessageVisibility {
  constructor(private readonly queueUrl: string) {}

  async change(receiptHandle: string, seconds: number): Promise<void> {
    const { module, client } = await sqsModule();
    await client.send(new module.ChangeMessageVisibilityCommand({ QueueUrl: this.queueUrl, ReceiptHandle: receiptHandle, VisibilityTimeout: Math.max(0, Math.min(43_200, Math.ceil(seconds))) }));
  }

  async send(message: DeliveryMessage, delaySeconds: number): Promise<void> {
    const { module, client } = await sqsModule();
    await client.send(new module.SendMessageCommand({ QueueUrl: this.queueUrl, MessageBody: JSON.stringify(message), DelaySeconds: Math.max(0, Math.min(900, Math.ceil(delaySeconds))) }));
  }
}

class StepFunctionsScheduler implements RetryScheduler {
  constructor(private readonly stateMachineArn: string) {}

  async schedule(name: string, input: RetryExecutionInput): Promise<void> {
    try {
      const { module, client } = await sfnModule();
      await client.send(new module.StartExecutionCommand({ stateMachineArn: this.stateMachineArn, name, input: JSON.stringify(input) }));
    } catch (error) {
      // The name is one attempt of one callback's delivery (delivery-worker.ts retryExecutionName): an execution of that
      // name already ran or runs, so this attempt is already scheduled. Should that execution have failed to queue it,
      // the delivery is overdue and the sweeper (delivery-sweeper.ts) queues it again.
      if ((error as { name?: string }).name === 'ExecutionAlreadyExists') return;
      throw error;
    }
  }
}

class MissingConfiguration implements DeliveryQueue, MessageVisibility, RetryScheduler {
  constructor(private readonly what: string) {}
  private fail(): never {
    throw new Error(`Webhooks are not configured in this function: ${this.what} is not set`);
  }
  async send(): Promise<void> {
    this.fail();
  }
  async change(): Promise<void> {
    this.fail();
  }
  async schedule(): Promise<void> {
    this.fail();
  }
}

const forbiddenHostsFromEnv = (env: NodeJS.ProcessEnv) =>
  (env[WEBHOOK_ENV.forbiddenHosts] ?? '')
    .split(',')
    .map((host) => host.trim().toLowerCase())
    .filter(Boolean);

/** The container's webhook runtime: the local stack's switches when present, else AWS adapters from the environment. */
export const webhookRuntimeOf = perPlatform((platform: Platform): WebhookRuntime => buildRuntime(platform, process.env));

export function buildRuntime(platform: Pick<Platform, 'localSwitches'>, env: NodeJS.ProcessEnv): WebhookRuntime {
  const local = platform.localSwitches?.webhooks;
  const forbiddenHosts = forbiddenHostsFromEnv(env);
  if (local) {
    const ownPorts = local.ownPorts ?? (() => []);
    // A getter: the front listens (and learns its port) after the runtime is built.
    const policy: UrlPolicy = {
      forbiddenHosts,
      allowLocal: local.allowLocalWebhooks,
      get ownLocalPorts() {
        return ownPorts();
      },
    };
    const send = createWebhookSender({ policy, timeoutMs: local.timeoutMs ?? ATTEMPT_TIMEOUT_MS, ...(local.resolve ? { resolve: local.resolve } : {}) });
    return {
      queue: local.queue,
      visibility: local.visibility,
      scheduler: local.scheduler,
      // The local stack's one sealer, which checks the invoking function's key uses (the worker's or this function's).
      sealer: local.sealer,
      policy,
      waitScale: local.waitScale,
      attemptLeaseMs: local.attemptLeaseMs ?? ATTEMPT_LEASE_MS,
      sweepGraceMs: local.sweepGraceMs ?? sweepGraceMs(local.waitScale),
      send: local.wrapSend ? local.wrapSend(send) : send,
    };
  }
  // A deployed function: never loopback, never scaled. Its AWS clients are traced (built on first use, inside an invocation: tracer.ts).
  const policy: UrlPolicy = { forbiddenHosts, allowLocal: false };
  const queueUrl = env[WEBHOOK_ENV.queueUrl];
  const stateMachineArn = env[WEBHOOK_ENV.retryStateMachineArn];
  const queue = queueUrl ? new SqsDeliveryQueue(queueUrl) : new MissingConfiguration(WEBHOOK_ENV.queueUrl);
  return {
    queue,
    visibility: queue,
    scheduler: stateMachineArn ? new StepFunctionsScheduler(stateMachineArn) : new MissingConfiguration(WEBHOOK_ENV.retryStateMachineArn),
    sealer: webhookSecretSealer(kmsSealerFromEnv(env, WEBHOOK_ENV.secretKeyArn)),
    policy,
    waitScale: 1,
    attemptLeaseMs: ATTEMPT_LEASE_MS,
    sweepGraceMs: sweepGraceMs(1),
    send: createWebhookSender({ policy, timeoutMs: ATTEMPT_TIMEOUT_MS }),
  };
}
