/**
 * The allowed values of the enum-valued CloudFormation properties this service's templates set
 * (and their close siblings on the same resource types), each from the property's page of the
 * CloudFormation template reference. The resource specification carries an enum for some of them
 * (the registry schema's `enum`) and none for others (Lambda's Runtime, DynamoDB's BillingMode,
 * API Gateway's HttpMethod, CloudWatch's ComparisonOperator, …), and a value outside the list
 * fails only at deploy time, after the stack has started to change. Here each list is declared
 * once, with its page; the template schema checks (template-types.ts) prefer it over the
 * specification's.
 *
 * Keys name the property through its type definitions, with the specification's type names:
 * `AWS::Lambda::Function.Runtime` for a resource's own property,
 * `AWS::WAFv2::WebACL.TextTransformation.Type` for a property of a nested type. A list property
 * (Architectures, EndpointConfiguration Types) lists the values of its elements.
 * test/infra/template-schema.test.ts proves every key names a real property, every page is that
 * property's page, no list misses a value the specification or aws-cdk-lib offers, and a real
 * template sets no enum-looking property this table leaves out.
 *
 * Not listed: Secrets Manager's Secret has no enum-valued property (its Type names an external
 * partner, free text).
 */

export interface EnumEntry {
  readonly values: readonly string[] | readonly number[];
  /** The CloudFormation template reference page that lists the values. */
  readonly source: string;
}

export type EnumTable = Readonly<Record<string, EnumEntry>>;

const REFERENCE = 'https://docs.aws.amazon.com/AWSCloudFormation/latest/TemplateReference/';

const HTTP_METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS', 'ANY'];
const API_LOGGING_LEVELS = ['OFF', 'ERROR', 'INFO'];
const LAMBDA_SYSTEM_LOG_LEVELS = ['DEBUG', 'INFO', 'WARN'];
const CLOUDWATCH_UNITS = [
  'Seconds', 'Microseconds', 'Milliseconds', 'Bytes', 'Kilobytes', 'Megabytes', 'Gigabytes', 'Terabytes', 'Bits', 'Kilobits',
  'Megabits', 'Gigabits', 'Terabits', 'Percent', 'Count', 'Bytes/Second', 'Kilobytes/Second', 'Megabytes/Second',
  'Gigabytes/Second', 'Terabytes/Second', 'Bits/Second', 'Kilobits/Second', 'Megabits/Second', 'Gigabits/Second',
  'Terabits/Second', 'Count/Second', 'None',
];
const DYNAMODB_KEY_TYPES = ['HASH', 'RANGE'];
const DYNAMODB_ATTRIBUTE_TYPES = ['S', 'N', 'B'];
const DYNAMODB_PROJECTION_TYPES = ['ALL', 'KEYS_ONLY', 'INCLUDE'];
const DYNAMODB_BILLING_MODES = ['PAY_PER_REQUEST', 'PROVISIONED'];
const DYNAMODB_STREAM_VIEW_TYPES = ['KEYS_ONLY', 'NEW_IMAGE', 'OLD_IMAGE', 'NEW_AND_OLD_IMAGES'];
const DYNAMODB_TABLE_CLASSES = ['STANDARD', 'STANDARD_INFREQUENT_ACCESS'];
const WAF_KEEP_OR_DROP = ['KEEP', 'DROP'];
const WAF_OVERSIZE_HANDLING = ['CONTINUE', 'MATCH', 'NO_MATCH'];
const WAF_MATCH_SCOPES = ['ALL', 'KEY', 'VALUE'];

/**
 * The runtimes Lambda supports for new functions, from the runtime table of the Lambda developer
 * guide that the Runtime property's page points to (https://docs.aws.amazon.com/lambda/latest/dg/lambda-runtimes.html),
 * as aws-cdk-lib 2.276's `Runtime` class mirrors it without its deprecated entries. Deprecated
 * runtimes (nodejs18.x, python3.9, java8, dotnet6, …) are left out on purpose: Lambda blocks
 * creating functions on them and soon after updating them, so a template that names one fails
 * to deploy or to update. `dotnet9` is left out too: Lambda offers .NET 9 as a container image
 * only, not as a managed runtime.
 */
