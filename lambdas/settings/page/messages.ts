/**
 * Browser code of the settings page: what a failed call means, in words, for a status region.
 */
import type { Failure } from './settings-api';

/** A wait in words: seconds up to 90, then minutes, then hours (a daily limit's wait can be most of a day). */
export function waitText(seconds: number): string {
  if (!(seconds > 0)) return 'a few seconds';
  if (seconds <= 90) return seconds + (seconds === 1 ? ' second' : ' seconds');
  if (seconds <= 90 * 60) return 'about ' + Math.round(seconds / 60) + ' minutes';
  return 'about ' + Math.round(seconds / 3600) + ' hours';
}

/** What a failed call means; a 429 names what there were too many of ("attempts" unless told). */
export function errorText(result: Failure, what?: string): string {
  if (result.status === 429) return 'Too many ' + (what || 'attempts') + '; try again in ' + waitText(Math.ceil(Number(result.retryAfter))) + '.';
  if (result.status === 0) return 'The service cannot be reached. Check your connection and try again.';
  // Still busy after the page's own retries (settings-api.ts call), or a wait longer than it takes by itself.
  if (result.code === 'PASSWORD_CHECK_BUSY') return 'The service is checking too many passwords right now; try again in ' + waitText(Math.ceil(Number(result.retryAfter))) + '.';
  return result.message || 'Something went wrong (HTTP ' + result.status + '). Please try again.';
}

/** What a refused change says when its password was wrong (and any other failure). */
export const refusalText = (result: Failure): string => (result.code === 'INVALID_PASSWORD' ? 'The password is wrong.' : errorText(result));
