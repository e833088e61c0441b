/**
 * The webhook callbacks' operations in web settings: thin adapters from the
 * pipeline's parsed input to the callbacks and deliveries (callbacks.ts,
 * deliveries.ts) and to one request to the receiver (attempt.ts). The
 * pipeline has already refused API keys and cross-site requests, checked the
 * session, and counted every limit of the call in one decision: the
 * account's, and through `webhookAdmissionHolders` the callback's, its
 * organization's and a resent delivery's.
 */
import { createBackOffice } from '../back-office/back-office';
import { BackOfficeError } from '../back-office/errors';
import { ApiError } from '../shared/errors';
import { viewRead, type AdmissionHolders, type GroupViewReads, type SettingsOperationInput as OperationInput, type SettingsSession, type ViewReads } from '../settings/settings-pipeline';
import { optionalIdempotencyKey, prefetchIdempotencyKey } from '../settings/idempotency-key';
import { reChecked } from '../settings/re-check';
import { prefetchedOr, type GroupOperations, type GroupPrefetch, type InputWithPath, type OperationOf, type Prefetch } from '../shared/http/pipeline';
import { logger } from '../shared/observability/logger';
import { perPlatform } from '../shared/platform';
import { sealerOf } from '../shared/sealing';
import { requireTable } from '../shared/storage/table-names';
import { controlEvent, post, verificationResult, deliveryResult } from './attempt';
import { deactivatedAs, isEarlierCallbackCreation, viewOf, type CallbackCreation, type EarlierCallbackCreation } from './callbacks';
import { deliveryView, resendEntryName, resentItem, unstartedResend } from './deliveries';
import { checkWebhookUrl, type UrlPolicy } from './destination/url-rules';
import { newWebhookSecret } from './signing';
import { webhookServicesOf } from './services';
import {
  DELIVERY_ID_PATTERN,
  deliveryLimitsKey,
  newWebhookId,
  organizationWebhookLimitsKey,
  WEBHOOK_ID_PATTERN,
  webhookLimitsKey,
  type DeactivationReason,
  type WebhookItem,
} from './webhook-items';
import { revokeCallback } from './delivery-worker';
import type { WEBHOOK_CONTRACTS } from './webhook-contracts';

/** Each operation is typed by its route's contract (webhook-contracts.ts): its parsed input, the data it may answer. */
type Contracts = typeof WEBHOOK_CONTRACTS;

/** The back office of this function: its re-checks open a two-factor seed, with this function's own sealer and grants. */
const officeOf = perPlatform((platform) => createBackOffice(platform.documentClient, requireTable(platform.tables, 'access'), platform.clock, undefined, () => sealerOf(platform)));

const sessionOf = (input: OperationInput): SettingsSession => input.session as SettingsSession;
const sourceOf = (input: OperationInput) => ({ via: 'settings' as const, sourceIp: input.sourceIp });

/**
 * What a webhook call counts on besides the account: the callback (verify, test, resend), its
 * organization (the same), and the delivery (resend). Found from the account's own entry of the
 * callback: another account's callback, or an unknown one, adds nothing (the operation answers 404).
 */
export const webhookAdmissionHolders: AdmissionHolders = async ({ route, pathParameters, session, platform }) => {
  if (route.category !== 'settings-webhook-check' && route.category !== 'settings-webhook-resend') return [];
  const webhookId = pathParameters.webhook_id;
  if (!webhookId || !WEBHOOK_ID_PATTERN.test(webhookId)) return [];
  const partnerId = await webhookServicesOf(platform).callbacks.partnerOfOwned(session.accountId, webhookId);
  if (!partnerId) return [];
  const deliveryId = pathParameters.delivery_id;
  return [
    { holder: 'webhook', key: webhookLimitsKey(webhookId) },
    { holder: 'webhook-organization', key: organizationWebhookLimitsKey(partnerId) },
    ...(route.category === 'settings-webhook-resend' && deliveryId && DELIVERY_ID_PATTERN.test(deliveryId)
      ? [{ holder: 'webhook-delivery-record' as const, key: deliveryLimitsKey(webhookId, deliveryId) }]
      : []),
  ];
};

