/**
 * Per-container memory of each item's last seen quota windows, so that
 * admission plans each counter as an increment or a reset (DynamoDB has no
 * conditional SET) and guesses right except at the first request of a window.
 */
import type { CounterPlan, ItemPlan } from './admission-store';

export class WindowMemory {
  /** `complete`: the windows come from a whole image of the item, so a missing counter does not exist yet. */
  private readonly items = new Map<string, { windows: Map<string, number>; hasLeases: boolean; complete: boolean }>();

  constructor(private readonly capacity = 5000) {}

  /**
   * `unknown`: the guess for a counter this container has not seen, on an item it has not seen whole:
   * `increment` for the keys' items (busy, read whole on a cold key), `reset` for items that are often
   * new or idle for longer than a window (the player site's IP and join-link items: a link's first
   * message counts in its message windows for the first time, beside the minute its view counted in).
   */
  counterMode(pk: string, attribute: string, windowId: number, unknown: CounterPlan['mode'] = 'increment'): CounterPlan['mode'] {
    const entry = this.items.get(pk);
    const known = entry?.windows.get(attribute);
    if (known === undefined) return entry?.complete ? 'reset' : unknown;
    return known < windowId ? 'reset' : 'increment';
  }

  hasLeases(pk: string): boolean {
    return this.items.get(pk)?.hasLeases ?? true;
  }

  /** Learn an item's windows from a whole image of it (a cold read, or the old image of a refused write). */
  learn(pk: string, item: Record<string, unknown>): void {
    const windows = new Map<string, number>();
    for (const [name, value] of Object.entries(item)) {
      const w = (value as { w?: unknown } | null)?.w;
      if (name.startsWith('q_') && typeof w === 'number') windows.set(name, w);
    }
    this.store(pk, windows, item.leases !== undefined, true);
  }

  /** Remember the windows an admitted write counted in. */
  remember(plan: ItemPlan): void {
    const entry = this.items.get(plan.key.pk);
    const windows = entry?.windows ?? new Map<string, number>();
    for (const counter of plan.counters) windows.set(counter.attribute, counter.windowId);
    this.store(plan.key.pk, windows, plan.lease ? true : (entry?.hasLeases ?? true), entry?.complete ?? false);
  }

  private store(pk: string, windows: Map<string, number>, hasLeases: boolean, complete: boolean) {
    this.items.delete(pk);
    this.items.set(pk, { windows, hasLeases, complete });
    if (this.items.size > this.capacity) this.items.delete(this.items.keys().next().value as string);
  }
}
