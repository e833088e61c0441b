/**
 * The template schema checks (lib/compliance/template-schema/index.ts): every stack template of the
 * real stages validates against the CloudFormation resource specification with no finding; each
 * kind of mistake is caught in a small template broken on purpose, and what CloudFormation
 * accepts (numeric strings, Fn::If with AWS::NoValue, custom resources) is not reported; the CDK
 * plugin fails a synthesis; and the curated enum table (lib/compliance/template-schema/cfn-enums.ts) stays honest:
 * its keys name real properties, its pages are theirs, its lists miss nothing the specification,
 * the documentation or aws-cdk-lib offers, and no enum-looking value of a real template escapes it.
 *
 * A failure on a real stage lists `<stack> <path>: <message>`: fix the construct that writes the
 * value, or, when CloudFormation does accept it, the check or the table that refused it.
 */
import { App, Stack, Stage, Validations } from 'aws-cdk-lib';
import * as apigateway from 'aws-cdk-lib/aws-apigateway';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import * as kms from 'aws-cdk-lib/aws-kms';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import * as logs from 'aws-cdk-lib/aws-logs';
import * as sns from 'aws-cdk-lib/aws-sns';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import * as ssm from 'aws-cdk-lib/aws-ssm';
import * as sfn from 'aws-cdk-lib/aws-stepfunctions';
import { beforeAll, describe, expect, it } from 'vitest';
import { CFN_ENUMS, IAM_POLICY_ENUMS } from '../../lib/compliance/template-schema/cfn-enums';
import { propertyAt } from '../../lib/compliance/template-schema/cfn-spec';
import { documentedAllowedValues, scalarTypeOf, specAllowedValues } from '../../lib/compliance/template-schema/enum-sources';
import { TemplateSchemaChecks, enumCoverageGaps, validateTemplate, type SchemaFinding } from '../../lib/compliance/template-schema';
import { synthStage } from './support';

/** A full stage synthesizes slowly on a shared machine; this limit is not an assertion. */
const SYNTH_TIMEOUT_MS = 180_000;
const STAGES = ['dev', 'staging', 'prod'] as const;

/** `<stack> <path>: <message>`, the form a failure lists findings in. */
function described(stack: string, findings: readonly SchemaFinding[]): string[] {
  return findings.map((finding) => `${stack} ${finding.path}: ${finding.message}`);
}

interface SynthesizedTemplates {
  /** Stack name → template, for every stack the app synthesizes (nested assemblies included). */
  readonly all: ReadonlyMap<string, unknown>;
  /** The two templates the other infrastructure tests read (support.ts), by stack name. */
  readonly readByOtherTests: Readonly<Record<string, unknown>>;
}

describe('the real stages', () => {
  const synthesized = new Map<string, SynthesizedTemplates>();
  const templatesOf = (name: string): SynthesizedTemplates => {
    const templates = synthesized.get(name);
    if (!templates) throw new Error(`${name} was not synthesized`);
    return templates;
  };

  beforeAll(() => {
    for (const name of STAGES) {
      const stage = synthStage({ stage: name });
      const app = Stage.of(stage.stateful);
      if (!app) throw new Error('a stage stack outside an app');
      synthesized.set(name, {
        all: new Map(app.synth().stacksRecursively.map((stack) => [stack.stackName, stack.template as unknown])),
        readByOtherTests: {
          [stage.stateful.stackName]: stage.statefulTemplate.toJSON(),
          [stage.stateless.stackName]: stage.statelessTemplate.toJSON(),
        },
      });
    }
  }, SYNTH_TIMEOUT_MS);

  it.each(STAGES)('%s: the loop covers every stack, the stateful and stateless templates included', (name) => {
    const { all, readByOtherTests } = templatesOf(name);

    expect(Object.fromEntries(all)).toMatchObject(readByOtherTests);
  });

  it.each(STAGES)('%s: every stack template validates with no finding', (name) => {
    const findings = [...templatesOf(name).all].flatMap(([stack, template]) => described(stack, validateTemplate(template)));

    expect(findings).toEqual([]);
  });

  it('sets no enum-looking property the curated table leaves out', () => {
    const gaps = new Map<string, string>();
    for (const name of STAGES) {
      for (const template of templatesOf(name).all.values()) {
        for (const gap of enumCoverageGaps(template)) gaps.set(gap.key, `${gap.key} = ${JSON.stringify(gap.value)} at ${gap.path}: ${gap.evidence}`);
      }
    }

    // Add each to lib/compliance/template-schema/cfn-enums.ts with the values and the page of its CloudFormation reference.
    expect([...gaps.values()]).toEqual([]);
  });
});

