/**
 * The player's claim under explored interleavings (test/support/interleaver.ts): browsers claiming one link at once,
 * a browser submitting again with its own submission id (a lost answer, a second tab), their DynamoDB calls ordered by
 * fast-check's scheduler, lost answers and failures placed among them.
 *
 * What must hold (the model):
 * - one ticket per link, and the claim belongs to one browser: every answer with a credential is that browser's;
 * - exactly one credential is valid: the stored digest is the credential of the last answer that handed one out, or —
 *   when a fault took that answer — of none handed out, and the browser that claimed gets a working one by submitting
 *   again (the resumable claim); any other browser is refused;
 * - when no write failed for its caller, one browser holds a working credential at the end.
 */
import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import { randomBytes } from 'node:crypto';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { claimInvitation, credentialDigest, type ClaimOutcome } from '../../lambdas/invitations/claim';
import { InvitationStore } from '../../lambdas/invitations/invitation-store';
import { DynamoTicketBridge } from '../../lambdas/tickets/ticket-bridge';
import { faultSteps, Interleaver, InjectedStorageFault, raceParameters, runPlan, ScheduledStep } from '../support/interleaver';
import { raisedHandlers } from '../support/raised-quotas';
import { bearer, createOrgWithManagerKey, startTestStack, type TestStack } from '../support/test-stack';

let stack: TestStack;
let org: Awaited<ReturnType<typeof createOrgWithManagerKey>>;
beforeAll(async () => {
  // Each run creates a link: the invitation quotas raised out of reach (test/support/raised-quotas.ts).
  stack = await startTestStack({ webhooks: false, handlers: raisedHandlers() });
  org = await createOrgWithManagerKey(stack.office, ['invitations:read', 'invitations:write']);
});
afterAll(() => stack?.stop());

const FIFO = Array.from({ length: 128 }, (_, i) => i + 1);
const PLAYER = { in_game_name: 'Steve', game_account_id: '069a79f4-44e9-4726-a5be-fca90e38aaf5' };
const BROWSERS = ['A', 'B', 'C'] as const;

interface World {
  readonly interleaver: Interleaver;
  readonly invitationId: string;
  readonly deps: { invitations: InvitationStore; tickets: DynamoTicketBridge };
  /** Each browser's own submission id (the join page keeps one per link). */
  readonly submission: Record<(typeof BROWSERS)[number], string>;
}

type Answer = { readonly browser: (typeof BROWSERS)[number]; readonly outcome: ClaimOutcome };
const claimFrom = (browser: (typeof BROWSERS)[number]) =>
  ScheduledStep.operation<World, Answer>(`claim ${browser}`, async ({ deps, invitationId, submission }) => ({ browser, outcome: await claimInvitation(deps, invitationId, PLAYER, new Date(), undefined, submission[browser]) }), browser);
const [claimA, claimB, claimC] = BROWSERS.map(claimFrom);
const plans = fc.commands([fc.constant(claimA), fc.constant(claimB), fc.constant(claimC), faultSteps<World, Answer>()], { maxCommands: 6 });

let serial = 0;
async function newInvitation(): Promise<string> {
  const response = await stack.call(`/partners/${org.partner_id}/invitations`, {
    method: 'POST',
    headers: { ...bearer(org.key.key), 'Content-Type': 'application/json', 'Idempotency-Key': `race-claim-${(serial += 1)}-${Date.now()}` },
    body: JSON.stringify({ game: 'minecraft' }),
  });
  expect(response.status).toBe(201);
  return ((await response.json()) as { data: { id: string } }).data.id;
}

describe('the claim under explored interleavings', () => {
  it('makes one ticket and one valid credential per link, the claiming browser’s, and lets it resume', async () => {
    await fc.assert(
      fc.asyncProperty(fc.scheduler(), plans, async (scheduler, commands) => {
        // Prepare: a fresh link; one submission id per browser.
        const invitationId = await newInvitation();
        const submission = Object.fromEntries(BROWSERS.map((b) => [b, randomBytes(32).toString('base64url')])) as World['submission'];
        const interleaver = new Interleaver(scheduler, stack.dynamoEndpoint);
        const deps = { invitations: new InvitationStore(interleaver.client, stack.tables.domain), tickets: new DynamoTicketBridge(interleaver.client, stack.tables.domain) };

        // Act
        const { outcomes } = await runPlan<World, Answer>(commands, { interleaver, invitationId, deps, submission });
        interleaver.destroy();

        // Assess
        const context = `steps: ${interleaver.steps.join(' → ')}; answers: ${outcomes.map((o) => (o.status === 'fulfilled' ? (o.value ? `${o.value.browser}:${o.value.outcome.outcome}` : 'fault') : String(o.reason))).join(', ')}`;
        const answered = outcomes.flatMap((o) => (o.status === 'fulfilled' && o.value ? [o.value] : []));
        const withCredential = answered.filter((a) => 'credential' in a.outcome);
        const holders = new Set(withCredential.map((a) => a.browser));
        expect(holders.size, context).toBeLessThanOrEqual(1);
        const tickets = ((await stack.client.send(new ScanCommand({ TableName: stack.tables.domain, FilterExpression: 'kind = :ticket AND invitation_id = :id', ExpressionAttributeValues: { ':ticket': 'ticket', ':id': invitationId }, ConsistentRead: true }))).Items ?? []).length;
        expect(tickets, context).toBeLessThanOrEqual(1);
        const store = new InvitationStore(stack.client, stack.tables.domain);
        const stored = await store.get(org.partner_id, invitationId);
        const handedOut = withCredential.map((a) => credentialDigest((a.outcome as { credential: string }).credential));
        const failedForCaller = outcomes.some((o) => o.status === 'rejected' && o.reason instanceof InjectedStorageFault);
        if (!failedForCaller && answered.length > 0) {
          expect(holders.size, context).toBe(1);
          expect(handedOut, context).toContain(stored?.credential_digest);
        }
        if (stored?.credential_digest && stored.state !== 'pending') {
          // The claim is one browser's: that browser resumes (a working credential: the stored one), any other is refused.
          const again = { invitations: store, tickets: new DynamoTicketBridge(stack.client, stack.tables.domain) };
          const results = await Promise.all(BROWSERS.map(async (b) => ({ b, outcome: await claimInvitation(again, invitationId, PLAYER, new Date(), undefined, submission[b]) })));
          const resumed = results.filter((r) => 'credential' in r.outcome);
          expect(resumed.length, context).toBe(1);
          if (holders.size > 0) expect(holders.has(resumed[0].b), context).toBe(true);
          const after = await store.get(org.partner_id, invitationId);
          expect(after?.credential_digest, context).toBe(credentialDigest((resumed[0].outcome as { credential: string }).credential));
          expect(after?.state, context).toBe('joined');
        }
      }),
      { ...raceParameters(6), examples: [[fc.schedulerFor(FIFO), [claimA, ScheduledStep.fault<World, Answer>('fail-after'), claimB]]] },
    );
  });
});