/** The request's own host is the service's too: a callback never points back at it (locally: its port on loopback). */
function policyFor(input: OperationInput): UrlPolicy {
  const { policy } = webhookServicesOf(input.platform).runtime;
  const [host, port] = (input.headers.get('host')?.[0] ?? '').toLowerCase().split(':');
  if (!host) return policy;
  if (!policy.allowLocal) return { ...policy, forbiddenHosts: [...policy.forbiddenHosts, host] };
  return port && /^\d+$/.test(port) ? { ...policy, ownLocalPorts: [...(policy.ownLocalPorts ?? []), Number(port)] } : policy;
}

/** The callback list's reads, which the pipeline starts beside its admission (settings-pipeline.ts ViewReads). */
const callbackReads: ViewReads<Awaited<ReturnType<ReturnType<typeof webhookServicesOf>['callbacks']['listOfAccount']>>> = (session, platform) =>
  webhookServicesOf(platform).callbacks.listOfAccount(session.accountId);

export const WEBHOOK_VIEW_READS = { webhooks: callbackReads } satisfies GroupViewReads<Contracts>;

const listOperation: OperationOf<Contracts, 'webhooks', OperationInput> = async (input) => ({
  data: { webhooks: await viewRead(input, callbackReads) },
});

/** The callback creation's earlier attempt with the request's Idempotency-Key (the account's callback entries), read beside its admission. */
const prefetchCreation: Prefetch<SettingsSession> = ({ event, caller, platform }) => {
  const idempotencyKey = prefetchIdempotencyKey(event.headers);
  return idempotencyKey ? webhookServicesOf(platform).callbacks.earlierCreation(caller.accountId, idempotencyKey) : undefined;
};

export const WEBHOOK_PREFETCH = { 'webhook-create': prefetchCreation } satisfies GroupPrefetch<Contracts, SettingsSession>;

/** 201 with the new callback and its secret; 200 with the callback an earlier attempt of the same request created, without it. */
function creationAnswer(creation: CallbackCreation, secret: string | null) {
  if (creation.outcome === 'conflict') throw new ApiError('IDEMPOTENCY_CONFLICT');
  const replayed = creation.outcome === 'replayed';
  return { status: replayed ? 200 : 201, data: { webhook: creation.webhook, secret: replayed ? null : secret, replayed } };
}

const createOperation: OperationOf<Contracts, 'webhook-create', OperationInput> = async (input) => {
  const { body } = input;
  const { accountId } = sessionOf(input);
  const checked = checkWebhookUrl(body.url, policyFor(input));
  if (!checked.ok) throw new ApiError('INVALID_WEBHOOK_URL');
  const url = checked.url.toString();
  const idempotencyKey = optionalIdempotencyKey(input.headers);
  const services = webhookServicesOf(input.platform);
  // An earlier attempt of this request is answered before the re-check: the answer shows no secret (that was shown
  // once), nothing the session cannot list, and a retry needs no second two-factor code (the first was used).
  if (idempotencyKey) {
    const ours = (read: unknown): read is EarlierCallbackCreation => isEarlierCallbackCreation(read) && read.idempotencyKey === idempotencyKey && read.accountId === accountId;
    const earlier = await prefetchedOr(input, () => services.callbacks.earlierCreation(accountId, idempotencyKey), ours);
    const replayed = earlier.entry && (await services.callbacks.replay(earlier.entry, body.partner_id, url));
    if (replayed) return creationAnswer(replayed, null);
  }
  const office = officeOf(input.platform);
  try {
    // Counted on the account's change quotas once the password (and code) passed; a wrong one is recorded (re-check.ts).
    await reChecked(input, office, async (accepted) => {
      await office.signIn.confirm(accountId, body.password, body.two_factor_code);
      await accepted();
    });
  } catch (error) {
    if (error instanceof BackOfficeError && (error.code === 'INVALID_PASSWORD' || error.code === 'INVALID_TWO_FACTOR')) throw new ApiError(error.code, error.message);
    if (error instanceof BackOfficeError && error.code === 'ACCOUNT_NOT_FOUND') throw new ApiError('SESSION_REQUIRED');
    throw error;
  }
  const webhookId = newWebhookId();
  const secret = newWebhookSecret();
  const sealedSecret = await services.runtime.sealer.seal(secret, { webhookId, partnerId: body.partner_id });
  const creation = await services.callbacks.create({
    webhookId,
    accountId,
    partnerId: body.partner_id,
    url,
    host: checked.host,
    sealedSecret,
    source: sourceOf(input),
    idempotencyKey,
  });
  return creationAnswer(creation, secret);
};

