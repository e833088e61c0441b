/**
 * The prices the cost model (bench/cost/model.ts) multiplies by: AWS list prices for one Region, on-demand, without
 * free tiers or savings plans, each with the page it comes from. One table, so a change of Region or price is one
 * edit: `npm run cost -- --region <name>` only labels the output; to price another Region, copy this table's values
 * from the same pages for that Region (the prices below are us-east-1's) and set PRICE_REGION.
 */
export const PRICE_REGION = 'us-east-1';
/** When the values below were read from their pages. */
export const PRICES_READ_ON = '2026-11-27';

export interface Price {
  readonly usd: number;
  readonly unit: string;
  readonly source: string;
}

const price = (usd: number, unit: string, source: string): Price => ({ usd, unit, source });

const API_GATEWAY = 'https://aws.amazon.com/api-gateway/pricing/';
const WAF = 'https://aws.amazon.com/waf/pricing/';
const LAMBDA = 'https://aws.amazon.com/lambda/pricing/';
const DYNAMODB = 'https://aws.amazon.com/dynamodb/pricing/on-demand/';
const STEP_FUNCTIONS = 'https://aws.amazon.com/step-functions/pricing/';
const SQS = 'https://aws.amazon.com/sqs/pricing/';
const KMS = 'https://aws.amazon.com/kms/pricing/';
const SECRETS = 'https://aws.amazon.com/secrets-manager/pricing/';
const CLOUDWATCH = 'https://aws.amazon.com/cloudwatch/pricing/';
const XRAY = 'https://aws.amazon.com/xray/pricing/';
const SCHEDULER = 'https://aws.amazon.com/eventbridge/pricing/';
const TRANSFER = 'https://aws.amazon.com/ec2/pricing/on-demand/#Data_Transfer';

export const PRICES = {
  apiGatewayRestRequest: price(3.5 / 1e6, 'REST API request (first 333 million a month)', API_GATEWAY),
  wafWebAclMonth: price(5, 'web ACL per month', WAF),
  wafRuleMonth: price(1, 'rule per web ACL per month (a managed rule group counts as one rule)', WAF),
  wafRequest: price(0.6 / 1e6, 'request inspected (up to 1,500 WCUs of the web ACL)', WAF),
  lambdaRequest: price(0.2 / 1e6, 'invocation', LAMBDA),
  lambdaArmGbSecond: price(0.0000133334, 'GB-second on arm64', LAMBDA),
  dynamoWriteRequestUnit: price(0.625 / 1e6, 'on-demand write request unit (1 KB; transactional: 2)', DYNAMODB),
  dynamoReadRequestUnit: price(0.125 / 1e6, 'on-demand read request unit (4 KB strongly consistent; eventual: half)', DYNAMODB),
  dynamoStorageGbMonth: price(0.25, 'GB-month of table storage (first 25 GB free, not counted here)', DYNAMODB),
  dynamoPitrGbMonth: price(0.2, 'GB-month of continuous backup (point-in-time recovery)', DYNAMODB),
  stepFunctionsTransition: price(0.025 / 1000, 'Standard workflow state transition', STEP_FUNCTIONS),
  sqsRequest: price(0.4 / 1e6, 'standard queue request (64 KB chunk)', SQS),
  kmsKeyMonth: price(1, 'customer managed key per month', KMS),
  kmsRequest: price(0.03 / 10_000, 'KMS API request', KMS),
  secretMonth: price(0.4, 'secret per month', SECRETS),
  secretsApiCall: price(0.05 / 10_000, 'Secrets Manager API call', SECRETS),
  logsIngestGb: price(0.5, 'GB of CloudWatch Logs ingested (standard class)', CLOUDWATCH),
  logsStorageGbMonth: price(0.03, 'GB-month of CloudWatch Logs stored', CLOUDWATCH),
  alarmMetricMonth: price(0.1, 'standard-resolution alarm metric per month', CLOUDWATCH),
  dashboardMonth: price(3, 'dashboard per month (the first 3 of an account are free, not counted here)', CLOUDWATCH),
  xrayTraceRecorded: price(5 / 1e6, 'trace recorded (first 100,000 a month free, not counted here)', XRAY),
  schedulerInvocation: price(1 / 1e6, 'EventBridge Scheduler invocation (first 14 million a month free, not counted here)', SCHEDULER),
  dataTransferOutGb: price(0.09, 'GB out to the internet (first 10 TB a month; first 100 GB free, not counted here)', TRANSFER),
} as const satisfies Record<string, Price>;

export type Prices = { readonly [K in keyof typeof PRICES]: Price };
