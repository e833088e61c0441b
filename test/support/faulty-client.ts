/**
 * A test file's local stack (no webhook pipeline) and a document client whose calls the fault plan can fail — only
 * inside `faults.invocation(...)`, so the test's own reads and writes through `stack.client` are never counted. The
 * plan's rules are reset after each test, the client and the stack stopped after the file.
 */
import { afterAll, afterEach, beforeAll } from 'vitest';
import { FaultPlan } from '../../local/fault-injection';
import { localDocumentClient } from '../../local/local-stack';
import { startTestStack, type TestStack } from './test-stack';

export type FaultyClient = ReturnType<typeof localDocumentClient>;

/** Registers the file's hooks; `ready` receives the stack and the faulty client once both exist. */
export function withFaultyClient(ready: (world: { stack: TestStack; client: FaultyClient }) => void): FaultPlan {
  const faults = new FaultPlan();
  let stack: TestStack | undefined;
  let client: FaultyClient | undefined;
  beforeAll(async () => {
    stack = await startTestStack({ webhooks: false });
    client = faults.instrument(localDocumentClient(stack.dynamoEndpoint));
    ready({ stack, client });
  });
  afterEach(() => faults.reset());
  afterAll(async () => {
    client?.destroy();
    await stack?.stop();
  });
  return faults;
}