type CallbackInput = InputWithPath<'webhook_id', OperationInput>;

/** The path's callback if it is the caller's (WEBHOOK_NOT_FOUND otherwise), with its creator's standing. */
const ownedCallback = (input: CallbackInput) => webhookServicesOf(input.platform).callbacks.owned(sessionOf(input).accountId, input.pathParameters.webhook_id);

/** The caller's callback, usable for a request to its receiver: deactivated ones (and lost authority, persisted now) answer 409. */
async function usableCallback(input: CallbackInput): Promise<WebhookItem> {
  const services = webhookServicesOf(input.platform);
  const { item, standing } = await ownedCallback(input);
  if (item.status === 'deactivated') throw new ApiError('WEBHOOK_INACTIVE');
  if (!standing.usable) {
    await revokeCallback(item, standing.reason as DeactivationReason, services);
    throw new ApiError('WEBHOOK_INACTIVE');
  }
  return item;
}

const verifyOperation: OperationOf<Contracts, 'webhook-verify', OperationInput> = async (input) => {
  const services = webhookServicesOf(input.platform);
  const item = await usableCallback(input);
  const now = input.platform.clock();
  const { envelope, challenge } = controlEvent(item.partner_id, now, 'webhook.verification');
  const body = JSON.stringify(envelope);
  const outcome = await post(services.runtime, { url: item.url, secret: await services.secretOf(item) }, String(envelope.id), body, now);
  const result = verificationResult(outcome, challenge as string);
  const report = {
    at: now.toISOString(),
    result: result.passed ? ('verified' as const) : ('failed' as const),
    ...(result.passed ? {} : { failure_reason: result.reason }),
    ...(result.httpStatus !== undefined ? { http_status: result.httpStatus } : {}),
  };
  const updated = result.passed ? await services.callbacks.activate(item, report, sourceOf(input)) : await services.callbacks.recordVerification(item, report);
  return {
    data: {
      webhook: viewOf(updated, { usable: true }),
      verification: { result: report.result, failure_reason: result.passed ? null : result.reason, http_status: result.httpStatus ?? null },
    },
  };
};

const testOperation: OperationOf<Contracts, 'webhook-test', OperationInput> = async (input) => {
  const services = webhookServicesOf(input.platform);
  const item = await usableCallback(input);
  if (item.status !== 'active') throw new ApiError('WEBHOOK_NOT_VERIFIED');
  const now = input.platform.clock();
  const { envelope } = controlEvent(item.partner_id, now, 'webhook.test');
  // The manager's trace of the test, written beside the request (nothing stored changes).
  const [outcome] = await Promise.all([
    post(services.runtime, { url: item.url, secret: await services.secretOf(item) }, String(envelope.id), JSON.stringify(envelope), now),
    officeOf(input.platform).audit.record(sessionOf(input).accountId, 'webhook.tested', sourceOf(input), { webhook_id: item.webhook_id }),
  ]);
  const result = deliveryResult(outcome);
  return {
    data: {
      webhook: viewOf(item, { usable: true }),
      test: { result: result.delivered ? 'delivered' : 'failed', failure_reason: result.delivered ? null : result.reason, http_status: result.httpStatus ?? null },
    },
  };
};