const LAMBDA_RUNTIMES = [
  'nodejs20.x', 'nodejs22.x', 'nodejs24.x',
  'python3.10', 'python3.11', 'python3.12', 'python3.13', 'python3.14', 'python3.15',
  'java8.al2', 'java8.al2023', 'java11', 'java11.al2023', 'java17', 'java17.al2023', 'java21', 'java25',
  'dotnet8', 'dotnet10',
  'ruby3.2', 'ruby3.3', 'ruby3.4', 'ruby4.0',
  'provided.al2', 'provided.al2023',
];

function page(slug: string): string {
  return `${REFERENCE}${slug}.html`;
}

export const CFN_ENUMS: EnumTable = {
  // WAFv2 web ACL and its logging
  'AWS::WAFv2::WebACL.Scope': { values: ['CLOUDFRONT', 'REGIONAL'], source: page('aws-resource-wafv2-webacl') },
  'AWS::WAFv2::WebACL.TextTransformation.Type': {
    values: [
      'NONE', 'COMPRESS_WHITE_SPACE', 'HTML_ENTITY_DECODE', 'LOWERCASE', 'CMD_LINE', 'URL_DECODE', 'BASE64_DECODE', 'HEX_DECODE', 'MD5',
      'REPLACE_COMMENTS', 'ESCAPE_SEQ_DECODE', 'SQL_HEX_DECODE', 'CSS_DECODE', 'JS_DECODE', 'NORMALIZE_PATH', 'NORMALIZE_PATH_WIN',
      'REMOVE_NULLS', 'REPLACE_NULLS', 'BASE64_DECODE_EXT', 'URL_DECODE_UNI', 'UTF8_TO_UNICODE', 'REMOVE_WHITESPACE', 'TRIM', 'TRIM_LEFT',
      'TRIM_RIGHT', 'REMOVE_COMMENTS_CHAR', 'UPPERCASE', 'CMD_LINE_WIN', 'CMD_LINE_UNIX', 'JS_DECODE_EXT', 'SHA256',
    ],
    source: page('aws-properties-wafv2-webacl-texttransformation'),
  },
  'AWS::WAFv2::WebACL.ByteMatchStatement.PositionalConstraint': {
    values: ['EXACTLY', 'STARTS_WITH', 'ENDS_WITH', 'CONTAINS', 'CONTAINS_WORD'],
    source: page('aws-properties-wafv2-webacl-bytematchstatement'),
  },
  'AWS::WAFv2::WebACL.SizeConstraintStatement.ComparisonOperator': {
    values: ['EQ', 'NE', 'LE', 'LT', 'GE', 'GT'],
    source: page('aws-properties-wafv2-webacl-sizeconstraintstatement'),
  },
  'AWS::WAFv2::WebACL.RateBasedStatement.AggregateKeyType': {
    values: ['CONSTANT', 'IP', 'FORWARDED_IP', 'CUSTOM_KEYS'],
    source: page('aws-properties-wafv2-webacl-ratebasedstatement'),
  },
  'AWS::WAFv2::WebACL.RateBasedStatement.EvaluationWindowSec': { values: [60, 120, 300, 600], source: page('aws-properties-wafv2-webacl-ratebasedstatement') },
  'AWS::WAFv2::WebACL.CustomResponseBody.ContentType': {
    values: ['TEXT_PLAIN', 'TEXT_HTML', 'APPLICATION_JSON'],
    source: page('aws-properties-wafv2-webacl-customresponsebody'),
  },
  'AWS::WAFv2::WebACL.Body.OversizeHandling': { values: WAF_OVERSIZE_HANDLING, source: page('aws-properties-wafv2-webacl-body') },
  'AWS::WAFv2::WebACL.Headers.OversizeHandling': { values: WAF_OVERSIZE_HANDLING, source: page('aws-properties-wafv2-webacl-headers') },
  'AWS::WAFv2::WebACL.Headers.MatchScope': { values: WAF_MATCH_SCOPES, source: page('aws-properties-wafv2-webacl-headers') },
  'AWS::WAFv2::WebACL.JsonBody.MatchScope': { values: WAF_MATCH_SCOPES, source: page('aws-properties-wafv2-webacl-jsonbody') },
  'AWS::WAFv2::WebACL.JsonBody.OversizeHandling': { values: WAF_OVERSIZE_HANDLING, source: page('aws-properties-wafv2-webacl-jsonbody') },
  'AWS::WAFv2::WebACL.LabelMatchStatement.Scope': { values: ['LABEL', 'NAMESPACE'], source: page('aws-properties-wafv2-webacl-labelmatchstatement') },
  'AWS::WAFv2::LoggingConfiguration.Filter.Behavior': { values: WAF_KEEP_OR_DROP, source: page('aws-properties-wafv2-loggingconfiguration-filter') },
  'AWS::WAFv2::LoggingConfiguration.Filter.Requirement': {
    values: ['MEETS_ALL', 'MEETS_ANY'],
    source: page('aws-properties-wafv2-loggingconfiguration-filter'),
  },
  'AWS::WAFv2::LoggingConfiguration.LoggingFilter.DefaultBehavior': {
    values: WAF_KEEP_OR_DROP,
    source: page('aws-properties-wafv2-loggingconfiguration-loggingfilter'),
  },
  'AWS::WAFv2::LoggingConfiguration.ActionCondition.Action': {
    values: ['ALLOW', 'BLOCK', 'COUNT', 'CAPTCHA', 'CHALLENGE', 'MONETIZE', 'EXCLUDED_AS_COUNT'],
    source: page('aws-properties-wafv2-loggingconfiguration-actioncondition'),
  },

  // Lambda
  'AWS::Lambda::Function.Runtime': { values: LAMBDA_RUNTIMES, source: page('aws-resource-lambda-function') },
  'AWS::Lambda::Function.Architectures': { values: ['arm64', 'x86_64'], source: page('aws-resource-lambda-function') },
  'AWS::Lambda::Function.PackageType': { values: ['Image', 'Zip'], source: page('aws-resource-lambda-function') },
  'AWS::Lambda::Function.TracingConfig.Mode': { values: ['Active', 'PassThrough'], source: page('aws-properties-lambda-function-tracingconfig') },
  'AWS::Lambda::Function.LoggingConfig.LogFormat': { values: ['Text', 'JSON'], source: page('aws-properties-lambda-function-loggingconfig') },
  'AWS::Lambda::Function.LoggingConfig.ApplicationLogLevel': {
    values: ['TRACE', 'DEBUG', 'INFO', 'WARN', 'ERROR', 'FATAL'],
    source: page('aws-properties-lambda-function-loggingconfig'),
  },
  'AWS::Lambda::Function.LoggingConfig.SystemLogLevel': { values: LAMBDA_SYSTEM_LOG_LEVELS, source: page('aws-properties-lambda-function-loggingconfig') },
  'AWS::Lambda::EventSourceMapping.StartingPosition': {
    values: ['TRIM_HORIZON', 'LATEST', 'AT_TIMESTAMP'],
    source: page('aws-resource-lambda-eventsourcemapping'),
  },
  'AWS::Lambda::EventSourceMapping.FunctionResponseTypes': { values: ['ReportBatchItemFailures'], source: page('aws-resource-lambda-eventsourcemapping') },
  'AWS::Lambda::EventInvokeConfig.MaximumRetryAttempts': { values: [0, 1, 2], source: page('aws-resource-lambda-eventinvokeconfig') },
  'AWS::Lambda::Permission.FunctionUrlAuthType': { values: ['AWS_IAM', 'NONE'], source: page('aws-resource-lambda-permission') },

  // DynamoDB: the global table this service deploys, and the plain table
  'AWS::DynamoDB::GlobalTable.BillingMode': { values: DYNAMODB_BILLING_MODES, source: page('aws-resource-dynamodb-globaltable') },
  'AWS::DynamoDB::GlobalTable.MultiRegionConsistency': { values: ['EVENTUAL', 'STRONG'], source: page('aws-resource-dynamodb-globaltable') },
  'AWS::DynamoDB::GlobalTable.StreamSpecification.StreamViewType': {
    values: DYNAMODB_STREAM_VIEW_TYPES,
    source: page('aws-properties-dynamodb-globaltable-streamspecification'),
  },
  'AWS::DynamoDB::GlobalTable.KeySchema.KeyType': { values: DYNAMODB_KEY_TYPES, source: page('aws-properties-dynamodb-globaltable-keyschema') },
  'AWS::DynamoDB::GlobalTable.AttributeDefinition.AttributeType': {
    values: DYNAMODB_ATTRIBUTE_TYPES,
    source: page('aws-properties-dynamodb-globaltable-attributedefinition'),
  },
  'AWS::DynamoDB::GlobalTable.Projection.ProjectionType': { values: DYNAMODB_PROJECTION_TYPES, source: page('aws-properties-dynamodb-globaltable-projection') },
  'AWS::DynamoDB::GlobalTable.ReplicaSpecification.TableClass': {
    values: DYNAMODB_TABLE_CLASSES,
    source: page('aws-properties-dynamodb-globaltable-replicaspecification'),
  },
  'AWS::DynamoDB::Table.BillingMode': { values: DYNAMODB_BILLING_MODES, source: page('aws-resource-dynamodb-table') },
  'AWS::DynamoDB::Table.TableClass': { values: DYNAMODB_TABLE_CLASSES, source: page('aws-resource-dynamodb-table') },
  'AWS::DynamoDB::Table.StreamSpecification.StreamViewType': {
    values: DYNAMODB_STREAM_VIEW_TYPES,
    source: page('aws-properties-dynamodb-table-streamspecification'),
  },
  'AWS::DynamoDB::Table.KeySchema.KeyType': { values: DYNAMODB_KEY_TYPES, source: page('aws-properties-dynamodb-table-keyschema') },
  'AWS::DynamoDB::Table.AttributeDefinition.AttributeType': {
    values: DYNAMODB_ATTRIBUTE_TYPES,
    source: page('aws-properties-dynamodb-table-attributedefinition'),
  },
  'AWS::DynamoDB::Table.Projection.ProjectionType': { values: DYNAMODB_PROJECTION_TYPES, source: page('aws-properties-dynamodb-table-projection') },

  // API Gateway (REST)
  'AWS::ApiGateway::RestApi.EndpointConfiguration.Types': {
    values: ['EDGE', 'REGIONAL', 'PRIVATE'],
    source: page('aws-properties-apigateway-restapi-endpointconfiguration'),
  },
  'AWS::ApiGateway::RestApi.ApiKeySourceType': { values: ['HEADER', 'AUTHORIZER'], source: page('aws-resource-apigateway-restapi') },
  'AWS::ApiGateway::RestApi.Mode': { values: ['overwrite', 'merge'], source: page('aws-resource-apigateway-restapi') },
  'AWS::ApiGateway::RestApi.SecurityPolicy': {
    values: [
      'TLS_1_0', 'TLS_1_2', 'SecurityPolicy_TLS13_1_3_2025_09', 'SecurityPolicy_TLS13_1_3_FIPS_2025_09', 'SecurityPolicy_TLS13_1_2_PQ_2025_09',
      'SecurityPolicy_TLS13_1_2_PFS_PQ_2025_09', 'SecurityPolicy_TLS13_2025_EDGE', 'SecurityPolicy_TLS12_PFS_2025_EDGE', 'SecurityPolicy_TLS12_2018_EDGE',
    ],
    source: page('aws-resource-apigateway-restapi'),
  },
  'AWS::ApiGateway::Method.HttpMethod': { values: HTTP_METHODS, source: page('aws-resource-apigateway-method') },
  // A stage's method setting names one method of a resource (sign-in's own throttle: POST), or `*` for all of them.
  'AWS::ApiGateway::Stage.MethodSetting.HttpMethod': { values: ['*', ...HTTP_METHODS], source: page('aws-properties-apigateway-stage-methodsetting') },
  'AWS::ApiGateway::Method.AuthorizationType': {
    values: ['NONE', 'AWS_IAM', 'CUSTOM', 'COGNITO_USER_POOLS'],
    source: page('aws-resource-apigateway-method'),
  },
  'AWS::ApiGateway::Method.Integration.Type': {
    values: ['AWS', 'AWS_PROXY', 'HTTP', 'HTTP_PROXY', 'MOCK'],
    source: page('aws-properties-apigateway-method-integration'),
  },
  'AWS::ApiGateway::Method.Integration.IntegrationHttpMethod': { values: HTTP_METHODS, source: page('aws-properties-apigateway-method-integration') },
  'AWS::ApiGateway::Method.Integration.PassthroughBehavior': {
    values: ['WHEN_NO_MATCH', 'WHEN_NO_TEMPLATES', 'NEVER'],
    source: page('aws-properties-apigateway-method-integration'),
  },
  'AWS::ApiGateway::Method.Integration.ContentHandling': {
    values: ['CONVERT_TO_BINARY', 'CONVERT_TO_TEXT'],
    source: page('aws-properties-apigateway-method-integration'),
  },
  'AWS::ApiGateway::Method.Integration.ConnectionType': { values: ['INTERNET', 'VPC_LINK'], source: page('aws-properties-apigateway-method-integration') },
  'AWS::ApiGateway::GatewayResponse.ResponseType': {
    values: [
      'ACCESS_DENIED', 'API_CONFIGURATION_ERROR', 'AUTHORIZER_FAILURE', 'AUTHORIZER_CONFIGURATION_ERROR', 'BAD_REQUEST_PARAMETERS',
      'BAD_REQUEST_BODY', 'DEFAULT_4XX', 'DEFAULT_5XX', 'EXPIRED_TOKEN', 'INVALID_SIGNATURE', 'INTEGRATION_FAILURE', 'INTEGRATION_TIMEOUT',
      'INVALID_API_KEY', 'MISSING_AUTHENTICATION_TOKEN', 'QUOTA_EXCEEDED', 'REQUEST_TOO_LARGE', 'RESOURCE_NOT_FOUND', 'THROTTLED',
      'UNAUTHORIZED', 'UNSUPPORTED_MEDIA_TYPE', 'WAF_FILTERED',
    ],
    source: page('aws-resource-apigateway-gatewayresponse'),
  },
  'AWS::ApiGateway::Stage.MethodSetting.LoggingLevel': { values: API_LOGGING_LEVELS, source: page('aws-properties-apigateway-stage-methodsetting') },
  'AWS::ApiGateway::Deployment.MethodSetting.LoggingLevel': {
    values: API_LOGGING_LEVELS,
    source: page('aws-properties-apigateway-deployment-methodsetting'),
  },
  'AWS::ApiGateway::Deployment.StageDescription.LoggingLevel': {
    values: API_LOGGING_LEVELS,
    source: page('aws-properties-apigateway-deployment-stagedescription'),
  },

  // CloudWatch alarms
  'AWS::CloudWatch::Alarm.ComparisonOperator': {
    values: [
      'GreaterThanOrEqualToThreshold', 'GreaterThanThreshold', 'LessThanThreshold', 'LessThanOrEqualToThreshold',
      'LessThanLowerOrGreaterThanUpperThreshold', 'LessThanLowerThreshold', 'GreaterThanUpperThreshold',
    ],
    source: page('aws-resource-cloudwatch-alarm'),
  },
  'AWS::CloudWatch::Alarm.Statistic': { values: ['SampleCount', 'Average', 'Sum', 'Minimum', 'Maximum'], source: page('aws-resource-cloudwatch-alarm') },
  'AWS::CloudWatch::Alarm.TreatMissingData': { values: ['breaching', 'notBreaching', 'ignore', 'missing'], source: page('aws-resource-cloudwatch-alarm') },
  'AWS::CloudWatch::Alarm.EvaluateLowSampleCountPercentile': { values: ['evaluate', 'ignore'], source: page('aws-resource-cloudwatch-alarm') },
  'AWS::CloudWatch::Alarm.Unit': { values: CLOUDWATCH_UNITS, source: page('aws-resource-cloudwatch-alarm') },
  'AWS::CloudWatch::Alarm.MetricStat.Unit': { values: CLOUDWATCH_UNITS, source: page('aws-properties-cloudwatch-alarm-metricstat') },

  // CloudWatch Logs
  'AWS::Logs::LogGroup.RetentionInDays': {
    values: [1, 3, 5, 7, 14, 30, 60, 90, 120, 150, 180, 365, 400, 545, 731, 1096, 1827, 2192, 2557, 2922, 3288, 3653],
    source: page('aws-resource-logs-loggroup'),
  },
  'AWS::Logs::LogGroup.LogGroupClass': { values: ['STANDARD', 'INFREQUENT_ACCESS', 'DELIVERY'], source: page('aws-resource-logs-loggroup') },

  // SQS and SNS
  'AWS::SQS::Queue.FifoThroughputLimit': { values: ['perQueue', 'perMessageGroupId'], source: page('aws-resource-sqs-queue') },
  'AWS::SQS::Queue.DeduplicationScope': { values: ['messageGroup', 'queue'], source: page('aws-resource-sqs-queue') },
  'AWS::SNS::Topic.TracingConfig': { values: ['PassThrough', 'Active'], source: page('aws-resource-sns-topic') },
  'AWS::SNS::Topic.FifoThroughputScope': { values: ['Topic', 'MessageGroup'], source: page('aws-resource-sns-topic') },
  'AWS::SNS::Subscription.Protocol': {
    values: ['http', 'https', 'email', 'email-json', 'sms', 'sqs', 'application', 'lambda', 'firehose'],
    source: page('aws-resource-sns-subscription'),
  },
  'AWS::SNS::Subscription.FilterPolicyScope': { values: ['MessageAttributes', 'MessageBody'], source: page('aws-resource-sns-subscription') },

  // Step Functions
  'AWS::StepFunctions::StateMachine.StateMachineType': { values: ['STANDARD', 'EXPRESS'], source: page('aws-resource-stepfunctions-statemachine') },
  'AWS::StepFunctions::StateMachine.LoggingConfiguration.Level': {
    values: ['ALL', 'ERROR', 'FATAL', 'OFF'],
    source: page('aws-properties-stepfunctions-statemachine-loggingconfiguration'),
  },
  'AWS::StepFunctions::StateMachine.EncryptionConfiguration.Type': {
    values: ['CUSTOMER_MANAGED_KMS_KEY', 'AWS_OWNED_KEY'],
    source: page('aws-properties-stepfunctions-statemachine-encryptionconfiguration'),
  },

  // EventBridge Scheduler
  'AWS::Scheduler::Schedule.State': { values: ['ENABLED', 'DISABLED'], source: page('aws-resource-scheduler-schedule') },
  'AWS::Scheduler::Schedule.FlexibleTimeWindow.Mode': { values: ['OFF', 'FLEXIBLE'], source: page('aws-properties-scheduler-schedule-flexibletimewindow') },

  // KMS
  'AWS::KMS::Key.KeySpec': {
    values: [
      'SYMMETRIC_DEFAULT', 'RSA_2048', 'RSA_3072', 'RSA_4096', 'ECC_NIST_P256', 'ECC_NIST_P384', 'ECC_NIST_P521', 'ECC_SECG_P256K1',
      'ECC_NIST_EDWARDS25519', 'HMAC_224', 'HMAC_256', 'HMAC_384', 'HMAC_512', 'SM2', 'ML_DSA_44', 'ML_DSA_65', 'ML_DSA_87',
    ],
    source: page('aws-resource-kms-key'),
  },
  'AWS::KMS::Key.KeyUsage': { values: ['ENCRYPT_DECRYPT', 'SIGN_VERIFY', 'GENERATE_VERIFY_MAC', 'KEY_AGREEMENT'], source: page('aws-resource-kms-key') },
  'AWS::KMS::Key.Origin': { values: ['AWS_KMS', 'EXTERNAL'], source: page('aws-resource-kms-key') },

  // Systems Manager parameters (CloudFormation cannot create SecureString parameters)
  'AWS::SSM::Parameter.Type': { values: ['String', 'StringList'], source: page('aws-resource-ssm-parameter') },
  'AWS::SSM::Parameter.Tier': { values: ['Standard', 'Advanced', 'Intelligent-Tiering'], source: page('aws-resource-ssm-parameter') },
  'AWS::SSM::Parameter.DataType': { values: ['text', 'aws:ec2:image'], source: page('aws-resource-ssm-parameter') },
};

