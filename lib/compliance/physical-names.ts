/**
 * Which property of a CloudFormation resource holds the physical name its creator chose, for
 * every resource type this service gives a name (or could). Declared once for the checks that
 * read names off synthesized templates: the deploy-readiness rule that no two stages (and no two
 * stacks of one app) can claim the same name in one account and Region, and the upgrade guard
 * that refuses to replace a custom-named resource (CloudFormation cannot: "CloudFormation cannot
 * update a stack when a custom-named resource requires replacing").
 *
 * A type not listed here whose template sets a property ending in `Name` is reported by the
 * names rule, so a new named resource is added here rather than slipping through.
 *
 * Not names in this sense (never listed): properties that name another resource (a Lambda
 * permission's FunctionName, an IAM policy's PolicyName, which is unique per role only, an API
 * stage's StageName, unique per API only).
 */

/** Resource type → the property holding the name the template chose, and AWS's length limit for it. */
export const PHYSICAL_NAME_PROPERTIES: Readonly<Record<string, { readonly property: string; readonly maxLength: number }>> = {
  'AWS::DynamoDB::GlobalTable': { property: 'TableName', maxLength: 255 },
  'AWS::DynamoDB::Table': { property: 'TableName', maxLength: 255 },
  'AWS::SQS::Queue': { property: 'QueueName', maxLength: 80 },
  'AWS::SNS::Topic': { property: 'TopicName', maxLength: 256 },
  'AWS::Logs::LogGroup': { property: 'LogGroupName', maxLength: 512 },
  'AWS::Logs::ResourcePolicy': { property: 'PolicyName', maxLength: 255 },
  'AWS::WAFv2::WebACL': { property: 'Name', maxLength: 128 },
  'AWS::WAFv2::RuleGroup': { property: 'Name', maxLength: 128 },
  'AWS::WAFv2::RegexPatternSet': { property: 'Name', maxLength: 128 },
  'AWS::WAFv2::IPSet': { property: 'Name', maxLength: 128 },
  'AWS::StepFunctions::StateMachine': { property: 'StateMachineName', maxLength: 80 },
  'AWS::CloudWatch::Alarm': { property: 'AlarmName', maxLength: 255 },
  'AWS::CloudWatch::Dashboard': { property: 'DashboardName', maxLength: 255 },
  'AWS::SecretsManager::Secret': { property: 'Name', maxLength: 512 },
  'AWS::KMS::Alias': { property: 'AliasName', maxLength: 256 },
  'AWS::SSM::Parameter': { property: 'Name', maxLength: 2048 },
  'AWS::ApiGateway::RestApi': { property: 'Name', maxLength: 1024 },
  'AWS::Lambda::Function': { property: 'FunctionName', maxLength: 64 },
  'AWS::IAM::Role': { property: 'RoleName', maxLength: 64 },
  'AWS::Scheduler::Schedule': { property: 'Name', maxLength: 64 },
};

/** Properties ending in `Name` that reference another resource or are unique only inside their parent: never a physical name. */
export const NOT_PHYSICAL_NAMES: Readonly<Record<string, readonly string[]>> = {
  'AWS::Lambda::Permission': ['FunctionName'],
  'AWS::Lambda::EventInvokeConfig': ['FunctionName'],
  'AWS::Lambda::EventSourceMapping': ['FunctionName'],
  'AWS::IAM::Policy': ['PolicyName'],
  'AWS::IAM::RolePolicy': ['PolicyName'],
  'AWS::ApiGateway::Stage': ['StageName'],
  'AWS::SNS::Topic': ['DisplayName'],
  'AWS::CloudWatch::Alarm': ['MetricName'],
  // The operator's own host name (StageConfig.customDomains), not one the service makes up: it carries no stage token,
  // and stage config refuses one name for two front doors; API Gateway refuses a name another API of the account holds.
  'AWS::ApiGateway::DomainName': ['DomainName'],
};

/** The physical name a resource's template sets, when it is a plain string (intrinsics resolve only at deploy time). */
export function physicalNameOf(resource: { readonly Type: string; readonly Properties?: Readonly<Record<string, unknown>> }): string | undefined {
  const spec = PHYSICAL_NAME_PROPERTIES[resource.Type];
  const value = spec ? resource.Properties?.[spec.property] : undefined;
  return typeof value === 'string' ? value : undefined;
}

/**
 * Types whose names are unique in the whole account, not per Region (IAM is a global service): a name
 * the template chooses must hold the Region (`Ref: AWS::Region`), or the same stage deployed in a second
 * Region fails on a name the first one holds. `regionBound` is the longest Region name counted for the
 * length check (today's longest has 14 characters).
 */
export const ACCOUNT_WIDE_NAME_TYPES: Readonly<Record<string, { readonly regionBound: number }>> = {
  'AWS::IAM::Role': { regionBound: 18 },
  'AWS::IAM::ManagedPolicy': { regionBound: 18 },
  'AWS::IAM::InstanceProfile': { regionBound: 18 },
};

/** Types whose names share one namespace with another type's: a global table and a table cannot have the same name. */
export const SHARED_NAME_SCOPES: Readonly<Record<string, string>> = {
  'AWS::DynamoDB::GlobalTable': 'AWS::DynamoDB::Table',
};

/** The namespace a type's names are unique in (its own type unless SHARED_NAME_SCOPES says otherwise). */
export function nameScopeOf(type: string): string {
  return SHARED_NAME_SCOPES[type] ?? type;
}
