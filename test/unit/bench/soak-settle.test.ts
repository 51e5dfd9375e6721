import { settleBoundMs, verdictOf } from '../../../bench/soak/settle';

describe('the soak settling', () => {
  it('calls a delivery lost when nothing will write its row, and waits on one whose workflow runs', () => {
    expect(verdictOf('running', false, false)).toBe('ended');
    expect(verdictOf('closed', false, true)).toBe('ended');
    expect(verdictOf('missing', true, false)).toBe('lost');
    expect(verdictOf('closed', true, false)).toBe('lost');
    expect(verdictOf('running', true, false)).toBe('waiting');
    expect(verdictOf('running', true, true)).toBe('overdue');
  });

  it('bounds a delivery by its deadline again, the push grace, a minute of write retries and a workflow task timeout', () => {
    expect(settleBoundMs(20)).toBe(100_000);
    expect(settleBoundMs(60)).toBe(140_000);
  });
});
