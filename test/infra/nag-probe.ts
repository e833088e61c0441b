/**
 * Preloaded into the real entry point (bin/app.ts) by test/infra/nag.test.ts: whatever app the entry
 * point synthesizes gets one more stack, `NagProbe`, holding a queue that breaks two AwsSolutions
 * rules (no TLS-only policy, no dead-letter queue). The test then sees whether the entry point's
 * own checks fail on it, exactly as `cdk synth` would run them.
 */
import { App, Stack } from 'aws-cdk-lib';
import * as sqs from 'aws-cdk-lib/aws-sqs';

const synth = App.prototype.synth;
App.prototype.synth = function synthWithProbe(this: App, ...args: Parameters<App['synth']>) {
  new sqs.Queue(new Stack(this, 'NagProbe'), 'PlainQueue');
  return synth.apply(this, args);
};
