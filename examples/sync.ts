/**
 * `npm run example:sync`: a partner integration in a few lines (examples/integration.ts), with the typed client
 * (client/), against a running stack (default: `npm start` on this machine):
 *
 *   PARTNER_API_KEY=pak_live_… [PARTNER_API_BASE_URL=http://127.0.0.1:3000/v1] npm run example:sync
 *
 * It checks the key (/me), syncs the records changed since its last run (.local/example-sync.json), creates an
 * invitation and prints its join link. To also receive that invitation's webhook, start the stack with
 * `npm start -- --allow-local-webhooks`, add a callback for the organization in web settings with the URL
 * https://127.0.0.1:8443/webhook, and run this with its secret:
 *
 *   WEBHOOK_SECRET=whsec_… PARTNER_API_KEY=pak_live_… npm run example:sync
 *
 * It then listens on 127.0.0.1:8443 (a self-signed certificate made for this machine: the local stack accepts it; a
 * deployed stage calls only public names on port 443, see examples/webhook-receiver.ts), answers the callback's verification
 * (press Verify in web settings), and waits for the invitation's `invitation.joined` (open the link and claim it),
 * then reads the ticket through the API. WEBHOOK_PORT and EXAMPLE_WAIT_SECONDS (default 600) change the port and wait.
 */
import { generate } from 'selfsigned';
import { PartnerApiError } from '../client/src';
import { runIntegration } from './integration';

const apiKey = process.env.PARTNER_API_KEY;
if (!apiKey) {
  console.error('Set PARTNER_API_KEY to an organization key (npm start prints the demo keys).');
  process.exit(2);
}
const secrets = (process.env.WEBHOOK_SECRET ?? '')
  .split(',')
  .map((secret) => secret.trim())
  .filter(Boolean);

try {
  await runIntegration({
    baseUrl: process.env.PARTNER_API_BASE_URL ?? 'http://127.0.0.1:3000/v1',
    apiKey,
    statePath: '.local/example-sync.json',
    ...(secrets.length > 0
      ? {
          webhook: {
            secrets,
            host: '127.0.0.1',
            port: Number(process.env.WEBHOOK_PORT ?? 8443),
            path: '/webhook',
            tls: await localCertificate(),
            dedupPath: '.local/example-events.log',
            waitMs: Number(process.env.EXAMPLE_WAIT_SECONDS ?? 600) * 1000,
          },
        }
      : {}),
    log: (line) => console.log(line),
  });
} catch (error) {
  if (error instanceof PartnerApiError) {
    const limit = error.rateLimit.policy ? `; policy ${error.rateLimit.policy}, retry after ${error.retryAfter ?? '?'} s` : '';
    console.error(`${error.status} ${error.code}: ${error.message} (request ${error.requestId ?? 'unknown'}${limit})`);
  } else console.error(error instanceof Error ? error.message : error);
  process.exit(1);
}

/** A certificate for 127.0.0.1 and localhost, made at start: good for the local stack only. */
async function localCertificate(): Promise<{ cert: string; key: string }> {
  const pems = await generate([{ name: 'commonName', value: 'localhost' }], {
    keyType: 'ec',
    curve: 'P-256',
    algorithm: 'sha256',
    notBeforeDate: new Date(Date.now() - 60_000),
    extensions: [{ name: 'subjectAltName', altNames: [{ type: 2, value: 'localhost' }, { type: 7, ip: '127.0.0.1' }] }],
  });
  return { cert: pems.cert, key: pems.private };
}
