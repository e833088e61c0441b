/**
 * Lambda function environments: at most 4 KB together, and none of the keys the runtime reserves.
 * Lambda refuses the function at deploy time ("Lambda was unable to configure your environment
 * variables because the environment variables you have provided exceeded the 4KB limit"); the
 * values that decide it (table names, ARNs, URLs) are often intrinsics, so their size is bounded
 * by intrinsics.ts rather than known.
 */
import { maxJsonLength, UnboundedValueError } from './intrinsics';
import { defineRule, isObject, resourcesOf, type Problem } from './rule';

/** "Function environment variables: 4 KB, for all environment variables associated with the function, in aggregate". */
export const MAX_ENVIRONMENT_BYTES = 4096;

/** Keys the Lambda runtime sets itself; a function may not set them. */
export const RESERVED_ENVIRONMENT_KEYS: ReadonlySet<string> = new Set([
  '_HANDLER',
  '_X_AMZN_TRACE_ID',
  'AWS_DEFAULT_REGION',
  'AWS_REGION',
  'AWS_EXECUTION_ENV',
  'AWS_LAMBDA_FUNCTION_NAME',
  'AWS_LAMBDA_FUNCTION_MEMORY_SIZE',
  'AWS_LAMBDA_FUNCTION_VERSION',
  'AWS_LAMBDA_INITIALIZATION_TYPE',
  'AWS_LAMBDA_LOG_GROUP_NAME',
  'AWS_LAMBDA_LOG_STREAM_NAME',
  'AWS_ACCESS_KEY',
  'AWS_ACCESS_KEY_ID',
  'AWS_SECRET_ACCESS_KEY',
  'AWS_SESSION_TOKEN',
  'AWS_LAMBDA_RUNTIME_API',
  'LAMBDA_TASK_ROOT',
  'LAMBDA_RUNTIME_DIR',
]);

// Lambda quotas ("Function environment variables 4 KB … in aggregate") and the runtime's reserved keys:
// https://docs.aws.amazon.com/lambda/latest/dg/gettingstarted-limits.html
// https://docs.aws.amazon.com/lambda/latest/dg/configuration-envvars.html#configuration-envvars-runtime
export const lambdaEnvironmentSize = defineRule({
  id: 'lambda-environment-size',
  title: 'Function environments stay within 4 KB and set no reserved key',
  docs: 'https://docs.aws.amazon.com/lambda/latest/dg/gettingstarted-limits.html',
  problems: (stacks) =>
    resourcesOf(stacks, 'AWS::Lambda::Function').flatMap(({ stack, logicalId, resource }): Problem[] => {
      const environment = resource.Properties?.Environment;
      const variables = isObject(environment) ? environment.Variables : undefined;
      if (variables === undefined) return [];
      const at = { stackName: stack.stackName, logicalId, locations: ['Properties/Environment/Variables'] };
      const problems: Problem[] = [];
      if (isObject(variables)) {
        const reserved = Object.keys(variables).filter((key) => RESERVED_ENVIRONMENT_KEYS.has(key));
        if (reserved.length > 0) {
          problems.push({
            ...at,
            problem: `sets ${reserved.join(', ')}, reserved by the Lambda runtime (https://docs.aws.amazon.com/lambda/latest/dg/configuration-envvars.html#configuration-envvars-runtime)`,
            fix: 'Read the runtime’s own variable instead, or give yours another name.',
          });
        }
      }
      try {
        // Lambda measures the variables as the JSON object it shows in its error ("String measured: {"KEY":"value",…}"),
        // which is at least every key and value together.
        const bytes = maxJsonLength(variables, { template: stack.template, stacks, measure: 'utf8-bytes' });
        if (bytes > MAX_ENVIRONMENT_BYTES) {
          problems.push({
            ...at,
            problem: `environment of up to ${bytes} bytes (estimated upper bound, intrinsics at their longest), above ${MAX_ENVIRONMENT_BYTES} (4 KB)`,
            fix: 'Pass fewer or shorter values: derive names from one prefix, or read configuration from SSM Parameter Store at start.',
          });
        }
      } catch (error) {
        if (!(error instanceof UnboundedValueError)) throw error;
        problems.push({ ...at, problem: `environment size cannot be bounded: ${error.message}`, fix: 'Add a bound for it to lib/compliance/deploy-readiness/intrinsics.ts, or pass a literal.' });
      }
      return problems;
    }),
});
