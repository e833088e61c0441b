/**
 * The AWS adapters of the webhook runtime (aws-sdk-client-mock): KMS seals a
 * secret under the callback's encryption context and opens it only with the
 * same; SQS gets whole-second delays within its 15 minutes; a retry execution
 * started twice under one name is no error. And a deployed function (no
 * local switches) can never allow loopback receivers or scale waits,
 * whatever its environment says.
 */
import { DecryptCommand, EncryptCommand, KMSClient } from '@aws-sdk/client-kms';
import { SFNClient, StartExecutionCommand } from '@aws-sdk/client-sfn';
import { ChangeMessageVisibilityCommand, SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { mockClient } from 'aws-sdk-client-mock';
import { afterEach, describe, expect, it } from 'vitest';
import { buildRuntime } from '../../../lambdas/webhooks/webhook-runtime';
import { WEBHOOK_ENV } from '../../../lambdas/webhooks/webhook-env';

const kms = mockClient(KMSClient);
const sqs = mockClient(SQSClient);
const sfn = mockClient(SFNClient);
afterEach(() => {
  kms.reset();
  sqs.reset();
  sfn.reset();
});

const ENV = {
  [WEBHOOK_ENV.queueUrl]: 'https://sqs.eu-west-1.amazonaws.com/123456789012/deliveries',
  [WEBHOOK_ENV.retryStateMachineArn]: 'arn:aws:states:eu-west-1:123456789012:stateMachine:retries',
  [WEBHOOK_ENV.secretKeyArn]: 'arn:aws:kms:eu-west-1:123456789012:key/abc',
  [WEBHOOK_ENV.forbiddenHosts]: 'abc123.execute-api.eu-west-1.amazonaws.com, API.example.org',
};
const message = { v: 1 as const, partner_id: 'org_1', webhook_id: 'wh_1', delivery_id: 'dlv_1', attempt: 2, generation: 0 };

describe('webhook runtime in a deployed function', () => {
  it('seals with KMS under the callback\u2019s encryption context and opens with the same', async () => {
    kms.on(EncryptCommand).resolves({ CiphertextBlob: Buffer.from('sealed-bytes') });
    kms.on(DecryptCommand).resolves({ Plaintext: Buffer.from('whsec_abc', 'utf8') });
    const runtime = buildRuntime({}, ENV);
    const sealed = await runtime.sealer.seal('whsec_abc', { webhookId: 'wh_1', partnerId: 'org_1' });
    expect(sealed).toBe(`kms:${Buffer.from('sealed-bytes').toString('base64')}`);
    const encrypt = kms.commandCalls(EncryptCommand)[0].args[0].input;
    expect(encrypt.KeyId).toBe(ENV[WEBHOOK_ENV.secretKeyArn]);
    expect(encrypt.EncryptionContext).toEqual({ purpose: 'webhook-secret', webhook_id: 'wh_1', partner_id: 'org_1' });
    expect(await runtime.sealer.open(sealed, { webhookId: 'wh_1', partnerId: 'org_1' })).toBe('whsec_abc');
    expect(kms.commandCalls(DecryptCommand)[0].args[0].input.EncryptionContext).toEqual({ purpose: 'webhook-secret', webhook_id: 'wh_1', partner_id: 'org_1' });
    await expect(runtime.sealer.open('local:xyz', { webhookId: 'wh_1', partnerId: 'org_1' })).rejects.toThrow(/not a KMS ciphertext/);
  });

  it('queues attempts with whole-second delays SQS accepts', async () => {
    sqs.on(SendMessageCommand).resolves({});
    const runtime = buildRuntime({}, ENV);
    await runtime.queue.send(message, 59.2);
    await runtime.queue.send(message, 5000);
    const [first, second] = sqs.commandCalls(SendMessageCommand).map((c) => c.args[0].input);
    expect(first).toEqual({ QueueUrl: ENV[WEBHOOK_ENV.queueUrl], MessageBody: JSON.stringify(message), DelaySeconds: 60 });
    expect(second.DelaySeconds).toBe(900);
  });

  it('sets when a received message comes back in whole seconds SQS accepts (ChangeMessageVisibility)', async () => {
    sqs.on(ChangeMessageVisibilityCommand).resolves({});
    const runtime = buildRuntime({}, ENV);
    await runtime.visibility.change('handle-1', 55.2);
    await runtime.visibility.change('handle-2', 99_999);
    const [first, second] = sqs.commandCalls(ChangeMessageVisibilityCommand).map((c) => c.args[0].input);
    expect(first).toEqual({ QueueUrl: ENV[WEBHOOK_ENV.queueUrl], ReceiptHandle: 'handle-1', VisibilityTimeout: 56 });
    expect(second.VisibilityTimeout).toBe(43_200);
  });

  it('starts one retry execution per name: a second start is no error', async () => {
    sfn.on(StartExecutionCommand).resolvesOnce({ executionArn: 'arn:1', startDate: new Date() }).rejects(Object.assign(new Error('exists'), { name: 'ExecutionAlreadyExists' }));
    const runtime = buildRuntime({}, ENV);
    const input = { wait_seconds: 3600, message };
    await runtime.scheduler.schedule('dlv_1-0-5', input);
    await runtime.scheduler.schedule('dlv_1-0-5', input);
    const call = sfn.commandCalls(StartExecutionCommand)[0].args[0].input;
    expect(call).toEqual({ stateMachineArn: ENV[WEBHOOK_ENV.retryStateMachineArn], name: 'dlv_1-0-5', input: JSON.stringify(input) });
  });

  it('never allows loopback receivers or scaled waits, whatever the environment says; the service\u2019s own hosts are refused', () => {
    const runtime = buildRuntime({}, { ...ENV, ALLOW_LOCAL_WEBHOOKS: 'true', WEBHOOK_WAIT_SCALE: '0.001' });
    expect(runtime.policy.allowLocal).toBe(false);
    expect(runtime.waitScale).toBe(1);
    expect(runtime.policy.forbiddenHosts).toEqual(['abc123.execute-api.eu-west-1.amazonaws.com', 'api.example.org']);
  });

  it('fails loudly when a function without the webhook environment tries to use it', async () => {
    const runtime = buildRuntime({}, {});
    await expect(runtime.queue.send(message, 0)).rejects.toThrow(/WEBHOOK_QUEUE_URL/);
    await expect(runtime.sealer.seal('x', { webhookId: 'wh_1', partnerId: 'org_1' })).rejects.toThrow(/WEBHOOK_SECRET_KEY_ARN/);
  });
});
