/**
 * The web side's read-only checks (with --web-base-url): the settings page
 * with its headers, the settings API refusing a request without a session,
 * its 404, a join link's view refused without the link's token, and a key in
 * the URL refused. Web settings answer errors in their own shape (top-level
 * `code` and `message`), the player site in the envelope. No sign-in, no
 * session, no claim: nothing is written.
 */
import { randomUUID } from 'node:crypto';
import { EDGE_REQUEST_ID } from '../../lib/constructs/error-envelope';
import { pass, type SmokeCheck, type SmokeContext } from './check';
import { commonHeaderProblems, errorProblems, failOn, type ErrorShape } from './expectations';
import type { Probe } from './probe';

function refusal(name: string, code: string, shape: ErrorShape, send: (context: SmokeContext) => Promise<Probe>): SmokeCheck {
  return {
    name,
    async run(context) {
      const answer = await send(context);
      failOn(errorProblems(answer, code, shape));
      return pass(`${answer.status} ${code}${answer.headers.get('x-request-id') === EDGE_REQUEST_ID ? ', answered by WAF' : ''}`);
    },
  };
}

const settingsPage: SmokeCheck = {
  name: 'web: GET /settings (the settings page)',
  async run(context) {
    const answer = await context.web('/settings', { headers: { Accept: 'text/html' } });
    const problems = commonHeaderProblems(answer, 'html');
    if (answer.status !== 200) problems.unshift(`status ${answer.status}, expected 200`);
    // The page writes every value with textContent under a hash-based policy: what lets the WAF count, not block, free text.
    const policy = answer.headers.get('content-security-policy') ?? '';
    if (!/default-src 'none'/.test(policy)) problems.push(`Content-Security-Policy is ${JSON.stringify(policy || undefined)}, without default-src 'none'`);
    failOn(problems);
    return pass(`200 HTML, ${answer.text.length} characters, Content-Security-Policy default-src 'none'`);
  },
};

export const WEB_CHECKS: readonly SmokeCheck[] = [
  settingsPage,
  refusal('web: GET /settings/api/session without a session', 'SESSION_REQUIRED', 'settings', (c) => c.web('/settings/api/session')),
  refusal('web: GET an unknown settings route', 'NOT_FOUND', 'settings', (c) => c.web('/settings/smoke-unknown-route')),
  // An invitation id that exists nowhere, and no token: the player site says as little as for a used link.
  refusal('web: GET a join link’s view without its token', 'INVITE_UNAVAILABLE', 'envelope', (c) => c.web(`/join/${randomUUID()}/view`)),
  refusal('web: GET /settings/api/session?api_key=… (key in the URL)', 'CREDENTIALS_IN_URL', 'settings', (c) => c.web('/settings/api/session?api_key=smoke-not-a-key')),
];
