import { describe, it, expect } from 'vitest';
import { Match } from 'aws-cdk-lib/assertions';
import { RECORD_INDEX_ATTRIBUTES, RECORD_LIST_INDEXES, TABLES, TABLE_IDS, physicalTableName } from '../../lambdas/shared/storage/table-definitions';
import { SECRET_IDS } from '../../lambdas/shared/secret-names';
import { resources, stage, stageReferenceNames } from './support';

const TABLE_TYPE = 'AWS::DynamoDB::GlobalTable';

// The stages the tests read, synthesized once while the tests are collected (stage() caches them), not within a test's time limit.
for (const name of ['dev', 'prod', 'pr123']) stage(name);

describe('stateful stack: tables', () => {
  it('creates exactly one on-demand table per definition, named for the stage', () => {
    const { statefulTemplate } = stage('dev');

    statefulTemplate.resourceCountIs(TABLE_TYPE, TABLE_IDS.length);
    for (const id of TABLE_IDS) {
      statefulTemplate.hasResourceProperties(TABLE_TYPE, {
        TableName: physicalTableName('dev', id),
        BillingMode: 'PAY_PER_REQUEST',
      });
    }
  });

  it.each(TABLE_IDS)('gives the %s table its keys, GSIs and TTL attribute from the definitions', (id) => {
    const { statefulTemplate } = stage('dev');
    const definition = TABLES[id];

    statefulTemplate.hasResourceProperties(TABLE_TYPE, {
      TableName: physicalTableName('dev', id),
      KeySchema: [
        { AttributeName: definition.partitionKey.name, KeyType: 'HASH' },
        { AttributeName: definition.sortKey.name, KeyType: 'RANGE' },
      ],
      GlobalSecondaryIndexes: definition.globalIndexes.map((index) =>
        Match.objectLike({
          IndexName: index.indexName,
          KeySchema: [
            { AttributeName: index.partitionKey.name, KeyType: 'HASH' },
            ...(index.sortKey ? [{ AttributeName: index.sortKey.name, KeyType: 'RANGE' }] : []),
          ],
        }),
      ),
      TimeToLiveSpecification: { AttributeName: definition.timeToLiveAttribute, Enabled: true },
    });
  });

  it('projects only the Record fields into the record list indexes (never notes), and every attribute elsewhere', () => {
    const { statefulTemplate } = stage('dev');
    const table = Object.values(resources(statefulTemplate, TABLE_TYPE)).find((t) => t.Properties.TableName === physicalTableName('dev', 'domain'))!;
    const indexes = table.Properties.GlobalSecondaryIndexes as { IndexName: string; Projection: { ProjectionType: string; NonKeyAttributes?: string[] } }[];
    for (const { indexName } of Object.values(RECORD_LIST_INDEXES)) {
      const index = indexes.find((i) => i.IndexName === indexName)!;
      expect(index.Projection).toEqual({ ProjectionType: 'INCLUDE', NonKeyAttributes: [...RECORD_INDEX_ATTRIBUTES] });
      expect(index.Projection.NonKeyAttributes).not.toContain('internal_notes');
      expect(index.Projection.NonKeyAttributes).not.toContain('staff_notes');
    }
    expect(indexes.find((i) => i.IndexName === 'gsi1')!.Projection).toEqual({ ProjectionType: 'ALL' });
  });

  it.each([
    ['dev', 'Delete'],
    ['prod', 'RetainExceptOnCreate'],
  ])('keeps a generated secret per id and stage in Secrets Manager (%s: %s on stack deletion)', (name, policy) => {
    const { statefulTemplate } = stage(name);
    const secrets = Object.values(resources(statefulTemplate, 'AWS::SecretsManager::Secret'));
    // Never ending in a hyphen and six characters, which Secrets Manager takes for an ARN's random suffix.
    expect(secrets.map((s) => s.Properties.Name).sort()).toEqual(SECRET_IDS.map((id) => `partner-api/${name}/${id}-key`).sort());
    for (const secret of secrets) {
      // Pinned, literally: any change makes CloudFormation generate a new value, an unannounced rotation (service-secrets.ts).
      expect(secret.Properties.GenerateSecretString).toEqual({ PasswordLength: 64, ExcludePunctuation: true, IncludeSpace: false });
      // No value in the template.
      expect(secret.Properties).not.toHaveProperty('SecretString');
      expect(secret.DeletionPolicy).toBe(policy);
    }
  });

  it('streams the domain table (new and old images) and not the write-hot access table', () => {
    const { statefulTemplate } = stage('dev');

    statefulTemplate.hasResourceProperties(TABLE_TYPE, {
      TableName: physicalTableName('dev', 'domain'),
      StreamSpecification: { StreamViewType: 'NEW_AND_OLD_IMAGES' },
    });
    statefulTemplate.hasResourceProperties(TABLE_TYPE, {
      TableName: physicalTableName('dev', 'access'),
      StreamSpecification: Match.absent(),
    });
  });

  it('retains prod tables with PITR and deletion protection, and protects the stack from deletion', () => {
    const { statefulTemplate, stateful } = stage('prod');

    for (const table of Object.values(resources(statefulTemplate, TABLE_TYPE))) {
      // Kept when deleted or replaced; a failed first create removes them, so the retry finds no leftover.
      expect(table.DeletionPolicy).toBe('RetainExceptOnCreate');
      expect(table.UpdateReplacePolicy).toBe('Retain');
      expect(table.Properties.Replicas).toEqual([
        expect.objectContaining({
          DeletionProtectionEnabled: true,
          PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true },
        }),
      ]);
    }
    expect(stateful.terminationProtection).toBe(true);
  });

  it.each(['dev', 'pr123'])('lets %s tables be deleted with the stack (no PITR, no protection)', (name) => {
    const { statefulTemplate, stateful } = stage(name);

    for (const table of Object.values(resources(statefulTemplate, TABLE_TYPE))) {
      expect(table.DeletionPolicy).toBe('Delete');
      expect(table.Properties.Replicas).toEqual([
        expect.objectContaining({
          DeletionProtectionEnabled: false,
          PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: false },
        }),
      ]);
    }
    expect(stateful.terminationProtection).toBe(false);
  });

  it('names the two stacks of a stage PartnerApi-<stage>-Stateful/Stateless and tags them', () => {
    const { stateful, stateless } = stage('pr123');

    expect(stateful.stackName).toBe('PartnerApi-pr123-Stateful');
    expect(stateless.stackName).toBe('PartnerApi-pr123-Stateless');
    expect(stateful.tags.tagValues()).toEqual({ service: 'partner-api', stage: 'pr123' });
    expect(stateless.tags.tagValues()).toEqual({ service: 'partner-api', stage: 'pr123' });
  });

  it('keeps both stacks environment-agnostic (no account or region baked in)', () => {
    const { stateful, stateless } = stage('dev');

    for (const stack of [stateful, stateless]) {
      expect(stack.environment).toBe('aws://unknown-account/unknown-region');
    }
  });

  it('creates the tables after the secrets and the key: a failed first create rolls back before a deletion-protected table exists', () => {
    const { statefulTemplate } = stage('prod');
    const others = [...Object.keys(resources(statefulTemplate, 'AWS::SecretsManager::Secret')), ...Object.keys(resources(statefulTemplate, 'AWS::KMS::Key'))];

    expect(others).toHaveLength(SECRET_IDS.length + 1);
    for (const table of Object.values(resources(statefulTemplate, TABLE_TYPE))) {
      expect([table.DependsOn ?? []].flat()).toEqual(expect.arrayContaining(others));
    }
  });

  it.each(['dev', 'prod'])('publishes for the stateless stack, on %s, what AWS chooses (the stream, secret and key ARNs) as SSM parameters, and exports nothing', (name) => {
    const { statefulTemplate } = stage(name);
    const names = stageReferenceNames(name);
    const parameters = Object.values(resources(statefulTemplate, 'AWS::SSM::Parameter'));

    expect(parameters.map((p) => p.Properties.Name).sort()).toEqual(
      [names.streamArn('domain'), ...SECRET_IDS.map((id) => names.secretArn(id)), names.webhookSecretsKeyArn].sort(),
    );
    const domainId = Object.entries(resources(statefulTemplate, TABLE_TYPE)).find(([, t]) => t.Properties.TableName === physicalTableName(name, 'domain'))![0];
    expect(parameters.find((p) => p.Properties.Name === names.streamArn('domain'))!.Properties.Value).toEqual({ 'Fn::GetAtt': [domainId, 'StreamArn'] });
    expect(Object.values(statefulTemplate.toJSON().Outputs ?? {}).filter((output) => (output as { Export?: unknown }).Export)).toEqual([]);
  });
});
