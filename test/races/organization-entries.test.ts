/**
 * The organization entries under explored interleavings (test/support/interleaver.ts): renames of an organization and
 * memberships set or removed, their DynamoDB calls ordered by fast-check's scheduler, lost answers and failures placed
 * among them.
 *
 * What must hold (the model, organization-entries.ts): every member's entry carries the organization's name as it is
 * (a rename rewrites every member's entry in its transaction, conditioned on the organization as read; a membership
 * change moves the organization's `updated_at`), an account that is no member has no entry, and the organization never
 * holds more members than MEMBERS_PER_ORGANIZATION.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { createBackOffice } from '../../lambdas/back-office/back-office';
import { orgEntryKey } from '../../lambdas/back-office/organization-entries';
import { faultSteps, Interleaver, raceParameters, runPlan, ScheduledStep } from '../support/interleaver';
import { startTestStack, type TestStack } from '../support/test-stack';

let stack: TestStack;
beforeAll(async () => {
  stack = await startTestStack({ webhooks: false });
});
afterAll(() => stack?.stop());

interface World {
  readonly interleaver: Interleaver;
  readonly office: ReturnType<typeof createBackOffice>;
  readonly partnerId: string;
  readonly accounts: readonly string[];
}
type Answer = unknown;

const rename = (name: string) => ScheduledStep.operation<World, Answer>(`rename ${name}`, ({ office, partnerId }) => office.organizations.rename(partnerId, name));
const join = (i: number) => ScheduledStep.operation<World, Answer>(`set member ${i}`, ({ office, partnerId, accounts }) => office.memberships.set(partnerId, accounts[i], i === 0 ? 'manager' : 'member'));
const leave = (i: number) => ScheduledStep.operation<World, Answer>(`remove member ${i}`, ({ office, partnerId, accounts }) => office.memberships.remove(partnerId, accounts[i]));
const plans = fc.commands(
  [fc.constant(rename('Blue')), fc.constant(rename('Green')), fc.constant(join(1)), fc.constant(join(2)), fc.constant(leave(1)), faultSteps<World, Answer>()],
  { maxCommands: 6 },
);

let serial = 0;

describe('organization entries under explored interleavings', () => {
  it("keep every member's entry at the organization's name, and no entry for an account that left", async () => {
    await fc.assert(
      fc.asyncProperty(fc.scheduler(), plans, async (scheduler, commands) => {
        // Prepare: an organization with its manager; two more accounts that may join.
        serial += 1;
        const { partner_id } = await stack.office.organizations.create(`Racing ${serial}`);
        const accounts = await Promise.all([0, 1, 2].map(async (i) => (await stack.office.accounts.create(`Racer ${serial}-${i}`)).account_id));
        await stack.office.memberships.set(partner_id, accounts[0], 'manager');
        const interleaver = new Interleaver(scheduler, stack.dynamoEndpoint);
        const office = createBackOffice(interleaver.client, stack.tables.access);

        // Act
        await runPlan<World, Answer>(commands, { interleaver, office, partnerId: partner_id, accounts });
        interleaver.destroy();

        // Assess: what the organization and its members are now, and every account's entry.
        const org = await stack.office.organizations.get(partner_id);
        for (const accountId of accounts) {
          const membership = (await stack.office.memberships.ofAccount(accountId)).find((m) => m.partner_id === partner_id);
          const { Item: entry } = await stack.client.send(new GetCommand({ TableName: stack.tables.access, Key: orgEntryKey(accountId, partner_id), ConsistentRead: true }));
          const context = `steps: ${interleaver.steps.join(' → ')}; ${accountId}`;
          if (membership) expect(entry?.org_name, context).toBe(org?.name);
          else expect(entry, context).toBeUndefined();
        }
      }),
      raceParameters(6),
    );
  });
});