/**
 * The properties whose JSON value is an IAM policy document. The specification types them as plain
 * JSON, so the type walker checks their grammar against IAM's own elements instead
 * (template-types.ts, IAM_POLICY_ENUMS).
 */
export const POLICY_DOCUMENT_PROPERTIES: ReadonlySet<string> = new Set([
  'AWS::IAM::Role.AssumeRolePolicyDocument',
  'AWS::IAM::Role.Policy.PolicyDocument',
  'AWS::IAM::Policy.PolicyDocument',
  'AWS::IAM::ManagedPolicy.PolicyDocument',
  'AWS::KMS::Key.KeyPolicy',
  'AWS::SQS::QueuePolicy.PolicyDocument',
  'AWS::SNS::TopicPolicy.PolicyDocument',
  'AWS::SecretsManager::ResourcePolicy.ResourcePolicy',
  'AWS::ApiGateway::RestApi.Policy',
  'AWS::DynamoDB::Table.ResourcePolicy.PolicyDocument',
  'AWS::DynamoDB::GlobalTable.ResourcePolicy.PolicyDocument',
]);

/** The enum-valued elements of an IAM policy document, from the IAM JSON policy element reference. */
export const IAM_POLICY_ENUMS = {
  Version: {
    values: ['2012-10-17', '2008-10-17'],
    source: 'https://docs.aws.amazon.com/IAM/latest/UserGuide/reference_policies_elements_version.html',
  },
  Effect: {
    values: ['Allow', 'Deny'],
    source: 'https://docs.aws.amazon.com/IAM/latest/UserGuide/reference_policies_elements_effect.html',
  },
} as const satisfies Readonly<Record<string, EnumEntry>>;
