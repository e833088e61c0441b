/**
 * A partner integration with the typed client (client/), as `npm run example:sync` runs it (examples/sync.ts) and
 * test/integration/example-integration.test.ts checks it against the local stack:
 *   1. check the key (/me) and its organization, as the spec asks at start-up;
 *   2. sync the organization's records changed since the last run (a watermark kept in a state file);
 *   3. with a webhook secret: listen for the callback's deliveries (signatures verified, the verification challenge
 *      answered, each event id handled once across restarts);
 *   4. create a player invitation (the Idempotency-Key kept, so a retry never creates a second one) and hand its link on;
 *   5. with a webhook secret: wait for that invitation's `invitation.joined` and re-read the ticket through the API, as
 *      the spec asks (a notification is a hint, the API is the truth).
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { dirname } from 'node:path';
import { createPartnerClient, createWebhookHandler, fileDeduplicator, type WebhookEvent } from '../client/src';

export interface IntegrationOptions {
  readonly baseUrl: string;
  readonly apiKey: string;
  /** Where the sync watermark is kept between runs. */
  readonly statePath: string;
  /** Receive the organization's webhooks while the example runs. */
  readonly webhook?: {
    /** The callback's `whsec_…` secret (two during a rotation). */
    readonly secrets: readonly string[];
    readonly host: string;
    readonly port: number;
    /** The path the callback URL names. */
    readonly path: string;
    /** The server's certificate and key (PEM). */
    readonly tls: { readonly cert: string | Buffer; readonly key: string | Buffer };
    /** Processed event ids, kept across runs (a resend is recognized). */
    readonly dedupPath: string;
    /** How long to wait for the invitation to be joined. */
    readonly waitMs: number;
  };
  readonly log: (line: string) => void;
  /** Called with the new invitation once its link is known and the receiver (if any) listens. */
  readonly onInvitation?: (invitation: { id: string; link: string }) => void | Promise<void>;
}

export interface IntegrationResult {
  readonly partnerId: string;
  readonly synced: number;
  readonly invitation?: { readonly id: string; readonly link: string; readonly idempotencyKey: string };
  /** The ticket as the API reads it after `invitation.joined` arrived. */
  readonly joined?: { readonly eventId: string; readonly ticketStatus: string; readonly messageCount: number };
}

export async function runIntegration(options: IntegrationOptions): Promise<IntegrationResult> {
  const { log } = options;
  const client = createPartnerClient({ baseUrl: options.baseUrl, apiKey: options.apiKey });

  const { data: me } = await client.me();
  if (!me.partner_id) throw new Error('This example needs an organization key, not a personal one.');
  const partnerId = me.partner_id;
  log(`key ${me.key_id} of ${partnerId}, scopes ${me.scopes.join(' ')}`);

  const state = readState(options.statePath);
  const { records, watermark } = await client.records.sync(partnerId, { since: state.since });
  log(`${records.length} record${records.length === 1 ? '' : 's'} changed since ${state.since ?? 'the beginning'}`);
  for (const record of records.slice(0, 5)) log(`  ${record.updated_at} ${record.uuid} ${record.result}`);
  mkdirSync(dirname(options.statePath), { recursive: true });
  writeFileSync(options.statePath, JSON.stringify({ since: watermark ?? state.since }));

  if (!me.scopes.includes('invitations:write')) return { partnerId, synced: records.length };

  // Events for invitations this run is waiting on, by invitation id.
  const waiting = new Map<string, (event: WebhookEvent) => void>();
  const server = options.webhook ? await listen(options.webhook, partnerId, waiting, log) : undefined;
  try {
    const created = await client.createInvitation(partnerId, { game: 'minecraft', notes: 'Created by examples/integration.ts' });
    if (!created.data.link) throw new Error(`invitation ${created.data.id} came without its link`);
    const invitation = { id: created.data.id, link: created.data.link, idempotencyKey: created.idempotencyKey };
    log(`invitation ${invitation.id} (Idempotency-Key ${invitation.idempotencyKey}): ${invitation.link}`);
    if (!options.webhook) {
      await options.onInvitation?.(invitation);
      return { partnerId, synced: records.length, invitation };
    }

    const joined = new Promise<WebhookEvent>((resolve) => waiting.set(invitation.id, resolve));
    log(`waiting up to ${Math.round(options.webhook.waitMs / 1000)} s for invitation.joined: open the link and claim it`);
    await options.onInvitation?.(invitation);
    const event = await withDeadline(joined, options.webhook.waitMs, `no invitation.joined for ${invitation.id}`);
    // The notification says something changed; the API says what.
    const { data: ticket } = await client.getTicket(partnerId, invitation.id);
    log(`invitation.joined ${event.id}: ticket ${ticket.id} is ${ticket.status}, ${ticket.message_count} messages`);
    return { partnerId, synced: records.length, invitation, joined: { eventId: event.id, ticketStatus: ticket.status, messageCount: ticket.message_count } };
  } finally {
    await close(server);
  }
}

async function listen(
  webhook: NonNullable<IntegrationOptions['webhook']>,
  partnerId: string,
  waiting: Map<string, (event: WebhookEvent) => void>,
  log: (line: string) => void,
): Promise<Server> {
  const handle = createWebhookHandler({
    secrets: webhook.secrets,
    partnerId,
    dedup: fileDeduplicator(webhook.dedupPath),
    onEvent: (event) => {
      log(`webhook ${event.type} ${event.id}`);
      const invitationId = (event.data as { invitation_id?: unknown }).invitation_id;
      if (event.type === 'invitation.joined' && typeof invitationId === 'string') waiting.get(invitationId)?.(event);
    },
    onResult: (result) => {
      if (result.kind === 'rejected') log(`webhook refused (${result.status}): ${result.reason}`);
      if (result.kind === 'challenge_answered') log('webhook verification answered: the callback is active');
    },
  });
  const server = createServer({ cert: webhook.tls.cert, key: webhook.tls.key }, (req, res) => {
    if ((req.url ?? '').split('?')[0] !== webhook.path) {
      res.writeHead(404).end();
      return;
    }
    handle(req, res);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(webhook.port, webhook.host, () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  log(`receiving webhooks on https://${webhook.host}:${port}${webhook.path}`);
  return server;
}

function readState(path: string): { since?: string } {
  try {
    return JSON.parse(readFileSync(path, 'utf8')) as { since?: string };
  } catch {
    return {};
  }
}

async function withDeadline<T>(promise: Promise<T>, ms: number, message: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([promise, new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(message)), ms)))]);
  } finally {
    clearTimeout(timer);
  }
}

function close(server: Server | undefined): Promise<void> {
  if (!server) return Promise.resolve();
  server.closeAllConnections();
  return new Promise((resolve) => server.close(() => resolve()));
}
