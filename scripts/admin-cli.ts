/**
 * The operator's back office as a command line:
 *   npm run -s admin -- <group> <verb> [--flags] [--stage <name>]
 * Each command prints one JSON object on stdout; a failure exits non-zero
 * with `{"code", "message"}` on stderr. Without `--stage` it works on the
 * local stack `npm start` runs; with it, on that deployed stage's tables with
 * the caller's AWS credentials.
 */
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { setTicketBridgeFailing } from '../local/ticket-bridge-switch';
import { BackOfficeError, type BackOffice, type BackOfficeCode } from '../lambdas/back-office/back-office';
import { REQUEST_ID_PATTERN } from '../lambdas/shared/storage/repeatable-requests';

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
  Passwords never go on the command line (shell history, ps): --password-stdin reads one line.

  org create [--name N]                        -> {"partner_id"}
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
                   R: 8–128 letters, digits, - or _ (docs/operations.md, "Running a command again").`;

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
  help: { type: 'boolean' },
} as const;

/** Where the CLI gets a password from (scripts/admin.ts: the terminal, hidden and asked twice, or standard input). */
export interface PasswordSource {
  read(from: 'prompt' | 'stdin'): Promise<string>;
}

const NO_PASSWORD_SOURCE: PasswordSource = {
  read: async () => {
    throw new UsageError('This command needs a password, and none can be read here');
  },
};

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

type Values = ReturnType<typeof parseAdminArgs>['values'];

type StringOption = Exclude<{ [K in keyof Values]-?: Values[K] extends string | undefined ? K : never }[keyof Values], undefined>;

function required(values: Values, name: StringOption): string {
  const value = values[name];
  if (!value) throw new UsageError(`--${name} is required`);
  return value;
}

function entitlementsOf(office: BackOffice) {
  if (!office.entitlements) throw new UsageError('This back office has no domain table');
  return office.entitlements;
}

/** A flag's whole number (undefined when absent); anything else is refused with `code`. */
function wholeNumber(text: string | undefined, name: string, code: BackOfficeCode = 'INVALID_ARGUMENT', range = ''): number | undefined {
  if (text === undefined) return undefined;
  if (!/^\d+$/.test(text)) throw new BackOfficeError(code, `${name} must be a whole number${range}`);
  return Number(text);
}

function invitationsOf(office: BackOffice) {
  if (!office.invitations) throw new UsageError('This back office has no domain table');
  return office.invitations;
}

function recordsOf(office: BackOffice) {
  if (!office.records) throw new UsageError('This back office has no domain table');
  return office.records;
}

/** The record JSON of `--json J` or `--file F` (exactly one). */
function recordJson(values: Values): unknown {
  if ((values.json === undefined) === (values.file === undefined)) throw new UsageError('Give the record as --json J or --file F');
  const text = values.json ?? readFileSync(values.file as string, 'utf8');
  try {
    return JSON.parse(text);
  } catch {
    throw new BackOfficeError('INVALID_ARGUMENT', 'The record is not valid JSON');
  }
}

/**
 * Commands about the local stack itself rather than the back office (`ticket bridge --fail on|off`):
 * their answer, or undefined for every other command. Refused with --stage: a deployed stage has no
 * such switch.
 */
export function runLocalCommand(argv: readonly string[], switchFile?: string): unknown {
  const { values, positionals } = parseAdminArgs(argv);
  if (positionals.join(' ') !== 'ticket bridge') return undefined;
  if (values.stage) throw new UsageError('ticket bridge is a switch of the local stack (npm start) only; a deployed stage has none');
  if (values.fail !== 'on' && values.fail !== 'off') throw new UsageError('--fail must be on or off');
  return setTicketBridgeFailing(values.fail === 'on', switchFile);
}

/** Commands whose subject may be given as a positional argument instead of its flag (`delivery show D` = `delivery show --delivery D`). */
const POSITIONAL_SUBJECT: Readonly<Record<string, 'delivery' | 'event'>> = {
  'delivery show': 'delivery',
  'delivery requeue': 'delivery',
  'event fan-out': 'event',
};

/**
 * The commands that take `--request-id`: each makes its change once per request id, so an operator can run it again
 * after an error that left the outcome unknown (the answer was lost, the connection dropped) and learn what was done
 * instead of doing it twice (lambdas/shared/storage/repeatable-requests.ts, docs/operations.md). The other commands
 * are safe to run again as they are (they set a state, or answer what they find) or are reads.
 */
export const REQUEST_ID_COMMANDS: ReadonlySet<string> = new Set([
  'account create',
  'org create',
  'key create',
  'member remove',
  'record put',
  'record move',
  'record delete',
  'record archive',
  'entitlement grant',
  'entitlement use',
  'ticket message',
  'ticket status',
  'ticket assign',
]);

/** Where a run's request id comes from when the operator gave none, and who is told it. */
export interface RequestIds {
  create(): string;
  /** Told the id made for this run before the command is sent (scripts/admin.ts: on stderr), so that it can be re-run. */
  announce(requestId: string): void;
}

const UNTOLD_REQUEST_IDS: RequestIds = { create: () => randomUUID(), announce: () => undefined };

/**
 * A command of a request id failed in a way that leaves its outcome unknown (not a refusal of the back office): the
 * change may have been made. Its description tells the operator how to finish it or learn its result.
 */
export class OutcomeUnknown extends Error {
  constructor(
    readonly requestId: string,
    readonly failure: unknown,
  ) {
    super(`${(failure as Error)?.message ?? String(failure)} (re-run with --request-id ${requestId})`);
    this.name = 'OutcomeUnknown';
  }
}

/** A failure that says nothing was done: a usage error, or the back office's refusal (CONFLICT: too many races, retried). */
const isRefusal = (error: unknown) => error instanceof UsageError || (error instanceof BackOfficeError && error.code !== 'CONFLICT');

export async function runAdminCommand(
  argv: readonly string[],
  office: BackOffice,
  passwords: PasswordSource = NO_PASSWORD_SOURCE,
  requestIds: RequestIds = UNTOLD_REQUEST_IDS,
): Promise<unknown> {
  const parsed = parseAdminArgs(argv);
  const [group, verb, ...rest] = parsed.positionals;
  const subject = POSITIONAL_SUBJECT[`${group} ${verb}`];
  let values: Values = parsed.values;
  if (subject && rest.length === 1) {
    if (values[subject] !== undefined && values[subject] !== rest[0]) throw new UsageError(`Two different values of --${subject}: ${rest[0]} and --${subject} ${values[subject]}`);
    values = { ...values, [subject]: rest.shift() };
  }
  if (rest.length > 0) throw new UsageError(`Unexpected arguments: ${rest.join(' ')}`);
  const command = `${group} ${verb}`;
  const given = values['request-id'];
  if (given !== undefined && !REQUEST_ID_COMMANDS.has(command)) throw new UsageError(`${command} takes no --request-id`);
  if (given !== undefined && !REQUEST_ID_PATTERN.test(given)) throw new UsageError('--request-id must be 8–128 letters, digits, - or _');
  let requestId = given;
  // Made (and told) once the command's own flags are read, right before the back office is called.
  const request = () => {
    if (requestId === undefined) {
      requestId = requestIds.create();
      requestIds.announce(requestId);
    }
    return requestId;
  };
  try {
    return await dispatch([group, verb], values, office, passwords, request);
  } catch (error) {
    if (requestId !== undefined && !isRefusal(error)) throw new OutcomeUnknown(requestId, error);
    throw error;
  }
}

/** The command's back-office call; `request()`: the run's request id (made when none was given), for the commands that take one. */
async function dispatch(
  [group, verb]: readonly (string | undefined)[],
  values: Values,
  office: BackOffice,
  passwords: PasswordSource,
  request: () => string,
): Promise<unknown> {
  switch (`${group} ${verb}`) {
    case 'account create': {
      if (values['password-stdin'] && values['password-prompt']) throw new UsageError('Give the password one way: --password-prompt or --password-stdin');
      const from = values['password-stdin'] ? 'stdin' : values['password-prompt'] ? 'prompt' : undefined;
      if (from && values.email === undefined) throw new BackOfficeError('INVALID_ARGUMENT', 'A password needs an e-mail address to sign in with');
      const credentials = { email: values.email, password: from ? await passwords.read(from) : undefined };
      return office.accounts.create(values.name, credentials, request());
    }
    case 'account set-password': {
      const accountId = required(values, 'account');
      return office.accounts.setPassword(accountId, await passwords.read(values['password-stdin'] ? 'stdin' : 'prompt'));
    }
    case 'account reset-two-factor':
      return office.signIn.resetTwoFactor(required(values, 'account'));
    case 'account deactivate':
      return office.accounts.deactivate(required(values, 'account'));
    case 'account reactivate':
      return office.accounts.reactivate(required(values, 'account'));
    case 'account reset-password':
      return office.accounts.resetPassword(required(values, 'account'), { clearTwoFactor: values['clear-two-factor'] });
    case 'org create':
      return office.organizations.create(values.name, request());
    case 'org archive':
      return office.organizations.archive(required(values, 'org'));
    case 'org restore':
      return office.organizations.restore(required(values, 'org'));
    case 'member set': {
      const role = required(values, 'role');
      if (role !== 'manager' && role !== 'member') throw new UsageError('--role must be manager or member');
      return office.memberships.set(required(values, 'org'), required(values, 'account'), role);
    }
    case 'member remove':
      return office.memberships.remove(required(values, 'org'), required(values, 'account'), request());
    case 'key create': {
      const requestId = request();
      const creation = await office.keys.createIdempotent(
        {
          accountId: required(values, 'account'),
          partnerId: values.org,
          scopes: required(values, 'scopes').split(',').map((s) => s.trim()).filter(Boolean),
          days: wholeNumber(values.days, '--days', 'INVALID_EXPIRY', ' from 1 to 365'),
          permanent: values.permanent,
        },
        requestId,
      );
      if (creation.outcome === 'conflict') throw new BackOfficeError('REQUEST_ID_REUSED', `Request id ${requestId} was already used for another key create (other arguments): nothing was changed; a new change needs a new request id`);
      // A key made by an earlier run is answered without its value (shown once): revoke it if nobody has the value.
      return creation.outcome === 'replayed' ? { ...creation.key, replayed: true } : creation.key;
    }
    case 'key revoke':
      return office.keys.revoke(required(values, 'key-id'));
    case 'key list':
      return office.keys.list(required(values, 'account'));
    case 'record put':
      return recordsOf(office).put(required(values, 'org'), recordJson(values), request());
    case 'record move':
      return recordsOf(office).move(required(values, 'record'), required(values, 'to'), request());
    case 'ticket message':
      return invitationsOf(office).message(required(values, 'invitation'), required(values, 'author'), values.text, request());
    case 'ticket status':
      return invitationsOf(office).status(required(values, 'invitation'), required(values, 'status'), request());
    case 'ticket assign':
      return invitationsOf(office).assign(required(values, 'invitation'), required(values, 'to'), request());
    case 'invitation archive':
      return invitationsOf(office).archive(required(values, 'org'), required(values, 'invitation'));
    case 'invitation expire-now':
      return invitationsOf(office).expireNow(required(values, 'invitation'));
    case 'record archive':
      return recordsOf(office).archive(required(values, 'org'), required(values, 'record'), required(values, 'game'), request());
    case 'record delete':
      return recordsOf(office).delete(required(values, 'org'), required(values, 'record'), request());
    case 'entitlement grant':
      return entitlementsOf(office).grant({
        owner: required(values, 'owner'),
        game: required(values, 'game'),
        units: wholeNumber(values.units, '--units'),
        unlimited: values.unlimited,
        startsAt: values['starts-at'],
        expiresAt: values['expires-at'],
        permanent: values.permanent,
      }, request());
    case 'entitlement use':
      return entitlementsOf(office).use(required(values, 'owner'), required(values, 'game'), wholeNumber(values.units, '--units'), request());
    case 'entitlement refund':
      return entitlementsOf(office).refund(required(values, 'use'));
    case 'webhook list':
      return office.webhooks.list(required(values, 'org'));
    case 'webhook deactivate':
      return office.webhooks.deactivate(required(values, 'webhook'));
    case 'delivery list':
      return office.webhooks.deliveriesOf(required(values, 'webhook'), values.status);
    case 'delivery show':
      return office.webhooks.delivery(required(values, 'delivery'), values.webhook);
    case 'delivery requeue':
      return office.webhooks.requeue(required(values, 'delivery'), values.webhook);
    case 'event fan-out':
      return office.webhooks.fanOutEvent(required(values, 'org'), required(values, 'event'));
    case 'events list':
      return recordsOf(office).events(required(values, 'org'), values.after);
    default:
      throw new UsageError(group ? `Unknown command: ${[group, verb].filter(Boolean).join(' ')}` : 'No command given');
  }
}

/** The `{code, message}` a failure prints. This is an operator's tool: unexpected failures show their message. */
export function describeFailure(error: unknown): { code: string; message: string } {
  if (error instanceof OutcomeUnknown) {
    const { code, message } = describeFailure(error.failure);
    return { code, message: `${message}. The change may have been made: re-run with --request-id ${error.requestId} to finish it or learn its result (it is made once)` };
  }
  if (error instanceof UsageError) return { code: 'USAGE', message: `${error.message}\n${USAGE}` };
  if (error instanceof BackOfficeError) return { code: error.code, message: error.message };
  const name = (error as { name?: string })?.name;
  if (name === 'ResourceNotFoundException') return { code: 'TABLE_NOT_FOUND', message: 'The stage has no such table: is it deployed?' };
  if (name === 'CredentialsProviderError') return { code: 'AWS_CREDENTIALS', message: 'No AWS credentials found for --stage' };
  return { code: 'INTERNAL_ERROR', message: (error as Error)?.message ?? String(error) };
}