const deactivateOperation: OperationOf<Contracts, 'webhook-deactivate', OperationInput> = async (input) => {
  const services = webhookServicesOf(input.platform);
  const { item, standing } = await ownedCallback(input);
  const at = await services.callbacks.deactivate(item, 'deactivated_by_creator', sourceOf(input));
  const cancelled = at ? await services.deliveries.cancelOpen(item.webhook_id, undefined) : 0;
  // Deactivated now: as written; already deactivated: as read.
  return { data: { webhook: viewOf(at ? deactivatedAs(item, at, 'deactivated_by_creator') : item, standing), cancelled_deliveries: cancelled } };
};

const deliveriesOperation: OperationOf<Contracts, 'webhook-deliveries', OperationInput> = async (input) => {
  const services = webhookServicesOf(input.platform);
  const { item, standing } = await ownedCallback(input);
  const deliveries = await services.deliveries.latest(item.webhook_id);
  return { data: { webhook: viewOf(item, standing), deliveries: deliveries.map(deliveryView) } };
};

/**
 * A resend, made once for the caller's retries too: a retry after an answer it lost (the write made, every answer lost,
 * or the function dead after it) meets the resend on the record, not yet started, and finishes it (unstartedResend). So
 * the steps after the write can each be made again: the audit entry names itself after the resend (the same item when
 * written again) and comes before the first attempt is queued (a queued attempt may start at once, after which the
 * resend is no longer found unstarted); a second message of the same attempt is dropped by the worker's claim. If the
 * first attempt cannot be queued the answer is that error, and the resend stands: the retry (or the sweeper, a grace
 * later) queues it.
 */
const resendOperation: OperationOf<Contracts, 'webhook-resend', OperationInput> = async (input) => {
  const services = webhookServicesOf(input.platform);
  const item = await usableCallback(input);
  if (item.status !== 'active') throw new ApiError('WEBHOOK_NOT_VERIFIED');
  const delivery = await services.deliveries.get(item.webhook_id, input.pathParameters.delivery_id);
  if (!delivery) throw new ApiError('DELIVERY_NOT_FOUND');
  let resend = unstartedResend(delivery);
  let after = delivery;
  if (!resend) {
    const at = input.platform.clock();
    const resent = await services.deliveries.resend(delivery, at);
    if (resent === 'in-progress' || resent === 'moved') throw new ApiError('DELIVERY_IN_PROGRESS');
    resend = { generation: resent.generation, at: at.toISOString() };
    after = resentItem(delivery, resend.at);
  }
  const details = { webhook_id: item.webhook_id, delivery_id: delivery.delivery_id };
  await officeOf(input.platform).audit.record(sessionOf(input).accountId, 'webhook.resent', sourceOf(input), details, resendEntryName(delivery, resend));
  const [, now] = await Promise.all([
    services.runtime.queue.send(
      { v: 1, partner_id: item.partner_id, webhook_id: item.webhook_id, account_id: item.account_id, delivery_id: delivery.delivery_id, attempt: 1, generation: resend.generation },
      0,
    ),
    // For the view only: the resend is made and its attempt queued, so a read that fails answers the state the resend
    // left rather than an error (whose retry, after the attempt ran, would resend a second time).
    services.deliveries.get(item.webhook_id, delivery.delivery_id).catch((error: unknown) => {
      logger.warn('resend made; its delivery not read again for the answer', { error });
      return undefined;
    }),
  ]);
  return { data: { delivery: deliveryView(now ?? after) } };
};

/** The group's operations by route id: the handler serves this table, loaded off the cold start. */
export const WEBHOOK_OPERATIONS = {
  webhooks: listOperation,
  'webhook-create': createOperation,
  'webhook-verify': verifyOperation,
  'webhook-test': testOperation,
  'webhook-deactivate': deactivateOperation,
  'webhook-deliveries': deliveriesOperation,
  'webhook-resend': resendOperation,
} satisfies GroupOperations<Contracts, OperationInput>;