/** Templates are mutated deep inside below; typing every path would only restate the template. */
type Json = Record<string, any>;

const VISIBILITY = { CloudWatchMetricsEnabled: true, MetricName: 'm', SampledRequestsEnabled: false };

/** A small valid template: a queue, a role, a function reading both, a web ACL with one rule, an output. */
function baseTemplate(): Json {
  return {
    Parameters: { Stage: { Type: 'String', Default: 'dev', AllowedValues: ['dev', 'prod'] } },
    Conditions: { IsProd: { 'Fn::Equals': [{ Ref: 'Stage' }, 'prod'] } },
    Resources: {
      Queue: { Type: 'AWS::SQS::Queue', Properties: { QueueName: 'q', VisibilityTimeout: '30' }, DeletionPolicy: 'Retain' },
      Role: {
        Type: 'AWS::IAM::Role',
        Properties: {
          AssumeRolePolicyDocument: {
            Version: '2012-10-17',
            Statement: [{ Effect: 'Allow', Principal: { Service: 'lambda.amazonaws.com' }, Action: 'sts:AssumeRole' }],
          },
        },
      },
      Fn: {
        Type: 'AWS::Lambda::Function',
        DependsOn: ['Role'],
        Properties: {
          Code: { ZipFile: 'exports.handler = async () => {};' },
          Role: { 'Fn::GetAtt': ['Role', 'Arn'] },
          Runtime: 'nodejs22.x',
          Handler: 'index.handler',
          MemorySize: 512,
          Architectures: ['arm64'],
          TracingConfig: { Mode: 'Active' },
          Environment: { Variables: { QUEUE_URL: { Ref: 'Queue' }, QUEUE_ARN: { 'Fn::GetAtt': 'Queue.Arn' } } },
        },
      },
      Acl: {
        Type: 'AWS::WAFv2::WebACL',
        Properties: {
          Scope: 'REGIONAL',
          DefaultAction: { Allow: {} },
          VisibilityConfig: VISIBILITY,
          Rules: [
            {
              Name: 'key-in-url',
              Priority: 1,
              Action: { Block: {} },
              VisibilityConfig: VISIBILITY,
              Statement: {
                ByteMatchStatement: {
                  FieldToMatch: { QueryString: {} },
                  PositionalConstraint: 'CONTAINS',
                  SearchString: 'key=',
                  TextTransformations: [{ Priority: 0, Type: 'URL_DECODE' }],
                },
              },
            },
          ],
        },
      },
    },
    Outputs: { QueueArn: { Value: { 'Fn::GetAtt': ['Queue', 'Arn'] }, Export: { Name: { 'Fn::Sub': '${AWS::StackName}-queue-arn' } } } },
  };
}

/** The findings of the base template after `change`, each as `rule path`. */
function findingsAfter(change: (template: Json) => void): string[] {
  const template = baseTemplate();
  change(template);
  return validateTemplate(template).map((finding) => `${finding.rule} ${finding.path}`);
}

