/**
 * The environment a deployed function gets, for handler tests. Import this
 * module before any handler: the platform reads it when the first request
 * arrives. Credentials are fake; every DynamoDB call is mocked.
 */
import { configureSharedPlatform } from '../../../lambdas/shared/platform';

export const TABLES = { access: 'partner-api-unit-access', domain: 'partner-api-unit-domain' } as const;

process.env.TABLE_ACCESS = TABLES.access;
process.env.TABLE_DOMAIN = TABLES.domain;
process.env.AWS_REGION = 'eu-west-1';
process.env.AWS_ACCESS_KEY_ID = 'AKIAUNITTEST';
process.env.AWS_SECRET_ACCESS_KEY = 'unit-test-secret';
process.env.LOG_LEVEL = 'info';
// The in-process burst guard counts every request of a test file as one source IP: off, except in tests about it
// (through the platform's in-process options, as the local stack does: no variable turns it off).
configureSharedPlatform({ edgeGuard: undefined });
