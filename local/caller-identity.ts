/**
 * The `requestContext.identity` of an API Gateway REST proxy event, shared by
 * the local front and the unit tests' event fixtures (which must not import
 * the front and, through it, every handler).
 */
import type { APIGatewayProxyEvent } from 'aws-lambda';

/** The `requestContext.identity` API Gateway sends for an unauthenticated (IAM-less) caller. */
export function callerIdentity(sourceIp: string, userAgent: string | null): APIGatewayProxyEvent['requestContext']['identity'] {
  return {
    accessKey: null,
    accountId: null,
    apiKey: null,
    apiKeyId: null,
    caller: null,
    clientCert: null,
    cognitoAuthenticationProvider: null,
    cognitoAuthenticationType: null,
    cognitoIdentityId: null,
    cognitoIdentityPoolId: null,
    principalOrgId: null,
    sourceIp,
    user: null,
    userAgent,
    userArn: null,
  };
}
