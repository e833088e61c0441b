/**
 * The fault plan of the local pipeline's tests (local/fault-injection.ts): which call a rule hits,
 * what each effect does to the call and to the rest of its invocation, and that nothing outside an
 * invocation is ever touched.
 */
import { describe, expect, it } from 'vitest';
import { FaultPlan, InjectedFault, SimulatedCrash } from '../../../local/fault-injection';

/** A call that records that it was made. */
function recorder() {
  const made: string[] = [];
  return { made, call: (name: string) => async () => void made.push(name) };
}

describe('the fault plan', () => {
  it('hits the nth matching call of one part only, once; every armed rule counts each call', async () => {
    const plan = new FaultPlan();
    const { made, call } = recorder();
    const second = plan.arm({ component: 'worker', call: 'UpdateItem', nth: 2, effect: 'fail', matches: (input) => input.which === 'claim' });
    const third = plan.arm({ component: 'worker', call: 'UpdateItem', nth: 3, effect: 'fail', matches: (input) => input.which === 'claim' });

    await plan.invocation('fan-out', () => plan.around('UpdateItem', call('fan-out'), undefined, { which: 'claim' }));
    await plan.invocation('worker', async () => {
      await plan.around('UpdateItem', call('other'), undefined, { which: 'outcome' });
      await plan.around('UpdateItem', call('claim 1'), undefined, { which: 'claim' });
    });
    const failed = await plan.invocation('worker', () => plan.around('UpdateItem', call('claim 2'), undefined, { which: 'claim' })).catch((e: unknown) => e);
    const failedToo = await plan.invocation('worker', () => plan.around('UpdateItem', call('claim 3'), undefined, { which: 'claim' })).catch((e: unknown) => e);
    await plan.invocation('worker', () => plan.around('UpdateItem', call('claim 4'), undefined, { which: 'claim' }));

    expect(failed).toBeInstanceOf(InjectedFault);
    expect(failedToo).toBeInstanceOf(InjectedFault);
    expect([second.fired(), third.fired()]).toEqual([true, true]);
    expect(made).toEqual(['fan-out', 'other', 'claim 1', 'claim 4']);
    expect(plan.trace().map((c) => `${c.component} ${c.call}`)).toEqual(['fan-out UpdateItem', ...Array(5).fill('worker UpdateItem')]);
  });

  it('fail-after makes the call, then throws; duplicate makes it twice', async () => {
    const plan = new FaultPlan();
    const { made, call } = recorder();
    plan.arm({ component: 'worker', call: 'PutItem', effect: 'fail-after' });
    plan.arm({ component: 'fan-out', call: 'SendMessage', effect: 'duplicate' });

    const error = await plan.invocation('worker', () => plan.around('PutItem', call('put'))).catch((e: unknown) => e);
    await plan.invocation('fan-out', () => plan.around('SendMessage', call('send')));

    expect(error).toMatchObject({ name: 'InjectedFault', made: true });
    expect(made).toEqual(['put', 'send', 'send']);
  });

  it('a crash ends the invocation: the call and every later one fail (finally blocks too), and the invocation fails though it caught the error', async () => {
    const plan = new FaultPlan();
    const { made, call } = recorder();
    plan.arm({ component: 'worker', call: 'https', effect: 'crash-after' });

    const outcome = await plan
      .invocation('worker', async () => {
        try {
          await plan.around('https', call('send'));
        } catch {
          // The worker's own error handling: it reports the message failed and goes on.
        } finally {
          await plan.around('UpdateItem', call('release')).catch(() => undefined);
        }
        await plan.around('SendMessage', call('next')).catch(() => undefined);
        return 'handled';
      })
      .catch((e: unknown) => e);

    expect(outcome).toBeInstanceOf(SimulatedCrash);
    expect(made).toEqual(['send']);
    // Another invocation is untouched.
    await plan.invocation('worker', () => plan.around('UpdateItem', call('later')));
    expect(made).toEqual(['send', 'later']);
  });

  it('never touches a call outside an invocation (the API, the back office), and a call of its own part runs as a new invocation', async () => {
    const plan = new FaultPlan();
    const { made, call } = recorder();
    plan.arm({ component: 'worker', call: 'SendMessage', effect: 'fail' });
    plan.arm({ component: 'worker', call: 'DeleteMessage', effect: 'crash' });

    await plan.around('SendMessage', call('api resend'));
    const crashed = await plan.around('DeleteMessage', call('delete'), 'worker').catch((e: unknown) => e);
    await plan.around('DeleteMessage', call('delete again'), 'worker');

    expect(made).toEqual(['api resend', 'delete again']);
    expect(crashed).toBeInstanceOf(SimulatedCrash);
    expect(plan.trace().map((c) => c.invocation)).toEqual([1, 2]);
  });

  it('refuses to duplicate anything but a message', () => {
    expect(() => new FaultPlan().arm({ component: 'worker', call: 'UpdateItem', effect: 'duplicate' })).toThrow(/Only SendMessage/);
  });
});
