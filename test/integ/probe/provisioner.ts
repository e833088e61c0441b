/**
 * The integration test's provisioner: what a team does first on a new stage, with the project's own code, invoked by
 * the assertions (test/integ/integ.partner-api.ts).
 *
 * - `onboard`: the operator's first account, organization and organization key, made by the back office exactly as
 *   the admin CLI makes them on `--stage` (docs/operations.md, "The first account, organization and key"); then the
 *   organization's manager registers the test's receiver as a webhook callback the way a user does, in web settings
 *   through the stage's web front door (signed in, the callback created with the password, verified: the receiver
 *   answers the signed challenge with the secret web settings showed once).
 * - `record`: the operator records a screening for the organization (`record put`), whose `record.created` event the
 *   webhook pipeline delivers to the callback.
 */
import { randomBytes } from 'node:crypto';
import { createBackOffice, type BackOffice } from '../../../lambdas/back-office/back-office';
import { createDocumentClient } from '../../../lambdas/shared/storage/dynamo-client';
import { tableEnvName } from '../../../lambdas/shared/storage/table-definitions';
import { dynamoProbeStore, type ProbeStore } from './probe-store';
import { requiredEnv } from './receiver';

/** What the test's key may do: the checks read `/me` only. */
export const PROBE_KEY_SCOPES = ['public:read', 'records:read'];

export interface Onboarded {
  readonly account_id: string;
  readonly partner_id: string;
  readonly key_id: string;
  /** Shown once, like the admin CLI's `key create`; valid for a day, and gone with the stage's tables. */
  readonly key: string;
  readonly webhook_id: string;
}

export interface OnboardingInput {
  readonly office: BackOffice;
  /** The web side's base URL (the stage's `WebBaseUrl` output, `…/v1`). */
  readonly webBaseUrl: string;
  /** The callback address to register (the receiver's function URL). */
  readonly receiverUrl: string;
  readonly store: ProbeStore;
}

export async function onboard({ office, webBaseUrl, receiverUrl, store }: OnboardingInput): Promise<Onboarded> {
  const email = `integ-${randomBytes(6).toString('hex')}@example.com`;
  const password = randomBytes(24).toString('base64url');
  const { account_id } = await office.accounts.create('Integration test manager', { email, password });
  const { partner_id } = await office.organizations.create('Integration test organization');
  await office.memberships.set(partner_id, account_id, 'manager');
  const { key_id, key } = await office.keys.create({ accountId: account_id, partnerId: partner_id, scopes: PROBE_KEY_SCOPES, days: 1 });

  const settings = new SettingsSession(webBaseUrl);
  await settings.post('/settings/api/session', { email, password }, 200);
  const created = (await settings.post('/settings/api/webhooks', { partner_id, url: receiverUrl, password }, 201)) as { webhook: { webhook_id: string }; secret: string };
  const webhook_id = created.webhook.webhook_id;
  // The receiver needs the secret before the verification it is about to answer.
  await store.saveCallback({ secret: created.secret, partnerId: partner_id, webhookId: webhook_id });
  const { verification } = (await settings.post(`/settings/api/webhooks/${webhook_id}/verify`, undefined, 200)) as {
    verification: { result: string; failure_reason: string | null; http_status: number | null };
  };
  if (verification.result !== 'verified') {
    throw new Error(`the callback was not verified: ${verification.result}, ${verification.failure_reason ?? 'no reason'} (receiver answered ${verification.http_status ?? 'nothing'})`);
  }
  return { account_id, partner_id, key_id, key, webhook_id };
}

/** A screening record for the organization, as `record put` makes it (not public): its `record.created` event's id. */
export async function recordEvent(office: BackOffice, partnerId: string, now = new Date()): Promise<string> {
  const serial = String(now.getTime() % 1e12).padStart(12, '0');
  const recorded = await office.records!.put(partnerId, {
    uuid: `USS-${serial.slice(0, 8)}-INTEG${serial.slice(5)}`,
    player_name: 'Integration test',
    game_category: 'FPS',
    game: 'Valorant',
    checked_at: now.toISOString(),
    result: 'clean',
    checker_name: 'integ-runner',
    public: false,
  });
  return recorded.event_id;
}

/**
 * Web settings as its page calls it: JSON bodies, the page's own Origin and `X-Settings-Request: 1` (the CSRF checks),
 * the session cookie kept from the sign-in, and a User-Agent (the web side's web ACL blocks requests without one).
 */
class SettingsSession {
  private cookie: string | undefined;

  constructor(private readonly baseUrl: string) {}

  async post(path: string, body: unknown, expectedStatus: number): Promise<unknown> {
    const response = await fetch(`${this.baseUrl}${path}`, {
      method: 'POST',
      headers: {
        Origin: new URL(this.baseUrl).origin,
        'X-Settings-Request': '1',
        'User-Agent': 'partner-api-integ-probe/1.0',
        ...(body === undefined ? {} : { 'Content-Type': 'application/json' }),
        ...(this.cookie ? { Cookie: this.cookie } : {}),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const session = response.headers.getSetCookie().find((cookie) => cookie.startsWith('settings_session='));
    if (session) this.cookie = session.split(';')[0];
    const text = await response.text();
    if (response.status !== expectedStatus) throw new Error(`POST ${path} answered ${response.status}, not ${expectedStatus}: ${text.slice(0, 300)}`);
    return JSON.parse(text) as unknown;
  }
}

export type ProvisionerEvent = { readonly step: 'onboard'; readonly web_base_url: string } | { readonly step: 'record'; readonly partner_id: string };

export async function handler(event: ProvisionerEvent): Promise<Onboarded | { event_id: string }> {
  const office = createBackOffice(createDocumentClient(), requiredEnv(tableEnvName('access')), undefined, requiredEnv(tableEnvName('domain')));
  if (event.step === 'record') return { event_id: await recordEvent(office, event.partner_id) };
  const store = dynamoProbeStore(createDocumentClient(), requiredEnv('PROBE_TABLE'));
  return onboard({ office, webBaseUrl: event.web_base_url, receiverUrl: requiredEnv('RECEIVER_URL'), store });
}