describe('a template broken on purpose', () => {
  it('starts from a template with no finding', () => {
    expect(validateTemplate(baseTemplate())).toEqual([]);
  });

  it.each<[string, (template: Json) => void, string]>([
    ['an unknown property', (t) => (t.Resources.Queue.Properties.QueueNmae = 'q'), 'unknown-property Resources.Queue.Properties.QueueNmae'],
    [
      'an unknown property of a nested type',
      (t) => (t.Resources.Acl.Properties.Rules[0].Statement.ByteMatchStatement.SearchStrings = 'x'),
      'unknown-property Resources.Acl.Properties.Rules[0].Statement.ByteMatchStatement.SearchStrings',
    ],
    ['a required property left out', (t) => delete t.Resources.Fn.Properties.Role, 'missing-property Resources.Fn.Properties.Role'],
    [
      'a required nested property left out',
      (t) => delete t.Resources.Acl.Properties.Rules[0].Statement.ByteMatchStatement.FieldToMatch,
      'missing-property Resources.Acl.Properties.Rules[0].Statement.ByteMatchStatement.FieldToMatch',
    ],
    ['a required property removed by AWS::NoValue', (t) => (t.Resources.Fn.Properties.Code = { Ref: 'AWS::NoValue' }), 'missing-property Resources.Fn.Properties.Code'],
    ['an object where a number belongs', (t) => (t.Resources.Fn.Properties.MemorySize = { Size: 512 }), 'type-mismatch Resources.Fn.Properties.MemorySize'],
    ['a fraction where an integer belongs', (t) => (t.Resources.Fn.Properties.MemorySize = 512.5), 'type-mismatch Resources.Fn.Properties.MemorySize'],
    ['a single value where a list belongs', (t) => (t.Resources.Fn.Properties.Architectures = 'arm64'), 'type-mismatch Resources.Fn.Properties.Architectures'],
    ['a list where an object belongs', (t) => (t.Resources.Fn.Properties.TracingConfig = [{ Mode: 'Active' }]), 'type-mismatch Resources.Fn.Properties.TracingConfig'],
    ['an object where a string belongs', (t) => (t.Resources.Queue.Properties.QueueName = { Name: 'q' }), 'type-mismatch Resources.Queue.Properties.QueueName'],
    ['Fn::Split where a string belongs', (t) => (t.Resources.Fn.Properties.Handler = { 'Fn::Split': [',', 'a,b'] }), 'type-mismatch Resources.Fn.Properties.Handler'],
    ['Fn::Join where a list belongs', (t) => (t.Resources.Fn.Properties.Architectures = { 'Fn::Join': ['', ['arm64']] }), 'type-mismatch Resources.Fn.Properties.Architectures'],
    [
      'a wrong type in a branch of Fn::If',
      (t) => (t.Resources.Fn.Properties.MemorySize = { 'Fn::If': ['IsProd', 1024, 'big'] }),
      'type-mismatch Resources.Fn.Properties.MemorySize["Fn::If"][2]',
    ],
    ['a value outside the specification’s enum', (t) => (t.Resources.Acl.Properties.Scope = 'GLOBAL'), 'enum-value Resources.Acl.Properties.Scope'],
    [
      'a value outside a nested enum',
      (t) => (t.Resources.Acl.Properties.Rules[0].Statement.ByteMatchStatement.TextTransformations[0].Type = 'URLDECODE'),
      'enum-value Resources.Acl.Properties.Rules[0].Statement.ByteMatchStatement.TextTransformations[0].Type',
    ],
    ['a deprecated Lambda runtime (curated enum)', (t) => (t.Resources.Fn.Properties.Runtime = 'nodejs18.x'), 'enum-value Resources.Fn.Properties.Runtime'],
    ['a value outside a curated list enum', (t) => (t.Resources.Fn.Properties.Architectures = ['arm']), 'enum-value Resources.Fn.Properties.Architectures[0]'],
    [
      'an IAM statement Effect in the wrong case',
      (t) => (t.Resources.Role.Properties.AssumeRolePolicyDocument.Statement[0].Effect = 'allow'),
      'enum-value Resources.Role.Properties.AssumeRolePolicyDocument.Statement[0].Effect',
    ],
    [
      'an unknown element of an IAM statement',
      (t) => (t.Resources.Role.Properties.AssumeRolePolicyDocument.Statement[0].Actions = 'sts:AssumeRole'),
      'unknown-property Resources.Role.Properties.AssumeRolePolicyDocument.Statement[0].Actions',
    ],
    ['a Ref to nothing', (t) => (t.Resources.Fn.Properties.Environment.Variables.QUEUE_URL = { Ref: 'Queu' }), 'reference Resources.Fn.Properties.Environment.Variables.QUEUE_URL.Ref'],
    ['Fn::GetAtt of an unknown attribute', (t) => (t.Outputs.QueueArn.Value = { 'Fn::GetAtt': ['Queue', 'Url'] }), 'reference Outputs.QueueArn.Value["Fn::GetAtt"]'],
    ['Fn::GetAtt (string form) of a missing resource', (t) => (t.Resources.Fn.Properties.Role = { 'Fn::GetAtt': 'Rol.Arn' }), 'reference Resources.Fn.Properties.Role["Fn::GetAtt"]'],
    [
      'a Fn::Sub reference to nothing',
      (t) => (t.Resources.Fn.Properties.Environment.Variables.STAGE = { 'Fn::Sub': '${Stage}-${Missing}-${!Literal}-${AWS::Region}' }),
      'reference Resources.Fn.Properties.Environment.Variables.STAGE["Fn::Sub"]',
    ],
    [
      'a Fn::Sub attribute the resource type does not have',
      (t) => (t.Resources.Fn.Properties.Environment.Variables.STAGE = { 'Fn::Sub': '${Queue.Name}' }),
      'reference Resources.Fn.Properties.Environment.Variables.STAGE["Fn::Sub"]',
    ],
    ['an unknown resource type', (t) => (t.Resources.Extra = { Type: 'AWS::SQS::Queues', Properties: {} }), 'resource-type Resources.Extra.Type'],
    ['a custom resource without ServiceToken', (t) => (t.Resources.Extra = { Type: 'Custom::Seed', Properties: { Size: 1 } }), 'missing-property Resources.Extra.Properties.ServiceToken'],
    ['DependsOn to nothing', (t) => (t.Resources.Fn.DependsOn = ['Rolle']), 'reference Resources.Fn.DependsOn[0]'],
    ['a DeletionPolicy CloudFormation does not know', (t) => (t.Resources.Queue.DeletionPolicy = 'Keep'), 'resource-attribute Resources.Queue.DeletionPolicy'],
    ['an UpdateReplacePolicy CloudFormation does not know', (t) => (t.Resources.Queue.UpdateReplacePolicy = 'RetainExceptOnCreate'), 'resource-attribute Resources.Queue.UpdateReplacePolicy'],
    ['an unknown resource attribute', (t) => (t.Resources.Queue.DependOn = 'Role'), 'resource-attribute Resources.Queue.DependOn'],
    ['an unknown section', (t) => (t.Output = {}), 'template-section Output'],
    ['a parameter type CloudFormation does not know', (t) => (t.Parameters.Stage.Type = 'Text'), 'parameter Parameters.Stage.Type'],
    ['a parameter Default outside its AllowedValues', (t) => (t.Parameters.Stage.Default = 'test'), 'parameter Parameters.Stage.Default'],
    ['a condition that is not declared', (t) => (t.Resources.Queue.Condition = 'IsStaging'), 'reference Resources.Queue.Condition'],
    ['a resource named in a condition', (t) => (t.Conditions.IsProd = { 'Fn::Equals': [{ Ref: 'Queue' }, 'q'] }), 'reference Conditions.IsProd["Fn::Equals"][0].Ref'],
    ['a condition function in a property', (t) => (t.Resources.Fn.Properties.Handler = { 'Fn::Equals': ['a', 'b'] }), 'intrinsic-function Resources.Fn.Properties.Handler["Fn::Equals"]'],
    ['a function CloudFormation does not have', (t) => (t.Resources.Fn.Properties.Handler = { 'Fn::Concat': ['a', 'b'] }), 'intrinsic-function Resources.Fn.Properties.Handler["Fn::Concat"]'],
    ['a mapping that is not declared', (t) => (t.Resources.Fn.Properties.Handler = { 'Fn::FindInMap': ['Handlers', 'dev', 'name'] }), 'reference Resources.Fn.Properties.Handler["Fn::FindInMap"]'],
    ['a circular dependency', (t) => (t.Resources.Role.DependsOn = 'Fn'), 'reference Resources.Fn'],
  ])('catches %s', (_name, change, expected) => {
    expect(findingsAfter(change)).toEqual([expected]);
  });

  it.each<[string, (template: Json) => void]>([
    ['numeric strings for integers and "true" for booleans', (t) => {
      t.Resources.Fn.Properties.MemorySize = '1024';
      t.Resources.Acl.Properties.VisibilityConfig = { ...VISIBILITY, CloudWatchMetricsEnabled: 'true' };
    }],
    ['a number where a string belongs', (t) => (t.Resources.Fn.Properties.Environment.Variables.LIMIT = 10)],
    ['dynamic references where an integer and an enum belong', (t) => {
      t.Resources.Fn.Properties.MemorySize = '{{resolve:ssm:/partner-api/memory}}';
      t.Resources.Fn.Properties.Runtime = '{{resolve:ssm:/partner-api/runtime}}';
    }],
    ['Fn::If with AWS::NoValue on an optional property', (t) => (t.Resources.Fn.Properties.TracingConfig = { 'Fn::If': ['IsProd', { Mode: 'Active' }, { Ref: 'AWS::NoValue' }] })],
    ['Fn::Sub with its own variables and an escaped literal', (t) => (t.Resources.Fn.Properties.Handler = { 'Fn::Sub': ['${File}.handler-${!NotAVariable}', { File: 'index' }] })],
    ['Fn::Split where a list belongs', (t) => (t.Resources.Fn.Properties.Architectures = { 'Fn::Split': [',', 'arm64'] })],
    ['a custom resource with any property and any attribute', (t) => {
      t.Resources.Seed = { Type: 'Custom::Seed', Properties: { ServiceToken: { 'Fn::GetAtt': ['Fn', 'Arn'] }, Anything: { Nested: [1, 2] } } };
      t.Outputs.Seeded = { Value: { 'Fn::GetAtt': ['Seed', 'Whatever.It.Returns'] } };
    }],
    ['CDK’s metadata resource', (t) => (t.Resources.CDKMetadata = { Type: 'AWS::CDK::Metadata', Properties: { Analytics: 'v2:deflate64:x' }, Condition: 'IsProd' })],
    ['a declared mapping read with a computed key', (t) => {
      t.Mappings = { Handlers: { dev: { name: 'index.handler' } } };
      t.Resources.Fn.Properties.Handler = { 'Fn::FindInMap': ['Handlers', { Ref: 'Stage' }, 'name'] };
    }],
  ])('accepts %s', (_name, change) => {
    expect(findingsAfter(change)).toEqual([]);
  });

  it('says what CloudFormation would refuse, and where', () => {
    const template = baseTemplate();
    template.Resources.Queue.Properties = { Queuename: 'q' };

    expect(validateTemplate(template)).toEqual([
      {
        rule: 'unknown-property',
        logicalId: 'Queue',
        path: 'Resources.Queue.Properties.Queuename',
        message: 'Queuename is not a property of AWS::SQS::Queue (did you mean QueueName?)',
      },
    ]);
  });
});

