/**
 * CPU per GET /me in the identity function alone: the deployed handler with
 * its DynamoDB calls answered by aws-sdk-client-mock (no SDK middleware, no
 * network), so what remains is the pipeline's own JavaScript. CPU time, not
 * wall time: a busy machine moves it little. Not part of `npm run bench`;
 * `npx tsx bench/profile/pipeline-cpu.ts` (N=20000 by default).
 */
import '../../test/unit/support/handler-environment';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { handler } from '../../lambdas/identity/handler';
import { lambdaContext, proxyEvent } from '../../test/unit/support/api-gateway-event';
import { accountItem, bearer, issueKey, orgItem, PARTNER_ID, serveAdmission } from '../../test/unit/support/identity-fixtures';

const N = Number(process.env.N ?? 20000);

async function main() {
  const ddbMock = mockClient(DynamoDBDocumentClient);
  const issued = issueKey({ partner_id: PARTNER_ID, expires_at: new Date(Date.now() + 30 * 86_400_000).toISOString() });
  serveAdmission(ddbMock, [issued.item, accountItem(), orgItem()]);
  const write = process.stdout.write.bind(process.stdout);
  let lines = 0;
  process.stdout.write = (() => {
    lines += 1;
    return true;
  }) as typeof process.stdout.write;
  const once = async (i: number) => {
    const r = await handler(proxyEvent({ method: 'GET', path: '/me', headers: { Authorization: bearer(issued.key) }, requestId: `req-${i}` }), lambdaContext());
    if (r.statusCode !== 200) throw new Error(`${r.statusCode} ${r.body}`);
  };
  for (let i = 0; i < 2000; i += 1) await once(i);
  lines = 0;
  const c0 = process.cpuUsage();
  const t0 = performance.now();
  for (let i = 0; i < N; i += 1) await once(i);
  const c = process.cpuUsage(c0);
  const wall = performance.now() - t0;
  process.stdout.write = write;
  console.log(JSON.stringify({ requests: N, cpu_us_per_request: Math.round((c.user + c.system) / N), wall_us_per_request: Math.round((wall * 1000) / N), stdout_writes_per_request: lines / N }));
}
main().then(() => process.exit(0), (e) => { console.error(e); process.exit(1); });
