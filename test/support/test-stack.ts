/**
 * A local stack for one test file: fresh tables on the run's DynamoDB Local,
 * the deployed handlers behind the local front, and the back office.
 */
import { randomBytes } from 'node:crypto';
import { inject } from 'vitest';
import { createBackOffice, type BackOffice } from '../../lambdas/back-office/back-office';
import type { ApiHandler } from '../../lambdas/shared/http/pipeline';
import type { Router } from '../../lambdas/shared/http/routes';
import { localDocumentClient, startLocalStack, type LocalStack, type LocalStackOptions } from '../../local/local-stack';
import { checkResponse } from './contract-check';
import { stuckDeliveries } from './stuck-deliveries';

export interface TestStack extends LocalStack {
  readonly office: BackOffice;
  readonly client: ReturnType<typeof localDocumentClient>;
  /** fetch() relative to the base URL; the response is checked against the OpenAPI document. */
  call(path: string, init?: RequestInit): Promise<Response>;
}

export async function startTestStack(
  options: {
    handlers?: Readonly<Record<string, ApiHandler>>;
    router?: Router;
    edgeProtection?: boolean;
    scheduledJobs?: LocalStackOptions['scheduledJobs'];
    /** The local webhook pipeline (default: on, loopback receivers allowed, waits as deployed); `false`: off. */
    webhooks?: LocalStackOptions['webhooks'];
    /**
     * Fail the file when it ends with a stuck delivery (default: on with the pipeline). Off only where the tests make
     * delivery records themselves, outside the pipeline (the fan-out's store raced alone): those have no message by design.
     */
    checkStuckDeliveries?: boolean;
    /** The front's function timeout (default: the deployed one): see LocalStackOptions.functionTimeoutMs. */
    functionTimeoutMs?: number;
    /** How long the handlers' DynamoDB calls may wait (default: 3 s): see LocalStackOptions.storageWaitMs. */
    storageWaitMs?: number;
    /** Fault injection on the request path (and the webhook pipeline): see LocalStackOptions.faults. */
    faults?: LocalStackOptions['faults'];
    /** Who may use the sealing key for what (default: as deployed): see LocalStackOptions.keyUsers. */
    keyUsers?: LocalStackOptions['keyUsers'];
  } = {},
): Promise<TestStack> {
  const endpoint = inject('dynamoEndpoint');
  const stack = await startLocalStack({
    dynamoEndpoint: endpoint,
    tablePrefix: `test-${randomBytes(4).toString('hex')}`,
    handlers: options.handlers,
    router: options.router,
    // Tests send bursts from one address: edge rules only where a test is about them.
    edgeProtection: options.edgeProtection ?? false,
    // Tests run the scheduled jobs themselves, with their own clock: the interval only where a test asks for it.
    scheduledJobs: options.scheduledJobs ?? false,
    // Tests receive webhooks on local HTTPS servers (test/support/https-receiver.ts): loopback callbacks allowed.
    webhooks: options.webhooks === false ? false : { allowLocalWebhooks: true, waitScale: 1, ...options.webhooks },
    functionTimeoutMs: options.functionTimeoutMs,
    storageWaitMs: options.storageWaitMs,
    faults: options.faults,
    keyUsers: options.keyUsers,
  });
  const client = localDocumentClient(endpoint);
  return {
    ...stack,
    client,
    office: createBackOffice(client, stack.tables.access, undefined, stack.tables.domain),
    // Every response is checked against the OpenAPI document (test/support/contract-check.ts).
    call: async (path, init) => {
      const response = await fetch(`${stack.baseUrl}${path}`, init);
      await checkResponse(init?.method ?? 'GET', path, response);
      return response;
    },
    // The file's last word: no delivery the pipeline lost (test/support/stuck-deliveries.ts).
    stop: async () => {
      const stuck = stack.webhooks && options.checkStuckDeliveries !== false ? await stuckDeliveries({ client, tables: stack.tables }, stack.webhooks) : [];
      client.destroy();
      await stack.stop();
      if (stuck.length > 0) throw new Error(`Webhook deliveries stuck (open, nothing of the pipeline holding them): ${JSON.stringify(stuck)}`);
    },
  };
}

/** An organization with an active manager and an organization key carrying `scopes`. */
export async function createOrgWithManagerKey(office: BackOffice, scopes: string[]) {
  const { account_id } = await office.accounts.create('Manager');
  const { partner_id } = await office.organizations.create('Org');
  await office.memberships.set(partner_id, account_id, 'manager');
  const key = await office.keys.create({ accountId: account_id, partnerId: partner_id, scopes });
  return { account_id, partner_id, key };
}

export const bearer = (key: string) => ({ Authorization: `Bearer ${key}` });
