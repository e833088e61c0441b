/**
 * `npm start`: run the whole service locally.
 *
 *   npm start                      in-memory data, demo organization and keys seeded
 *   npm start -- --data .local/db  keep data in a folder across restarts
 *   npm start -- --no-seed         start empty
 *   npm start -- --allow-local-webhooks    callbacks may point at https://127.0.0.1:<port> or https://localhost:<port>
 *   npm start -- --webhook-wait-scale 0.01 retry waits multiplied by F (0 < F ≤ 1): 1 h becomes 36 s
 *   npm start -- --no-edge         no edge limits (load tests from one machine, where every client is 127.0.0.1)
 *   PORT=4000 npm start            serve on another port (default 3000)
 *   DYNAMO_PORT=8001 npm start     DynamoDB Local on another port (default: a free one)
 *
 * However the process ends (Ctrl-C, SIGTERM, SIGHUP, a crash, a failed start, its launcher killed), the
 * stack stops and DynamoDB Local's Java with it (local/stack-lifetime.ts, local/dynamo-local-watchdog.mjs).
 */
import { randomUUID } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { DynamoLocalStartError } from './dynamo-local';
import { startLocalStack, localDocumentClient } from './local-stack';
import { seedDemoBusinessData, type DemoBusinessData } from './demo-business-data';
import { seedDemo, type DemoData } from './seed';
import { guardStackLifetime, type StackLifetime } from './stack-lifetime';
import { LOCAL_STATE_DIR, LOCAL_STATE_FILE } from './state-file';
import { fileSwitches, setTicketBridgeFailing } from './ticket-bridge-switch';

async function main(lifetime: StackLifetime) {
  const { values } = parseArgs({
    options: {
      data: { type: 'string' },
      'no-seed': { type: 'boolean', default: false },
      // Local-only switches: they reach the code through the local stack, in process, never through an environment variable.
      'allow-local-webhooks': { type: 'boolean', default: false },
      'webhook-wait-scale': { type: 'string' },
      'no-edge': { type: 'boolean', default: false },
    },
    allowPositionals: false,
  });
  const waitScale = webhookWaitScale(values['webhook-wait-scale']);
  const started = Date.now();
  const port = Number(process.env.PORT ?? 3000);
  const stack = await startLocalStack({
    port,
    dynamoPort: process.env.DYNAMO_PORT ? Number(process.env.DYNAMO_PORT) : undefined,
    dataPath: values.data,
    // `npm run -s admin -- ticket bridge --fail on|off` (local/ticket-bridge-switch.ts); starts available.
    switches: fileSwitches(),
    webhooks: { allowLocalWebhooks: values['allow-local-webhooks'], waitScale },
    // The edge limits are the front's (the in-function guard never runs locally); quotas and concurrency limits stay.
    edgeProtection: !values['no-edge'],
  });
  lifetime.stopWith(stack.stop);
  setTicketBridgeFailing(false);

  mkdirSync(LOCAL_STATE_DIR, { recursive: true });
  writeFileSync(
    LOCAL_STATE_FILE,
    JSON.stringify({ baseUrl: stack.baseUrl, dynamoEndpoint: stack.dynamoEndpoint, tables: stack.tables, pid: process.pid }, null, 2),
  );
  // Stopped first: the admin CLI then says no stack runs rather than calling a gone DynamoDB Local.
  lifetime.stopWith(async () => removeStateFile());

  let demo: DemoData | undefined;
  let business: DemoBusinessData | undefined;
  const demoFile = values.data ? `${values.data}/demo-keys.json` : undefined;
  if (demoFile && existsSync(demoFile)) {
    demo = savedDemoData(demoFile);
  } else if (!values['no-seed']) {
    const client = localDocumentClient(stack.dynamoEndpoint);
    demo = await seedDemo(client, stack.tables.access);
    business = await seedDemoBusinessData(client, stack.tables, demo);
    client.destroy();
    if (demoFile) writeFileSync(demoFile, JSON.stringify(demo, null, 2));
  }

  // One invitation to open in a browser: the player site's page (the link's token is in its fragment).
  const invitation = demo ? await demoInvitation(stack.baseUrl, demo).catch(() => undefined) : undefined;

  const lines = [
    '',
    `Partner API (local) ready in ${((Date.now() - started) / 1000).toFixed(1)} s`,
    `  base URL        ${stack.baseUrl}`,
    `  DynamoDB Local  ${stack.dynamoEndpoint}${values.data ? ` (data in ${values.data})` : ' (in memory)'}`,
  ];
  if (values['allow-local-webhooks']) lines.push('  webhooks        loopback receivers allowed (local only)');
  if (waitScale !== 1) lines.push(`  webhooks        retry waits scaled by ${waitScale} (local only)`);
  if (values['no-edge']) lines.push('  edge limits     OFF (--no-edge, local only): no limit by source IP or credential; quotas and concurrency limits apply');
  if (demo) {
    lines.push(
      `  organization    ${demo.partner_id}`,
      `  manager account ${demo.account_id}`,
      `  org key         ${demo.organization_key}`,
      `  personal key    ${demo.personal_key}`,
      '',
      'Try:',
      `  curl -s ${stack.baseUrl}/health`,
      `  curl -s -H "Authorization: Bearer ${demo.organization_key}" ${stack.baseUrl}/me`,
      `  curl -s -H "Authorization: Bearer ${demo.organization_key}" ${stack.baseUrl}/partners/${demo.partner_id}/entitlements`,
      `  curl -s -H "Authorization: Bearer ${demo.personal_key}" ${stack.baseUrl}/entitlements`,
      ...(business
        ? [
            `  curl -s -H "Authorization: Bearer ${demo.personal_key}" ${stack.baseUrl}/records/${business.sample_uuid}`,
            `  curl -s -H "Authorization: Bearer ${demo.organization_key}" "${stack.baseUrl}/partners/${demo.partner_id}/records?limit=5&result=cheating&game=fps"`,
            `  curl -s -H "Authorization: Bearer ${demo.organization_key}" "${stack.baseUrl}/partners/${demo.partner_id}/records?player_name=steve&updated_after=${new Date(Date.now() - 7 * 86_400_000).toISOString().slice(0, 10)}T00:00:00Z"`,
            `  (${business.records} demo records; next_cursor continues a list: add &cursor=<next_cursor> with the same filters)`,
          ]
        : []),
      ...(invitation
        ? [
            '',
            'Player site (open in a browser; a claim creates the ticket):',
            `  ${invitation.link}`,
            `  curl -s -H "Authorization: Bearer ${demo.organization_key}" ${stack.baseUrl}/partners/${demo.partner_id}/invitations/${invitation.id}`,
            `  curl -s -H "Authorization: Bearer ${demo.organization_key}" ${stack.baseUrl}/partners/${demo.partner_id}/tickets/${invitation.id}`,
            `  npm run -s admin -- ticket message --invitation ${invitation.id} --author staff --text "Hello from staff"`,
            '  npm run -s admin -- ticket bridge --fail on     (then claim another link: it stays claiming until --fail off)',
            `  new link: curl -s -X POST -H "Authorization: Bearer ${demo.organization_key}" -H "Idempotency-Key: $(openssl rand -hex 16)" -H "Content-Type: application/json" -d '{"game":"minecraft"}' ${stack.baseUrl}/partners/${demo.partner_id}/invitations`,
          ]
        : []),
    );
  }
  lines.push('', 'Web settings (open in a browser: keys, password, two-factor, activity):', `  ${stack.baseUrl}/settings`);
  if (demo?.email && demo.password) lines.push(`  sign in as ${demo.email} / ${demo.password}`);
  lines.push('', 'Admin CLI: npm run -s admin -- account create --email you@example.com --password-prompt   (Ctrl-C stops everything)', '');
  console.log(lines.join('\n'));
}

