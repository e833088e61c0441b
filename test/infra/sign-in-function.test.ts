/**
 * Sign-in in a function of its own (issue 32, finding 5), read off the synthesized prod template: `POST
 * /settings/api/session` invokes the `sign-in` function, not the settings function, which keeps the rest of web
 * settings; the sign-in function has a reservation of its own; and the sign-in method's throttle, read from the stage's
 * method settings, cannot keep more executions busy than that reservation at the password hash's time for the
 * function's memory (also read from the template). A flood of sign-ins therefore meets API Gateway's 429 on that
 * method, and Lambda's throttle (a 5XX) nowhere: not on sign-in, not on the settings function's routes.
 */
import { describe, expect, it } from 'vitest';
import { PASSWORD_HASH_SECONDS_PER_VCPU } from '../../lambdas/back-office/passwords';
import { TWO_FACTOR_PURPOSE } from '../../lambdas/back-office/two-factor-seeds';
import { SEALING_KEY_ENV } from '../../lambdas/shared/sealing';
import { tableEnvName } from '../../lambdas/shared/storage/table-definitions';
import { LAMBDA_MB_PER_VCPU, STAGE_RESERVED_CONCURRENCY_MAXIMUM } from '../../lib/config/stage-config';
import { functionLogicalId, methodTargets, resources, restApiLogicalId, stage, stageLogicalId } from './support';

const FUNCTION = 'AWS::Lambda::Function';
type Statement = { Action: string | string[]; Condition?: Record<string, Record<string, string>> };

describe('prod: sign-in is its own function, and its throttle cannot saturate its reservation', () => {
  const { statelessTemplate } = stage('prod');
  const functions = resources(statelessTemplate, FUNCTION);
  const signInId = functionLogicalId(statelessTemplate, 'sign-in');
  const settingsId = functionLogicalId(statelessTemplate, 'settings');

  /** The DynamoDB and KMS statements of a function's role. */
  const statementsOf = (functionId: string): Statement[] => {
    const roleId = (functions[functionId].Properties.Role as { 'Fn::GetAtt': [string, string] })['Fn::GetAtt'][0];
    return Object.values(resources(statelessTemplate, 'AWS::IAM::Policy'))
      .filter((policy) => (policy.Properties.Roles as { Ref: string }[]).some((role) => role.Ref === roleId))
      .flatMap((policy) => (policy.Properties.PolicyDocument as { Statement: Statement[] }).Statement);
  };

  it('routes POST /settings/api/session to the sign-in function, and the rest of the session resource to the settings function', () => {
    // Act
    const targets = methodTargets(statelessTemplate, restApiLogicalId(statelessTemplate, 'web'));

    // Assess
    expect(signInId).not.toBe(settingsId);
    expect(targets.get('POST /settings/api/session')).toBe(signInId);
    expect(targets.get('GET /settings/api/session')).toBe(settingsId);
    expect(targets.get('DELETE /settings/api/session')).toBe(settingsId);
    expect(targets.get('GET /settings')).toBe(settingsId);
    // Nothing else reaches the sign-in function: its reservation is sign-in's alone.
    expect([...targets].filter(([, target]) => target === signInId).map(([method]) => method)).toEqual(['POST /settings/api/session']);
  });

  it('reserves executions for the sign-in function apart from the settings function, within what a stage may reserve', () => {
    // Act
    const reserved = Object.values(functions).map((fn) => fn.Properties.ReservedConcurrentExecutions as number | undefined);
    const signIn = functions[signInId].Properties.ReservedConcurrentExecutions as number;
    const settings = functions[settingsId].Properties.ReservedConcurrentExecutions as number;

    // Assess
    expect(signIn).toBeGreaterThan(0);
    expect(settings).toBeGreaterThan(0);
    expect(reserved.reduce<number>((sum, value) => sum + (value ?? 0), 0)).toBeLessThanOrEqual(STAGE_RESERVED_CONCURRENCY_MAXIMUM);
  });

  it('keeps burst + rate × hash time of the sign-in method within the sign-in reservation, every number from the template', () => {
    // Prepare: the method's throttle, the function's memory and reservation, as deployed.
    const methodSettings = resources(statelessTemplate, 'AWS::ApiGateway::Stage')[stageLogicalId(statelessTemplate, 'web')].Properties.MethodSettings as {
      HttpMethod: string;
      ResourcePath: string;
      ThrottlingRateLimit: number;
      ThrottlingBurstLimit: number;
    }[];
    const throttle = methodSettings.find((setting) => setting.HttpMethod === 'POST' && setting.ResourcePath === '/~1settings~1api~1session');
    if (!throttle) throw new Error('no method setting for POST /settings/api/session');
    const memoryMb = functions[signInId].Properties.MemorySize as number;
    const reserved = functions[signInId].Properties.ReservedConcurrentExecutions as number;

    // Act: a full bucket spent at once, then the refill, each call holding an execution for one hash at this memory.
    const hashSeconds = PASSWORD_HASH_SECONDS_PER_VCPU * Math.max(1, LAMBDA_MB_PER_VCPU / memoryMb);
    const peak = throttle.ThrottlingBurstLimit + throttle.ThrottlingRateLimit * hashSeconds;

    // Assess
    expect(memoryMb).toBe(LAMBDA_MB_PER_VCPU);
    expect(peak).toBeLessThanOrEqual(reserved);
    // The settings function keeps the stage's memory; only sign-in pays for a full vCPU.
    expect(functions[settingsId].Properties.MemorySize).toBeLessThan(memoryMb);
  });

  it('lets the sign-in function read and write single items of the access table and open two-factor seeds, nothing more', () => {
    // Act
    const statements = statementsOf(signInId);
    const dynamo = statements.filter((statement) => JSON.stringify(statement.Action).includes('dynamodb:'));
    const kms = statements.filter((statement) => JSON.stringify(statement.Action).includes('kms:'));
    const variables = (functions[signInId].Properties.Environment as { Variables: Record<string, unknown> }).Variables;

    // Assess
    expect(new Set(dynamo.flatMap((statement) => [statement.Action].flat()))).toEqual(new Set(['dynamodb:GetItem', 'dynamodb:PutItem', 'dynamodb:UpdateItem']));
    expect(kms.map((statement) => [[statement.Action].flat(), statement.Condition])).toEqual([[['kms:Decrypt'], { StringEquals: { 'kms:EncryptionContext:purpose': TWO_FACTOR_PURPOSE } }]]);
    expect(variables).toHaveProperty(SEALING_KEY_ENV);
    expect(Object.keys(variables).filter((name) => name.startsWith('TABLE_'))).toEqual([tableEnvName('access')]);
  });
});
