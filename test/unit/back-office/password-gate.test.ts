/**
 * The password gate (lambdas/back-office/password-gate.ts): at most `capacity` hashes at once, the others first come
 * first served, each waiting at most its bound and then refused with a Retry-After; a slot given back whatever the hash
 * did. Its capacity from the function's memory, the threadpool and the cores. And passwords.ts's use of it: a hash
 * inside a request waits only until its deadline less the hash, and its refusal is 503 PASSWORD_CHECK_BUSY.
 * Waits run on Vitest's fake timers: nothing here depends on the machine's speed.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { PasswordCheckBusy, PasswordGate, passwordCheckCapacity, hashesInMemory, FUNCTION_BASE_MEMORY_MB, PASSWORD_HASH_MEMORY_MB } from '../../../lambdas/back-office/password-gate';
import { hashPassword, passwordGate, usePasswordCheckCapacity, verifyPassword } from '../../../lambdas/back-office/passwords';
import { ApiError } from '../../../lambdas/shared/errors';
import { withinDeadline } from '../../../lambdas/shared/storage/operation-deadline';

/** A hash that ends when the test says. */
function heldWork() {
  let finish!: (value: string) => void;
  let fail!: (error: Error) => void;
  const done = new Promise<string>((resolve, reject) => ([finish, fail] = [resolve, reject]));
  let started = false;
  const work = () => {
    started = true;
    return done;
  };
  return { work, finish, fail, started: () => started };
}

const FOREVER = { latestStart: () => Number.POSITIVE_INFINITY, holdMs: () => 800 };
/** A hash that may start until `ms` from now (at the time of the call), holding its slot about `holdMs`. */
const startingWithin = (ms: number, holdMs = 800) => {
  const latest = Date.now() + ms;
  return { latestStart: () => latest, holdMs: () => holdMs };
};
/** Lets every settled promise's continuations run. */
const settle = () => new Promise((resolve) => setImmediate(resolve));

afterEach(() => {
  vi.useRealTimers();
});

describe('the password gate', () => {
  it('runs at most `capacity` hashes at once and starts the others in the order they came', async () => {
    // Prepare
    const gate = new PasswordGate(2);
    const hashes = Array.from({ length: 4 }, () => heldWork());

    // Act
    const runs = hashes.map((h) => gate.run(h.work, FOREVER));
    await settle();

    // Assess: two run, two wait.
    expect(hashes.map((h) => h.started())).toEqual([true, true, false, false]);
    expect(gate.figures()).toMatchObject({ capacity: 2, running: 2, waiting: 2 });

    // Act: the second ends, then the first.
    hashes[1].finish('b');
    await settle();
    expect(hashes.map((h) => h.started())).toEqual([true, true, true, false]);
    hashes[0].finish('a');
    await settle();

    // Assess: the third came before the fourth; every run answers its own hash.
    expect(hashes.map((h) => h.started())).toEqual([true, true, true, true]);
    hashes[2].finish('c');
    hashes[3].finish('d');
    expect(await Promise.all(runs)).toEqual(['a', 'b', 'c', 'd']);
    expect(gate.figures()).toEqual({ capacity: 2, running: 0, waiting: 0, admitted: 4, refused: 0 });
  });

  it('refuses a waiter whose bound passed, with a Retry-After of the holds before it, and leaves the others waiting', async () => {
    // Prepare
    vi.useFakeTimers();
    const gate = new PasswordGate(1);
    const running = heldWork();
    const patient = heldWork();
    const hurried = heldWork();
    void gate.run(running.work, FOREVER);
    const patientRun = gate.run(patient.work, FOREVER);
    // Behind one waiter: it would start after the running hash and the waiter's, about 2 × 1.5 s from now.
    const hurriedRun = gate.run(hurried.work, startingWithin(1000, 1500));
    const refusal = hurriedRun.catch((error: unknown) => error);

    // Act
    await vi.advanceTimersByTimeAsync(999);
    const early = gate.figures();
    await vi.advanceTimersByTimeAsync(1);

    // Assess
    expect(early).toMatchObject({ waiting: 2, refused: 0 });
    const error = await refusal;
    expect(error).toBeInstanceOf(PasswordCheckBusy);
    expect((error as PasswordCheckBusy).retryAfterSeconds).toBe(3);
    expect(hurried.started()).toBe(false);
    expect(gate.figures()).toMatchObject({ running: 1, waiting: 1, refused: 1 });

    // Act: the running hash ends: the patient waiter, never the refused one, takes the slot.
    running.finish('done');
    await vi.advanceTimersByTimeAsync(0);

    // Assess
    expect(patient.started()).toBe(true);
    expect(hurried.started()).toBe(false);
    patient.finish('patient');
    expect(await patientRun).toBe('patient');
  });

  it('gives a free slot at once even to a hash that may not wait, and refuses it at once when none is free', async () => {
    // Prepare
    const gate = new PasswordGate(1);
    const first = heldWork();

    // Act
    const firstRun = gate.run(first.work, startingWithin(0));
    await settle();
    const second = gate.run(async () => 'never', startingWithin(-5)).catch((error: unknown) => error);

    // Assess
    expect(first.started()).toBe(true);
    const error = await second;
    expect(error).toBeInstanceOf(PasswordCheckBusy);
    // Nobody waiting: one hold, rounded up to a whole second.
    expect((error as PasswordCheckBusy).retryAfterSeconds).toBe(1);
    first.finish('first');
    expect(await firstRun).toBe('first');
  });

  it('refuses a waiter whose latest start passed while it waited (the hashes grew slower), and gives the slot to the next', async () => {
    // Prepare
    const gate = new PasswordGate(1);
    const running = heldWork();
    const slowed = heldWork();
    const next = heldWork();
    let latest = Number.POSITIVE_INFINITY;
    void gate.run(running.work, FOREVER);
    const slowedRun = gate.run(slowed.work, { latestStart: () => latest, holdMs: () => 2500 }).catch((error: unknown) => error);
    const nextRun = gate.run(next.work, FOREVER);
    await settle();

    // Act: by the time the slot comes free, the waiter's hash could no longer end before its request's deadline.
    latest = Date.now() - 1;
    running.finish('done');
    await settle();

    // Assess
    const error = await slowedRun;
    expect(error).toBeInstanceOf(PasswordCheckBusy);
    expect((error as PasswordCheckBusy).retryAfterSeconds).toBe(3);
    expect(slowed.started()).toBe(false);
    expect(next.started()).toBe(true);
    next.finish('next');
    expect(await nextRun).toBe('next');
    expect(gate.figures()).toMatchObject({ running: 0, waiting: 0, refused: 1 });
  });

  it('gives the slot back when the hash fails, to the next waiter', async () => {
    // Prepare
    const gate = new PasswordGate(1);
    const failing = heldWork();
    const next = heldWork();
    const failingRun = gate.run(failing.work, FOREVER).catch((error: unknown) => error);
    const nextRun = gate.run(next.work, FOREVER);
    await settle();

    // Act
    failing.fail(new Error('scrypt failed'));
    await settle();

    // Assess
    expect(((await failingRun) as Error).message).toBe('scrypt failed');
    expect(next.started()).toBe(true);
    next.finish('next');
    expect(await nextRun).toBe('next');
    expect(gate.figures()).toMatchObject({ running: 0, waiting: 0 });
  });

  it('has at least one slot', () => {
    expect(() => new PasswordGate(0)).toThrow(/at least one slot/);
  });
});

