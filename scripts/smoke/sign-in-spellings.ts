/**
 * `--check-waf`, web side: the sign-in rule (`sign-in-ip-minute`, WAF's per-IP sign-in rate) counts the sign-in
 * path however it is spelled. API Gateway merges the slashes after the stage when it routes a REST API's request
 * (`/v1//settings/api/session` reaches the sign-in method), and a dot segment is a path a client may send unresolved;
 * the rule reads the path decoded and normalized (NORMALIZE_PATH: lib/constructs/edge-rate-rules.ts), so none of
 * them may reach sign-in uncounted. Each spelling is sent as written (probeAsSent: `fetch` would resolve the dot
 * segments before sending) and must be one of:
 *   - counted: refused by WAF with the sign-in rule's 429, once this address is over that rule;
 *   - refused without reaching sign-in: 404 NOT_FOUND (API Gateway's answer for a path it has no resource for, or
 *     the fallback function's).
 * Anything else (the sign-in function's own answer, another rule's 429) fails the check.
 *
 * With WAF in front: the plain sign-in path first, paced under the web side's per-IP minute rule and over the sign-in
 * rule, until WAF answers with the sign-in rule's 429; then, while the address is over it, each spelling once. The
 * requests carry no Origin header: the sign-in function answers them 403 CSRF_CHECK_FAILED before anything is read,
 * counted or hashed. Afterwards this address's sign-in attempts are refused for about a minute (its other requests are
 * not), so the check runs before the bursts. On this machine (no WAF) only the second outcome can hold: the local
 * front routes the path exactly as sent.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { EDGE_REQUEST_ID } from '../../lib/constructs/error-envelope';
import { wafRouteQuotas } from '../../lib/constructs/edge-rate-rules';
import { type RouteDefinition } from '../../lambdas/shared/http/routes';
import { ROUTES } from '../../lambdas/service/routes';
import { LIMITS } from '../../lambdas/shared/limits/limits-table';
import { pass, type SmokeCheck, type SmokeContext } from './check';
import { CheckFailure, edgeRejectionProblems, failOn } from './expectations';
import type { Probe } from './probe';

/** The sign-in path, spelled as API Gateway may route it or a client may send it: relative to the web base URL (`…/v1`). */
export const SIGN_IN_PATH_SPELLINGS: readonly string[] = ['//settings/api/session', '/./settings/api/session', '/x/../settings/api/session'];

/** The sign-in route and the WAF rule that counts it by source IP (the limits table's sign-in-ip row WAF holds). */
function signInRule(): { readonly route: RouteDefinition; readonly policy: string; readonly limit: number } {
  const quota = wafRouteQuotas(LIMITS, ROUTES, 'web').find((q) => q.limit.holder === 'sign-in-ip');
  const route = quota?.routes[0];
  if (!quota || !route) throw new Error('no WAF rule counts the sign-in route by source IP (edge-rate-rules.ts wafRouteQuotas)');
  return { route, policy: quota.limit.policy, limit: quota.limit.limit };
}

/** What the spelling's answer says: counted by the sign-in rule, refused before sign-in, or a problem. */
export function spellingOutcome(answer: Probe, policy: string): { readonly outcome: 'counted' | 'refused'; readonly problems: readonly string[] } {
  if (answer.status === 429 && answer.headers.get('x-request-id') === EDGE_REQUEST_ID) {
    const named = answer.headers.get('x-ratelimit-policy');
    const problems = [...edgeRejectionProblems(answer, 'settings'), ...(named === policy ? [] : [`WAF answered 429 naming ${named}, not the sign-in rule ${policy}`])];
    return { outcome: 'counted', problems };
  }
  const code = (answer.json as { code?: unknown; error?: { code?: unknown } } | undefined)?.code ?? (answer.json as { error?: { code?: unknown } } | undefined)?.error?.code;
  if (answer.status === 404 && code === 'NOT_FOUND') return { outcome: 'refused', problems: [] };
  return {
    outcome: 'refused',
    problems: [`${answer.method} ${answer.path}: ${answer.status} ${typeof code === 'string' ? code : answer.text.slice(0, 80)}, neither the sign-in rule's 429 nor 404 NOT_FOUND: it reached the service uncounted`],
  };
}

/** Requests a second on the plain path: over the sign-in rule's minute limit, under the web side's per-IP minute rule (60). */
const PACE_PER_SECOND = 0.5;

export const signInSpellings: SmokeCheck = {
  name: 'edge: the sign-in rule counts every spelling of the sign-in path (web side)',
  async run(context) {
    const { route, policy, limit } = signInRule();
    const send = (path: string) => context.webAsSent(path, { method: route.method, headers: { 'Content-Type': 'application/json' }, body: '{}' });
    if (!context.options.wafInFront) {
      // The local front routes the path as sent and has no rate rule: each spelling must be refused, never reach sign-in.
      const answers = await Promise.all(SIGN_IN_PATH_SPELLINGS.map(send));
      failOn(...answers.map((answer) => spellingOutcome(answer, policy).problems));
      return pass(`no WAF on this machine: ${SIGN_IN_PATH_SPELLINGS.join(', ')} refused with 404 NOT_FOUND by the local front, never routed to sign-in`);
    }
    const sent = await overTheSignInRule(context, route, policy, limit, send);
    const outcomes = [];
    for (const spelling of SIGN_IN_PATH_SPELLINGS) {
      const answer = await send(spelling);
      const { outcome, problems } = spellingOutcome(answer, policy);
      failOn(problems);
      outcomes.push(`${spelling} ${outcome === 'counted' ? `429 ${policy}` : '404 NOT_FOUND'}`);
    }
    return pass(`WAF's ${policy} 429 after ${sent} plain sign-ins, then ${outcomes.join(', ')}`);
  },
};

/** Sends the plain sign-in path, paced, until WAF refuses it with the sign-in rule's 429; the requests it took. */
async function overTheSignInRule(context: SmokeContext, route: RouteDefinition, policy: string, limit: number, send: (path: string) => Promise<Probe>): Promise<number> {
  const started = Date.now();
  let sent = 0;
  while (Date.now() - started < context.options.burstDeadlineMs) {
    const paced = Date.now();
    const answer = await send(route.path);
    sent += 1;
    if (answer.status === 429 && answer.headers.get('x-request-id') === EDGE_REQUEST_ID) {
      failOn(spellingOutcome(answer, policy).problems);
      return sent;
    }
    if (answer.status === 429) failOn(edgeRejectionProblems(answer, 'settings'));
    await sleep(Math.max(0, paced + 1000 / PACE_PER_SECOND - Date.now()));
  }
  throw new CheckFailure([
    `no 429 from WAF's ${policy} within ${(context.options.burstDeadlineMs / 1000).toFixed(1)} s and ${sent} sign-in attempts (its limit: ${limit} a minute): ` +
      `is the web side's web ACL associated with its stage, with the ${policy} rule?`,
  ]);
}
