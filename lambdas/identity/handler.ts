/** The `identity` function: `GET /me`. */
import { lazyContracts } from '../shared/http/contract-loading';
import { createPartnerApiHandler } from '../shared/http/partner-api-pipeline';
import { describeKey } from './describe-key';

/** Loaded beside the first round trip, off the cold start (contract-loading.ts). */
const CONTRACTS = lazyContracts(() => import('./identity-contracts').then((module) => module.IDENTITY_CONTRACTS));

export const operations = { me: describeKey };

export const definition = { operations, contracts: CONTRACTS };

export const handler = createPartnerApiHandler(definition);
