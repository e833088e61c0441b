/**
 * A runnable webhook receiver for integrators (examples/README.md explains it), built on the client package's webhook
 * module, client/src/webhooks.ts (`createWebhookHandler` and `fileDeduplicator`, exported by @partner-api/client;
 * only `node:` built-ins): signature and timestamp checks, the verification challenge and persistent de-duplication
 * by event id come from there; this file adds the command line, the environment, TLS or plain HTTP, the callback path
 * and a log line per delivery.
 *
 *   npx tsx examples/webhook-receiver.ts --cert cert.pem --key key.pem   # HTTPS itself
 *   npx tsx examples/webhook-receiver.ts                                 # plain HTTP behind a TLS proxy
 *
 * The service delivers only to an HTTPS URL on port 443. With --cert/--key
 * this process serves HTTPS itself (listen on 443, or forward 443 to it);
 * without them it serves plain HTTP on 127.0.0.1 and must sit behind a
 * TLS-terminating reverse proxy (nginx, Caddy, a load balancer) that
 * forwards the request body unchanged: no re-encoding, no decompression.
 *
 * Environment:
 *   WEBHOOK_SECRETS     one secret, or two comma-separated during a rotation (the whole whsec_... strings)
 *   PARTNER_ID          the organization the callback is bound to (deliveries for another one get 400)
 *   WEBHOOK_DEDUP_FILE  processed event ids, default ./processed-events.log
 *   WEBHOOK_PATH        the callback path, default /webhook
 *   HOST, PORT          listen address; defaults 0.0.0.0:8443 with TLS, 127.0.0.1:8080 without
 *
 * It logs each delivery's event id, type and outcome: never a secret or a signature.
 */
import { readFileSync } from 'node:fs';
import { createServer as createHttpServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import { parseArgs } from 'node:util';
import { createWebhookHandler, fileDeduplicator, type DeliveryResult, type WebhookEvent } from '../client/src/webhooks.js';

function fail(message: string): never {
  console.error(`webhook-receiver: ${message}`);
  process.exit(1);
}

const { values: args } = parseArgs({
  options: {
    cert: { type: 'string' },
    key: { type: 'string' },
    host: { type: 'string' },
    port: { type: 'string' },
  },
});
if ((args.cert === undefined) !== (args.key === undefined)) fail('give both --cert and --key, or neither');
const tls = args.cert !== undefined && args.key !== undefined ? { cert: readFileSync(args.cert), key: readFileSync(args.key) } : undefined;

const secrets = (process.env.WEBHOOK_SECRETS ?? '')
  .split(',')
  .map((secret) => secret.trim())
  .filter((secret) => secret !== '');
if (secrets.length < 1 || secrets.length > 2) fail('set WEBHOOK_SECRETS to one whsec_ secret, or two comma-separated while rotating');
if (secrets.some((secret) => !secret.startsWith('whsec_'))) fail('each WEBHOOK_SECRETS entry must be the whole whsec_... string');

const partnerId = process.env.PARTNER_ID?.trim() || undefined;
if (!partnerId) console.warn('webhook-receiver: PARTNER_ID is not set; events of any organization signed with these secrets are accepted');
const dedupFile = process.env.WEBHOOK_DEDUP_FILE || './processed-events.log';
const webhookPath = process.env.WEBHOOK_PATH || '/webhook';
const host = args.host ?? process.env.HOST ?? (tls ? '0.0.0.0' : '127.0.0.1');
const port = Number(args.port ?? process.env.PORT ?? (tls ? 8443 : 8080));
if (!Number.isInteger(port) || port < 0 || port > 65_535) fail('PORT must be an integer 0-65535');

/**
 * What to re-read through the API for a business event. The spec asks to
 * re-read the resource instead of computing state from the notification:
 * events may repeat, arrive out of order, or be lost.
 */
function rereadHint(event: WebhookEvent): string {
  const p = `/partners/${encodeURIComponent(event.partner_id)}`;
  const field = (name: string): string => encodeURIComponent(String(event.data[name] ?? `<${name}>`));
  switch (event.type) {
    case 'record.created':
    case 'record.updated':
      return `GET ${p}/records/${field('record_id')}`;
    case 'record.deleted':
      return `GET ${p}/records/${field('record_id')} (404 expected: drop it from your view; it says nothing about the player's result)`;
    case 'invitation.joined':
    case 'ticket.message.created':
    case 'ticket.status.updated':
      // The ticket endpoint takes the invitation id, not the ticket id.
      return `GET ${p}/tickets/${field('invitation_id')} and GET ${p}/invitations/${field('invitation_id')}`;
    case 'entitlement.updated':
      return `GET ${p}/entitlements`;
    default:
      return `unknown event type: ignore it or reconcile through the list endpoints`;
  }
}

const dedup = fileDeduplicator(dedupFile);

const handler = createWebhookHandler({
  secrets,
  partnerId,
  dedup,
  async onEvent(event) {
    // Replace with your processing: re-read the resource, or enqueue it reliably and return within a few seconds.
    console.log(`  re-read through the API: ${rereadHint(event)}`);
  },
  onResult(result: DeliveryResult) {
    const line =
      result.kind === 'rejected'
        ? { status: result.status, outcome: 'rejected', reason: result.reason }
        : {
            status: result.status,
            outcome: result.kind,
            event_id: result.event.id,
            type: result.event.type,
            // Which secret matched: once only the new one is seen, the old secret can be dropped.
            secret: result.secretIndex === 0 ? 'first' : 'second',
            ...(result.kind === 'failed' ? { error: result.error instanceof Error ? result.error.message : String(result.error) } : {}),
          };
    console.log(JSON.stringify({ at: new Date().toISOString(), ...line }));
  },
});

function route(req: IncomingMessage, res: ServerResponse): void {
  const path = (req.url ?? '').split('?')[0];
  if (path !== webhookPath) {
    res.writeHead(404).end();
    return;
  }
  handler(req, res);
}

const server = tls ? createHttpsServer(tls, route) : createHttpServer(route);
// The service gives up on an attempt after 8 seconds; slow or stalled clients get no longer.
server.headersTimeout = 10_000;
server.requestTimeout = 15_000;

server.listen(port, host, () => {
  const scheme = tls ? 'https' : 'http';
  console.log(`webhook receiver on ${scheme}://${host}:${port}${webhookPath} (${secrets.length} secret(s), dedup file ${dedupFile})`);
  if (!tls) console.log('plain HTTP: put a TLS-terminating proxy in front; the service only delivers to https:// on port 443');
});

function shutdown(): void {
  server.close(() => {
    dedup.close().finally(() => process.exit(0));
  });
  server.closeIdleConnections();
}
process.once('SIGINT', shutdown);
process.once('SIGTERM', shutdown);
