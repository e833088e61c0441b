/**
 * The operator's back office as a command line:
 *   npm run -s admin -- <group> <verb> [--flags] [--stage <name>]
 * Each command prints one JSON object on stdout; a failure exits non-zero
 * with `{"code", "message"}` on stderr. Without `--stage` it works on the
 * local stack `npm start` runs; with it, on that deployed stage's tables with
 * the caller's AWS credentials. Its words (usage text, flags) are in
 * admin-args.ts, its entry is admin.ts, and a batch of commands admin-batch.ts.
 */
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { setTicketBridgeFailing } from '../local/ticket-bridge-switch';
import type { BackOffice } from '../lambdas/back-office/back-office';
import { BackOfficeError, type BackOfficeCode } from '../lambdas/back-office/errors';
import { REQUEST_ID_PATTERN } from '../lambdas/shared/storage/repeatable-requests';
import { parseAdminArgs, USAGE, UsageError, type AdminValues } from './admin-args';

export { parseAdminArgs, USAGE, UsageError };

/** Where the CLI gets a password from: the terminal, hidden and asked twice, or standard input (scripts/admin.ts); in a batch, the environment variable a line names (admin-batch.ts). */
export interface PasswordSource {
  read(from: PasswordWay, variable?: string): Promise<string>;
}

/** `env`: `--password-env NAME`, read in batch mode only (`variable` is NAME). */
export type PasswordWay = 'prompt' | 'stdin' | 'env';

const NO_PASSWORD_SOURCE: PasswordSource = {
  read: async () => {
    throw new UsageError('This command needs a password, and none can be read here');
  },
};

/** The way the command line gives the password (at most one), or undefined. */
function passwordWay(values: Values): PasswordWay | undefined {
  const ways = [values['password-prompt'] && 'prompt', values['password-stdin'] && 'stdin', values['password-env'] !== undefined && 'env'].filter(Boolean) as PasswordWay[];
  if (ways.length > 1) throw new UsageError('Give the password one way: --password-prompt, --password-stdin or (in a batch) --password-env');
  return ways[0];
}

type Values = AdminValues;

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
  if (values.batch !== undefined || values['stop-on-error']) throw new UsageError('--batch FILE [--stop-on-error] runs the commands of a file: it takes no command of its own');
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
      const from = passwordWay(values);
      if (from && values.email === undefined) throw new BackOfficeError('INVALID_ARGUMENT', 'A password needs an e-mail address to sign in with');
      const credentials = { email: values.email, password: from ? await passwords.read(from, values['password-env']) : undefined };
      return office.accounts.create(values.name, credentials, request());
    }
    case 'account set-password': {
      const accountId = required(values, 'account');
      return office.accounts.setPassword(accountId, await passwords.read(passwordWay(values) ?? 'prompt', values['password-env']));
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
    case 'org rename':
      return office.organizations.rename(required(values, 'org'), required(values, 'name'));
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

/** No local stack to work on: `npm start` is not running here (its state file is missing) and no --stage was given. */
export class LocalStackNotRunning extends Error {
  readonly code = 'LOCAL_STACK_NOT_RUNNING';
  constructor() {
    super('No local stack found: run `npm start` first, or pass --stage <name>');
  }
}

const refused = (error: unknown) => (error as { name?: string })?.name === 'ECONNREFUSED' || (error as { code?: string })?.code === 'ECONNREFUSED';

/** The `{code, message}` a failure prints. This is an operator's tool: unexpected failures show their message. */
export function describeFailure(error: unknown): { code: string; message: string } {
  if (error instanceof LocalStackNotRunning) return { code: error.code, message: error.message };
  // The state file names a DynamoDB Local that is gone (npm start was killed before it could remove the file).
  if (refused(error)) return { code: 'LOCAL_STACK_NOT_RUNNING', message: 'The local stack does not answer: run `npm start` first, or pass --stage <name>' };
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