describe('the gate\u2019s capacity', () => {
  it('counts 128 MiB a hash beside the process\u2019s own 128 MB', () => {
    expect(PASSWORD_HASH_MEMORY_MB).toBe(128);
    expect(FUNCTION_BASE_MEMORY_MB).toBe(128);
    expect([hashesInMemory(128), hashesInMemory(255), hashesInMemory(256), hashesInMemory(512), hashesInMemory(1769)]).toEqual([0, 0, 1, 3, 12]);
  });

  it.each([
    ['a 512 MB Lambda function on 2 cores', { AWS_LAMBDA_FUNCTION_MEMORY_SIZE: '512' }, 2, 2],
    ['a 512 MB function on 8 cores: its memory', { AWS_LAMBDA_FUNCTION_MEMORY_SIZE: '512' }, 8, 3],
    ['a 1,769 MB function on 8 cores: the threadpool less one', { AWS_LAMBDA_FUNCTION_MEMORY_SIZE: '1769' }, 8, 3],
    ['a larger threadpool', { AWS_LAMBDA_FUNCTION_MEMORY_SIZE: '10240', UV_THREADPOOL_SIZE: '16' }, 32, 15],
    ['memory for no hash: still one', { AWS_LAMBDA_FUNCTION_MEMORY_SIZE: '128' }, 8, 1],
    ['the local stack on 2 cores (no function memory)', {}, 2, 2],
    ['the local stack on 8 cores', {}, 8, 3],
    ['one core', {}, 1, 1],
  ])('%s', (_name, env, cores, capacity) => {
    expect(passwordCheckCapacity({ env, cores })).toBe(capacity);
  });
});

describe('passwords through the gate', () => {
  it('refuses a verification that cannot start before its request\u2019s deadline less the hash: 503 PASSWORD_CHECK_BUSY with Retry-After', async () => {
    // Prepare: a stored hash (the suite's cost), and the process's one slot taken.
    const stored = await hashPassword('correct horse battery');
    const restore = usePasswordCheckCapacity(1);
    const holder = heldWork();
    const held = passwordGate().run(holder.work, FOREVER);
    try {
      // Act: a request whose deadline leaves no time for a hash: it may not wait at all.
      const deadline = Date.now();
      const error = await withinDeadline(deadline, () => verifyPassword('correct horse battery', stored)).catch((e: unknown) => e);

      // Assess
      expect(error).toBeInstanceOf(ApiError);
      expect(error).toMatchObject({ code: 'PASSWORD_CHECK_BUSY', status: 503, headers: { 'Retry-After': '1' } });
      expect(passwordGate().figures()).toMatchObject({ capacity: 1, running: 1, waiting: 0, refused: 1 });
    } finally {
      holder.finish('released');
      await held;
      restore();
    }
    // Outside a request (the admin CLI) a verification waits its turn, and the usual gate is back.
    expect(await verifyPassword('correct horse battery', stored)).toBe(true);
    expect(passwordGate().figures().refused).toBe(0);
  });
});
