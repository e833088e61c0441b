/**
 * The admin CLI's words: its usage text, its flags and how a command line is read. Kept apart from the commands
 * (admin-cli.ts) and the back office so that `--help` and a usage error load nothing else (scripts/admin.ts).
 */
import { parseArgs } from 'node:util';

/** The command line is wrong: nothing was done (exit status 2). */
export class UsageError extends Error {
  readonly code = 'USAGE';
}

export const USAGE = `Usage: npm run -s admin -- <group> <verb> [--flags] [--stage <name>] [--request-id R]
  account create [--name N] [--email E [--password-prompt | --password-stdin]]
                                               -> {"account_id"}; with an e-mail the account can sign in to
                                               web settings once it has a password (10–128 characters)
  account set-password --account A [--password-stdin]
                                               the new password, asked for twice at the terminal (or read from
                                               standard input); every key, session and callback of the account ends
  account reset-password --account A [--clear-two-factor]
                                               a compromised account: no password signs in until set-password,
                                               every key, session and callback ends; with the flag two-factor is off too
  account reset-two-factor --account A         an owner who lost the authenticator: two-factor off (audited);
                                               verify who asks first (docs/operations.md)
  account deactivate --account A
  account reactivate --account A               (old keys stay revoked)
  Passwords never go on the command line (shell history, ps): --password-stdin reads one line
  (in a batch: --password-env NAME, the environment variable holding it).

  org create [--name N]                        -> {"partner_id"}
  org rename --org O --name N                  (every member's web settings shows it at once)
  org archive --org O
  org restore --org O                          (old keys stay revoked)
  member set --org O --account A --role manager|member
  member remove --org O --account A
  key create --account A [--org O] --scopes s1,s2 [--days N | --permanent]
  key revoke --key-id K
  key list --account A                         (never shows key values)
  record put --org O (--json J | --file F)     create or update by uuid; prints the record with its id
  record delete --org O --record R
  record move --record R --to O2               record.deleted for the old organization, record.created for O2
  record archive --org O --record R --game minecraft|fps
                                               uses one unit of O's entitlement (once per record)
  events list --org O [--after EVENT_ID]       the organization's business events, in order
  entitlement grant --owner partner:O|account:A --game minecraft|fps (--units N | --unlimited)
                    [--starts-at T] (--expires-at T | --permanent)
  entitlement use --owner partner:O|account:A --game G --units N
  entitlement refund --use U
  ticket message --invitation I --author staff|user --text T   a visible message (ticket.message.created)
  ticket status --invitation I --status open|waiting_user|resolved   (ticket.status.updated)
  ticket assign --invitation I --to NAME                       (ticket.status.updated)
  invitation archive --org O --invitation I
  invitation expire-now --invitation I         a pending invitation expires now (to try expiry locally)
  webhook list --org O                         the organization's webhook callbacks (never a secret)
  webhook deactivate --webhook W               for good; its undelivered deliveries are cancelled
  delivery list --webhook W [--status S]       the callback's latest 50 deliveries (S: pending, retrying, delivered, failed, cancelled)
  delivery show D [--webhook W]                one delivery: status, attempts, due time (W only for first-release ids)
  delivery requeue D [--webhook W]             an open (stuck or lost) delivery back into its schedule: the sweeper queues
                                               its next attempt within a minute (audited; an ended one: resend it)
  event fan-out E --org O                      deliver an event again to each callback active when it happened that has
                                               no delivery of it (audited); lists the ones that have one
                                               (D and E may also be given as --delivery D, --event E)
  ticket bridge --fail on|off                  local stack only: make the ticket bridge unavailable (503,
                                               claims stay claiming until it is back), or available again

  --request-id R   account create, org create, key create, member remove, record put|move|delete|archive,
                   entitlement grant|use, ticket message|status|assign: the same R makes the change once however
                   often the command runs (run it again with R after an error: it answers what was done,
                   "replayed": true). Without one the CLI makes one and prints it on stderr first.
                   R: 8–128 letters, digits, - or _ (docs/operations.md, "Running a command again").

  --batch FILE|- [--stop-on-error] [--stage <name>]
                   many commands in one run: one a line of FILE (- : standard input), each a JSON array of its
                   arguments, e.g. ["org","create","--name","Acme","--request-id","seed-org-acme"]; one JSON answer
                   a line on stdout, in order, as each finishes: {"line","status":0,"result"} or
                   {"line","status":1|2,"error":{"code","message"}}, with "request_id" where the command has one.
                   Every line runs (--stop-on-error: none after the first failure); exit 1 if any failed.
                   --stage applies to every line (a line gives none). A line's password: --password-env NAME
                   (docs/operations.md, "Many commands at once").`;

const OPTIONS = {
  stage: { type: 'string' },
  name: { type: 'string' },
  account: { type: 'string' },
  org: { type: 'string' },
  role: { type: 'string' },
  scopes: { type: 'string' },
  days: { type: 'string' },
  permanent: { type: 'boolean' },
  'key-id': { type: 'string' },
  record: { type: 'string' },
  json: { type: 'string' },
  file: { type: 'string' },
  after: { type: 'string' },
  owner: { type: 'string' },
  game: { type: 'string' },
  units: { type: 'string' },
  unlimited: { type: 'boolean' },
  'starts-at': { type: 'string' },
  'expires-at': { type: 'string' },
  use: { type: 'string' },
  to: { type: 'string' },
  invitation: { type: 'string' },
  author: { type: 'string' },
  text: { type: 'string' },
  status: { type: 'string' },
  fail: { type: 'string' },
  email: { type: 'string' },
  webhook: { type: 'string' },
  delivery: { type: 'string' },
  event: { type: 'string' },
  'password-stdin': { type: 'boolean' },
  'password-prompt': { type: 'boolean' },
  'clear-two-factor': { type: 'boolean' },
  'request-id': { type: 'string' },
  /** Batch lines only (admin-batch.ts): the name of the environment variable holding the password. */
  'password-env': { type: 'string' },
  batch: { type: 'string' },
  'stop-on-error': { type: 'boolean' },
  help: { type: 'boolean' },
} as const;

/** The flags and positionals of a command line; a usage error for an unknown flag, a flag without value, or `--password`. */
export function parseAdminArgs(argv: readonly string[]) {
  if (argv.some((arg) => arg === '--password' || arg.startsWith('--password='))) {
    throw new UsageError('--password is not taken (it would stay in shell history and in ps): give the password at the prompt, or on standard input with --password-stdin');
  }
  try {
    const { values, positionals } = parseArgs({ args: [...argv], options: OPTIONS, allowPositionals: true, strict: true });
    return { values, positionals };
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
}

export type AdminValues = ReturnType<typeof parseAdminArgs>['values'];