describe('the CDK validation plugin', () => {
  function synthFailure(build: (stack: Stack) => void): string | undefined {
    const app = new App();
    Validations.of(app).addPlugins(new TemplateSchemaChecks());
    build(new Stack(app, 'Throwaway'));
    try {
      app.synth();
      return undefined;
    } catch (error) {
      return (error as Error).message;
    }
  }

  it('fails synthesis on a finding, naming the rule, the resource and the path', () => {
    const failure = synthFailure((stack) => {
      const queue = new sqs.CfnQueue(stack, 'Queue');
      queue.addPropertyOverride('RetentionPeriod', 60);
    });

    expect(failure).toContain('unknown-property');
    expect(failure).toContain('Throwaway/Queue');
    expect(failure).toContain('RetentionPeriod is not a property of AWS::SQS::Queue');
  });

  it('lets a template with no finding through', () => {
    expect(synthFailure((stack) => new sqs.Queue(stack, 'Queue', { enforceSSL: true }))).toBeUndefined();
  });
});

describe('the curated enum table', () => {
  const entries = Object.entries(CFN_ENUMS);

  it('addresses real properties of the specification, each holding strings or integers', () => {
    const wrong = entries
      .filter(([key]) => {
        const property = propertyAt(key);
        const scalar = property && scalarTypeOf(property.type).type;
        return scalar !== 'string' && scalar !== 'integer';
      })
      .map(([key]) => key);

    expect(wrong).toEqual([]);
  });

  it('cites, for each entry, the reference page of its resource type or property type', () => {
    const expectedPage = (key: string): string => {
      const [resourceType, ...rest] = key.split('.');
      const [, service, resource] = resourceType.toLowerCase().split('::');
      const slug = rest.length === 1 ? `aws-resource-${service}-${resource}` : `aws-properties-${service}-${resource}-${rest[0].toLowerCase()}`;
      return `https://docs.aws.amazon.com/AWSCloudFormation/latest/TemplateReference/${slug}.html`;
    };
    const wrong = entries.filter(([key, entry]) => entry.source !== expectedPage(key)).map(([key, entry]) => `${key}: ${entry.source}`);

    expect(wrong).toEqual([]);
  });

  it('misses no value the specification’s enum or the property’s documentation lists', () => {
    const missing = entries.flatMap(([key, entry]) => {
      const property = propertyAt(key);
      if (!property) return [];
      const listed = new Set<string>((entry.values as readonly (string | number)[]).map(String));
      const offered = [...(specAllowedValues(property.type) ?? []), ...(documentedAllowedValues(property.documentation) ?? [])].map(String);
      return offered.filter((value) => !listed.has(value)).map((value) => `${key}: ${value}`);
    });

    expect(missing).toEqual([]);
  });

  /** What aws-cdk-lib can render at each property: the table must accept it, or CDK's own constructs would fail the checks. */
  const CDK_VALUES: Readonly<Record<string, readonly (string | number)[]>> = {
    'AWS::ApiGateway::GatewayResponse.ResponseType': Object.values(apigateway.ResponseType)
      .filter((value): value is apigateway.ResponseType => value instanceof apigateway.ResponseType)
      .map((value) => value.responseType),
    'AWS::ApiGateway::RestApi.EndpointConfiguration.Types': Object.values(apigateway.EndpointType),
    'AWS::ApiGateway::RestApi.ApiKeySourceType': Object.values(apigateway.ApiKeySourceType),
    'AWS::ApiGateway::RestApi.SecurityPolicy': Object.values(apigateway.SecurityPolicy),
    'AWS::ApiGateway::Method.AuthorizationType': Object.values(apigateway.AuthorizationType),
    'AWS::ApiGateway::Method.Integration.Type': Object.values(apigateway.IntegrationType),
    'AWS::ApiGateway::Method.Integration.PassthroughBehavior': Object.values(apigateway.PassthroughBehavior),
    'AWS::ApiGateway::Method.Integration.ContentHandling': Object.values(apigateway.ContentHandling),
    'AWS::ApiGateway::Method.Integration.ConnectionType': Object.values(apigateway.ConnectionType),
    'AWS::ApiGateway::Stage.MethodSetting.LoggingLevel': Object.values(apigateway.MethodLoggingLevel),
    'AWS::ApiGateway::Deployment.StageDescription.LoggingLevel': Object.values(apigateway.MethodLoggingLevel),
    'AWS::CloudWatch::Alarm.ComparisonOperator': Object.values(cloudwatch.ComparisonOperator),
    'AWS::CloudWatch::Alarm.TreatMissingData': Object.values(cloudwatch.TreatMissingData),
    'AWS::CloudWatch::Alarm.Unit': Object.values(cloudwatch.Unit),
    'AWS::CloudWatch::Alarm.MetricStat.Unit': Object.values(cloudwatch.Unit),
    // INFINITE (9999) is CDK's way of leaving RetentionInDays out.
    'AWS::Logs::LogGroup.RetentionInDays': Object.values(logs.RetentionDays).filter((days): days is logs.RetentionDays => typeof days === 'number' && days !== logs.RetentionDays.INFINITE),
    'AWS::Logs::LogGroup.LogGroupClass': Object.values(logs.LogGroupClass),
    'AWS::DynamoDB::GlobalTable.BillingMode': Object.values(dynamodb.BillingMode),
    'AWS::DynamoDB::GlobalTable.StreamSpecification.StreamViewType': Object.values(dynamodb.StreamViewType),
    'AWS::DynamoDB::GlobalTable.AttributeDefinition.AttributeType': Object.values(dynamodb.AttributeType),
    'AWS::DynamoDB::GlobalTable.Projection.ProjectionType': Object.values(dynamodb.ProjectionType),
    'AWS::DynamoDB::GlobalTable.ReplicaSpecification.TableClass': Object.values(dynamodb.TableClass),
    'AWS::DynamoDB::Table.BillingMode': Object.values(dynamodb.BillingMode),
    'AWS::DynamoDB::Table.StreamSpecification.StreamViewType': Object.values(dynamodb.StreamViewType),
    'AWS::DynamoDB::Table.AttributeDefinition.AttributeType': Object.values(dynamodb.AttributeType),
    'AWS::DynamoDB::Table.Projection.ProjectionType': Object.values(dynamodb.ProjectionType),
    'AWS::DynamoDB::Table.TableClass': Object.values(dynamodb.TableClass),
    'AWS::Lambda::Function.Architectures': [lambda.Architecture.ARM_64.name, lambda.Architecture.X86_64.name],
    // DISABLED is CDK's way of leaving TracingConfig out.
    'AWS::Lambda::Function.TracingConfig.Mode': Object.values(lambda.Tracing).filter((mode) => mode !== lambda.Tracing.DISABLED),
    'AWS::Lambda::Function.LoggingConfig.LogFormat': Object.values(lambda.LoggingFormat),
    'AWS::Lambda::Function.LoggingConfig.ApplicationLogLevel': Object.values(lambda.ApplicationLogLevel),
    'AWS::Lambda::Function.LoggingConfig.SystemLogLevel': Object.values(lambda.SystemLogLevel),
    'AWS::Lambda::EventSourceMapping.StartingPosition': Object.values(lambda.StartingPosition),
    'AWS::StepFunctions::StateMachine.StateMachineType': Object.values(sfn.StateMachineType),
    'AWS::StepFunctions::StateMachine.LoggingConfiguration.Level': Object.values(sfn.LogLevel),
    'AWS::KMS::Key.KeySpec': Object.values(kms.KeySpec),
    'AWS::KMS::Key.KeyUsage': Object.values(kms.KeyUsage),
    'AWS::SQS::Queue.FifoThroughputLimit': Object.values(sqs.FifoThroughputLimit),
    'AWS::SQS::Queue.DeduplicationScope': Object.values(sqs.DeduplicationScope),
    'AWS::SNS::Topic.TracingConfig': Object.values(sns.TracingConfig),
    'AWS::SNS::Topic.FifoThroughputScope': Object.values(sns.FifoThroughputScope),
    'AWS::SNS::Subscription.Protocol': Object.values(sns.SubscriptionProtocol),
    'AWS::SSM::Parameter.Tier': Object.values(ssm.ParameterTier),
    'AWS::SSM::Parameter.DataType': Object.values(ssm.ParameterDataType),
  };

  it('accepts every value aws-cdk-lib offers for the same property', () => {
    const refused = Object.entries(CDK_VALUES).flatMap(([key, values]) => {
      const listed = new Set<string>(((CFN_ENUMS[key]?.values ?? []) as readonly (string | number)[]).map(String));
      return values.filter((value) => !listed.has(String(value))).map((value) => `${key}: ${String(value)}`);
    });

    expect(refused).toEqual([]);
    expect(IAM_POLICY_ENUMS.Effect.values).toEqual(expect.arrayContaining(['Allow', 'Deny']));
  });
});

