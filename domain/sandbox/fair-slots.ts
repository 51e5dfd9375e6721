/**
 * Slots shared fairly among accounts: a worker's scorings take one each. An account holds at most
 * `perAccount` of them at once, and a freed slot goes to the waiting account that holds the fewest,
 * the earliest waiter first among equals: one account's scorings queue behind each other before they
 * queue in front of anyone else's.
 */

interface Waiter {
  account: number;
  grant: () => void;
}

export class FairSlots {
  private readonly holding = new Map<number, number>();
  private readonly waiting: Waiter[] = [];
  private taken = 0;

  constructor(
    readonly slots: number,
    readonly perAccount: number,
  ) {
    if (slots < 1 || perAccount < 1) throw new Error('fair slots need at least one slot, and one per account');
  }

  /** Waits for a slot for `account`; the answer gives it back (once, however often it is called). */
  async take(account: number): Promise<() => void> {
    await new Promise<void>((grant) => {
      this.waiting.push({ account, grant });
      this.admit();
    });
    let given = false;
    return () => {
      if (given) return;
      given = true;
      this.giveBack(account);
    };
  }

  /** Slots taken, and takers waiting. */
  state(): { taken: number; waiting: number } {
    return { taken: this.taken, waiting: this.waiting.length };
  }

  private free(account: number): boolean {
    return this.taken < this.slots && (this.holding.get(account) ?? 0) < this.perAccount;
  }

  private grant(account: number): void {
    this.taken += 1;
    this.holding.set(account, (this.holding.get(account) ?? 0) + 1);
  }

  private giveBack(account: number): void {
    this.taken -= 1;
    const left = (this.holding.get(account) ?? 1) - 1;
    if (left > 0) this.holding.set(account, left);
    else this.holding.delete(account);
    this.admit();
  }

  /** Grants freed slots: each to the waiter whose account holds the fewest, the earliest first among equals. */
  private admit(): void {
    for (;;) {
      let next = -1;
      for (let i = 0; i < this.waiting.length; i++) {
        const { account } = this.waiting[i]!;
        if (!this.free(account)) continue;
        if (next < 0 || (this.holding.get(account) ?? 0) < (this.holding.get(this.waiting[next]!.account) ?? 0))
          next = i;
      }
      if (next < 0) return;
      const [waiter] = this.waiting.splice(next, 1);
      this.grant(waiter!.account);
      waiter!.grant();
    }
  }
}