/** The demo keys a `--data` folder kept from its first start. */
function savedDemoData(file: string): DemoData {
  try {
    return JSON.parse(readFileSync(file, 'utf8')) as DemoData;
  } catch (error) {
    throw new UsageError(`${file} does not hold the demo keys npm start saved (${(error as Error).message}): remove the --data folder to start afresh`);
  }
}

/** The state file, if it still describes this process (a newer `npm start` may have taken it over). */
function removeStateFile(): void {
  try {
    if ((JSON.parse(readFileSync(LOCAL_STATE_FILE, 'utf8')) as { pid?: number }).pid === process.pid) rmSync(LOCAL_STATE_FILE);
  } catch {
    // Gone or unreadable: nothing of ours to remove.
  }
}

/** `--webhook-wait-scale F`: a number with 0 < F ≤ 1 (default 1: the deployed waits). */
function webhookWaitScale(value: string | undefined): number {
  if (value === undefined) return 1;
  const scale = Number(value);
  if (value.trim() === '' || !Number.isFinite(scale) || scale <= 0 || scale > 1) {
    throw new UsageError(`--webhook-wait-scale must be a number greater than 0 and at most 1 (e.g. 0.01), got "${value}"`);
  }
  return scale;
}

class UsageError extends Error {}

/** A fresh invitation of the demo organization, created through the API as an integration would. */
async function demoInvitation(baseUrl: string, demo: DemoData): Promise<{ id: string; link: string }> {
  const response = await fetch(`${baseUrl}/partners/${demo.partner_id}/invitations`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${demo.organization_key}`, 'Content-Type': 'application/json', 'Idempotency-Key': `npm-start-${randomUUID()}` },
    body: JSON.stringify({ game: 'minecraft', notes: 'Demo invitation created by npm start' }),
  });
  const { data } = (await response.json()) as { data: { id: string; link: string } };
  return data;
}

// Before anything starts: a signal or crash from here on stops whatever has started.
const lifetime = guardStackLifetime();
main(lifetime).catch((error: NodeJS.ErrnoException) => {
  if (
    error instanceof UsageError ||
    error instanceof DynamoLocalStartError ||
    error?.code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION' ||
    error?.code === 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE'
  ) {
    console.error(error.message);
  } else if (error?.code === 'EADDRINUSE') {
    console.error(`Port ${process.env.PORT ?? 3000} is in use (another npm start?). Choose another: PORT=4000 npm start`);
  } else {
    console.error(error);
  }
  void lifetime.end(1);
});