describe('the enum coverage guard', () => {
  const template = {
    Resources: {
      NotFound: { Type: 'AWS::ApiGateway::GatewayResponse', Properties: { RestApiId: 'api', ResponseType: 'RESOURCE_NOT_FOUND', StatusCode: '404' } },
      Queue: { Type: 'AWS::SQS::Queue', Properties: { QueueName: 'ORDERS_QUEUE' } },
    },
  };

  it('reports an enum-looking value the table leaves out, and no free text', () => {
    expect(enumCoverageGaps(template, {}).map((gap) => `${gap.key} = ${String(gap.value)}`)).toEqual(['AWS::ApiGateway::GatewayResponse.ResponseType = RESOURCE_NOT_FOUND']);
  });

  it('is satisfied by a curated entry', () => {
    expect(enumCoverageGaps(template)).toEqual([]);
  });
});

describe('allowed values read from property documentation', () => {
  it.each<[string, string, readonly string[]]>([
    ['an inline list', 'Valid values are `OFF` , `ERROR` , and `INFO` . Choose `ERROR` to write only errors.', ['OFF', 'ERROR', 'INFO']],
    ['a bar-separated list of quoted values', 'Allowed Values* : `"OFF"` | `"FLEXIBLE"`', ['OFF', 'FLEXIBLE']],
    ['a bullet list', 'Valid values for `StreamViewType` are:\n\n- `KEYS_ONLY` - Only the keys.\n- `NEW_IMAGE` - The new item.\n\nMore text.', ['KEYS_ONLY', 'NEW_IMAGE']],
  ])('parses %s', (_name, documentation, expected) => {
    expect(documentedAllowedValues(documentation)).toEqual(expected);
  });

  it.each([
    ['values described in prose', 'Valid values are: `HEADER` to read the API key from the header. `AUTHORIZER` to read it from an authorizer.'],
    ['a pointer to another page', 'For valid values, see [Method](https://docs.aws.amazon.com/apigateway/latest/api/API_Method.html) .'],
    ['values with remarks between them', 'Valid values are `ACCESSED_AND_THROTTLED_KEYS` (tracks all events) or `THROTTLED_KEYS` (tracks throttles).'],
    ['a range', 'Valid values range from 1 to 2880 minutes (2 days).'],
  ])('gives no list for %s', (_name, documentation) => {
    expect(documentedAllowedValues(documentation)).toBeUndefined();
  });
});
