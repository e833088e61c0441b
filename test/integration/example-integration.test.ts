/**
 * The runnable integration (examples/integration.ts, `npm run example:sync`) against the local stack, end to end: /me,
 * a record sync (and a second run that starts from the watermark), an invitation, its callback verified while the
 * example listens, the invitation claimed by a player, and the example's own receiver handing over the signed
 * `invitation.joined` before it reads the ticket through the API.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runIntegration } from '../../examples/integration';
import { claimInvitation } from '../../lambdas/invitations/claim';
import { InvitationStore } from '../../lambdas/invitations/invitation-store';
import { DynamoTicketBridge } from '../../lambdas/tickets/ticket-bridge';
import { testCertificate } from '../support/https-receiver';
import { recordInput } from '../support/record-input';
import { startTestStack, type TestStack } from '../support/test-stack';
import { raisedWebhookHandlers, webhookWorld } from '../support/webhook-world';

let stack: TestStack;
const folder = mkdtempSync(join(tmpdir(), 'example-integration-'));

beforeAll(async () => {
  stack = await startTestStack({ handlers: raisedWebhookHandlers(), webhooks: { allowLocalWebhooks: true, waitScale: 0.001, resolve: async () => ['127.0.0.1'] } });
});
afterAll(async () => {
  await stack?.stop();
  rmSync(folder, { recursive: true, force: true });
});

const world = webhookWorld(() => stack);

/** A port nothing listens on now (the example binds it next). */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

describe('the example integration', () => {
  it('syncs, creates an invitation, and receives its invitation.joined through its own verified receiver', async () => {
    const m = await world.manager();
    const { key } = await stack.office.keys.create({
      accountId: m.account_id,
      partnerId: m.partner_id,
      scopes: ['records:read', 'invitations:read', 'invitations:write', 'tickets:read'],
    });
    for (let i = 0; i < 3; i += 1) await stack.office.records!.put(m.partner_id, recordInput(`Example${i}`));

    const port = await freePort();
    const created = await world.create(m, `https://127.0.0.1:${port}/webhook`);
    expect(created.status).toBe(201);
    const { webhook, secret } = (await created.json()) as { webhook: { webhook_id: string }; secret: string };

    const lines: string[] = [];
    const statePath = join(folder, 'state.json');
    const result = await runIntegration({
      baseUrl: stack.baseUrl,
      apiKey: key,
      statePath,
      webhook: { secrets: [secret], host: '127.0.0.1', port, path: '/webhook', tls: await testCertificate(), dedupPath: join(folder, 'events.log'), waitMs: 90_000 },
      log: (line) => lines.push(line),
      onInvitation: async (invitation) => {
        // The manager verifies the callback while the example listens, then a player claims the link.
        const verified = await m.browser.post(`/settings/api/webhooks/${webhook.webhook_id}/verify`);
        expect((await verified.json()).verification).toMatchObject({ result: 'verified' });
        const invitations = new InvitationStore(stack.client, stack.tables.domain);
        const tickets = new DynamoTicketBridge(stack.client, stack.tables.domain);
        await claimInvitation({ invitations, tickets }, invitation.id, { in_game_name: 'Example', game_account_id: 'example_01' }, new Date());
      },
    });

    expect(result.partnerId).toBe(m.partner_id);
    expect(result.synced).toBe(3);
    expect(result.invitation?.link).toContain(result.invitation!.id);
    expect(result.joined).toMatchObject({ ticketStatus: 'open', messageCount: 0 });
    expect(lines).toContain('webhook verification answered: the callback is active');
    expect(lines.some((line) => line.startsWith(`webhook invitation.joined ${result.joined!.eventId}`))).toBe(true);

    // The next run starts from the watermark: only the record at it (the bound is inclusive) and a newer one.
    await stack.office.records!.put(m.partner_id, recordInput('Later'));
    const again = await runIntegration({ baseUrl: stack.baseUrl, apiKey: key, statePath, log: () => undefined, onInvitation: () => undefined });
    expect(again.synced).toBeLessThanOrEqual(2);
    expect(again.synced).toBeGreaterThanOrEqual(1);
  }, 180_000);
});
