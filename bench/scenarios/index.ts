/**
 * The scenarios `npm run bench` runs, in order. The baseline a scenario
 * compares with runs before it; bundling runs last, so its CPU-heavy work
 * cannot disturb the latency runs.
 */
import type { RegisteredScenario } from '../scenario';
import { bundles } from './bundles';
import { dynamoGetItem } from './dynamo-get-item';
import { getMe } from './get-me';

export const SCENARIOS: readonly RegisteredScenario[] = [dynamoGetItem, getMe, bundles];
