/** The soak's accounting of what became of each delivery: ended, lost, recorded twice, sent twice, unacknowledged. */
import { accountDeliveries, type EndedRow, type SoakAgent } from '../../../bench/soak/accounting';

const agents = new Map<number, SoakAgent>([
  [1, { mode: 'push', behaviour: 'fast' }],
  [2, { mode: 'pull', behaviour: 'slow' }],
]);
const row = (
  id: number,
  agent_id: number,
  kind: string,
  status: string,
  mode = 'push',
  category = 'chat',
): EndedRow => ({
  id,
  agent_id,
  kind,
  category,
  mode,
  status,
});

it('counts every delivery once, in the row of its kind, and names each duplicate', () => {
  const { deliveries, duplicates } = accountDeliveries({
    rows: [
      row(10, 1, 'sandbox', 'answered'),
      row(11, 1, 'sandbox', 'pending'),
      row(12, 2, 'sandbox', 'timeout', 'pull'),
      // Written, but its 202 never reached the soak.
      row(13, 2, 'sandbox', 'error', 'pull'),
      row(14, 1, 'gym', 'answered'),
      row(15, 1, 'main', 'answered'),
    ],
    started: new Map([
      [10, 'sandbox push fast'],
      [11, 'sandbox push fast'],
      [12, 'sandbox pull slow'],
      // Acknowledged, yet no row holds it.
      [99, 'sandbox push fast'],
    ]),
    writes: new Map([
      [10, 1],
      [12, 1],
      [14, 2],
      [15, 1],
    ]),
    agents,
    pushAgents: [{ id: 1, behaviour: 'fast' }],
    received: new Map([
      ['0 sandbox-10', 1],
      ['0 main-15', 2],
    ]),
  });

  expect(deliveries).toEqual([
    expect.objectContaining({ kind: 'gym push', started: 1, recordedOnce: 0, recordedTwice: 1, lost: 0 }),
    expect.objectContaining({ kind: 'main push', started: 1, recordedOnce: 1, sentTwice: 1, lost: 0 }),
    expect.objectContaining({ kind: 'sandbox pull slow', started: 1, recordedOnce: 1, unacknowledged: 1, lost: 0 }),
    expect.objectContaining({
      kind: 'sandbox push fast',
      started: 3,
      recordedOnce: 1,
      lost: 2,
      outcomes: { answered: 1 },
    }),
  ]);
  expect(duplicates).toEqual(['session 14 x2', 'agent 1: main-15 x2']);
});

it('counts a written delivery the soak never heard of as lost while it has not ended', () => {
  const { deliveries } = accountDeliveries({
    rows: [row(20, 2, 'sandbox', 'running', 'pull')],
    started: new Map(),
    writes: new Map(),
    agents,
    pushAgents: [],
    received: new Map(),
  });
  expect(deliveries).toEqual([expect.objectContaining({ kind: 'sandbox pull slow', unacknowledged: 1, lost: 1 })]);
});
