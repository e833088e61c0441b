/**
 * Entry point of `npm run smoke -- --base-url URL --key KEY [--partner-id ID]
 * [--web-base-url URL] [--check-waf]`: read-only checks of a deployment (a
 * stage in AWS or the local stack). See scripts/smoke/cli.ts and
 * docs/edge-protection.md ("Smoke suite").
 */
import { runSmokeCli } from './smoke/cli';

process.exitCode = await runSmokeCli(process.argv.slice(2), { out: process.stdout, env: process.env });
