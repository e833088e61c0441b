/**
 * The edge checks of `--check-waf`, run after every other check because they
 * leave this address refused for a while (the sign-in path's spellings, with a
 * web base URL, between the two kinds below: sign-in-spellings.ts):
 *
 * - A managed rule's block: a request carrying a Log4Shell lookup in a header
 *   (the known-bad-inputs group's Log4JRCE_HEADER) must be blocked by WAF's
 *   default block, which API Gateway answers with its WAF_FILTERED gateway
 *   response: 403 REQUEST_BLOCKED in the surface's error shape, the request id
 *   in `x-amzn-RequestId` and the body (lib/constructs/edge-managed-rules.ts:
 *   managed blocks without a spec code of their own carry no custom response).
 *   Skipped on this machine: the local stack has no managed rule groups.
 * - A burst until the edge answers 429: requests that need no key (they spend
 *   only this address's edge budget, never the key's quotas), paced at
 *   `burstRate` per second, until a 429 answered by WAF (`X-Request-Id: edge`,
 *   a policy of one of the surface's WAF rows). On the way the Lambda's
 *   in-process burst guard answers 429 too; those are checked (envelope,
 *   Retry-After, policy) and the burst goes on, since WAF counts them all.
 *   Against this machine (`wafInFront` false) the local front's edge guard
 *   stands in for WAF, so its first 429 passes.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { Surface } from '../../lambdas/shared/http/routes';
import { edgeLimits, LIMITS } from '../../lambdas/shared/limits/limits-table';
import { EDGE_REQUEST_ID, REQUEST_BLOCKED_STATUS } from '../../lib/constructs/error-envelope';
import { pass, skip, type SmokeCheck, type SmokeContext } from './check';
import { CheckFailure, edgeRejectionProblems, errorProblems, failOn, type ErrorShape } from './expectations';
import type { Probe } from './probe';
import { signInSpellings } from './sign-in-spellings';

/** A header value the known-bad-inputs group blocks on any surface (the developer guide's Log4JRCE_HEADER example). */
export const MANAGED_RULE_PROBE_HEADER = { 'X-Smoke-Probe': '${jndi:ldap://smoke.invalid/probe}' };

const WAVES_PER_SECOND = 4;

interface EdgeTarget {
  readonly surface: Surface;
  readonly label: string;
  readonly shape: ErrorShape;
  /** A request that needs no key or session, and what it answers while the edge lets it through. */
  readonly send: (context: SmokeContext, headers?: Record<string, string>) => Promise<Probe>;
  readonly normalStatus: number;
}

const PARTNER: EdgeTarget = {
  surface: 'partner',
  label: 'partner API',
  shape: 'envelope',
  send: (context, headers) => context.partner('/health', { headers }),
  normalStatus: 200,
};

const WEB: EdgeTarget = {
  surface: 'web',
  label: 'web side',
  shape: 'settings',
  send: (context, headers) => context.web('/settings/api/session', { headers }),
  normalStatus: 401,
};

function managedRuleBlock(target: EdgeTarget): SmokeCheck {
  return {
    name: `edge: a managed rule blocks (${target.label})`,
    async run(context) {
      if (!context.options.wafInFront) return skip('the local stack has no AWS managed rule groups');
      const answer = await target.send(context, MANAGED_RULE_PROBE_HEADER);
      const problems = errorProblems(answer, 'REQUEST_BLOCKED', target.shape, REQUEST_BLOCKED_STATUS, 'x-amzn-requestid');
      // The service's own answers carry X-Request-Id; API Gateway's WAF_FILTERED response cannot.
      if (answer.headers.get('x-request-id') !== null) problems.push(`X-Request-Id is ${JSON.stringify(answer.headers.get('x-request-id'))}: the request reached the service, not blocked by WAF`);
      failOn(problems);
      return pass('403 REQUEST_BLOCKED from WAF, answered by API Gateway (Log4JRCE_HEADER)');
    },
  };
}

function burstToEdge429(target: EdgeTarget): SmokeCheck {
  return {
    name: `edge: a burst meets 429 (${target.label})`,
    async run(context) {
      const { burstDeadlineMs, burstRate } = context.options;
      const wafPolicies = edgeLimits(LIMITS)
        .filter((limit) => limit.surface === target.surface && limit.enforcedBy === 'waf')
        .map((limit) => limit.policy);
      const perWave = Math.max(1, Math.round(burstRate / WAVES_PER_SECOND));
      const started = Date.now();
      const inProcess = new Map<string, number>();
      let sent = 0;
      while (Date.now() - started < burstDeadlineMs) {
        const waveStarted = Date.now();
        const answers = await Promise.all(Array.from({ length: perWave }, () => target.send(context)));
        sent += answers.length;
        for (const answer of answers) {
          if (answer.status !== 429) {
            if (answer.status !== target.normalStatus) failOn(errorProblems(answer, 'RATE_LIMITED', target.shape));
            continue;
          }
          failOn(edgeRejectionProblems(answer, target.shape));
          const policy = answer.headers.get('x-ratelimit-policy')!;
          const seen = `policy ${policy}, Retry-After ${answer.headers.get('retry-after')}, after ${sent} requests in ${seconds(Date.now() - started)} s`;
          if (answer.headers.get('x-request-id') === EDGE_REQUEST_ID) {
            failOn(wafPolicies.includes(policy) ? [] : [`WAF answered 429 naming ${policy}, not one of the ${target.surface} WAF rows (${wafPolicies.join(', ')})`]);
            return pass(`429 RATE_LIMITED from WAF: ${seen}`);
          }
          if (!context.options.wafInFront) return pass(`429 RATE_LIMITED from the local front, WAF's stand-in: ${seen}`);
          inProcess.set(policy, (inProcess.get(policy) ?? 0) + 1);
        }
        await sleep(Math.max(0, waveStarted + 1000 / WAVES_PER_SECOND - Date.now()));
      }
      const inProcessSeen = [...inProcess].map(([policy, count]) => `${policy} ×${count}`).join(', ');
      throw new CheckFailure([
        `no 429 from WAF within ${seconds(burstDeadlineMs)} s and ${sent} requests` +
          (inProcessSeen ? ` (in-process 429s only: ${inProcessSeen})` : ' (no 429 at all)') +
          `: is the ${target.label}'s web ACL associated with its stage, with the ${wafPolicies.join(', ')} rules?`,
      ]);
    },
  };
}

const seconds = (ms: number) => (ms / 1000).toFixed(1);

/**
 * The managed-rule probes first, then the sign-in path's spellings (they leave only this address's sign-ins refused):
 * after a burst, every request of this address gets 429.
 */
export function edgeChecks(withWeb: boolean): SmokeCheck[] {
  const targets = withWeb ? [PARTNER, WEB] : [PARTNER];
  return [...targets.map(managedRuleBlock), ...(withWeb ? [signInSpellings] : []), ...targets.map(burstToEdge429)];
}
