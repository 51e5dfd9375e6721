import { FairSlots } from '../../../domain/sandbox/fair-slots';

/** Takes a slot for each account in order, recording the order they were granted in. */
function taker(slots: FairSlots) {
  const granted: string[] = [];
  const take = (account: number, name: string) =>
    slots.take(account).then((release) => {
      granted.push(name);
      return release;
    });
  return { granted, take };
}

describe('fair slots', () => {
  it("queues an account's takers behind each other before they queue in front of another account's", async () => {
    const slots = new FairSlots(2, 2);
    const { granted, take } = taker(slots);
    const a1 = await take(1, 'a1');
    const a2 = await take(1, 'a2');
    const waiting = [take(1, 'a3'), take(1, 'a4'), take(2, 'b1')];
    expect(slots.state()).toEqual({ taken: 2, waiting: 3 });
    a1();
    // b1 came last, but its account holds nothing: the freed slot is its own.
    await waiting[2];
    expect(granted).toEqual(['a1', 'a2', 'b1']);
    a2();
    await waiting[0];
    expect(granted).toEqual(['a1', 'a2', 'b1', 'a3']);
  });

  it("holds an account to its share, so that another account's taker finds a slot free", async () => {
    const slots = new FairSlots(4, 2);
    const { granted, take } = taker(slots);
    await take(1, 'a1');
    await take(1, 'a2');
    const a3 = take(1, 'a3');
    await take(2, 'b1');
    expect(granted).toEqual(['a1', 'a2', 'b1']);
    expect(slots.state()).toEqual({ taken: 3, waiting: 1 });
    // Account 1's third waits for one of its own to end, though a slot is free: it stays free for others.
    const b2 = await take(2, 'b2');
    expect(granted).toEqual(['a1', 'a2', 'b1', 'b2']);
    b2();
    expect(slots.state()).toEqual({ taken: 3, waiting: 1 });
    void a3;
  });

  it('gives a slot back once, however often it is given back', async () => {
    const slots = new FairSlots(1, 1);
    const release = await slots.take(1);
    release();
    release();
    expect(slots.state()).toEqual({ taken: 0, waiting: 0 });
    const again = await slots.take(2);
    expect(slots.state()).toEqual({ taken: 1, waiting: 0 });
    again();
  });

  it('refuses a pool without a slot', () => {
    expect(() => new FairSlots(0, 1)).toThrow('fair slots need at least one slot');
  });
});
