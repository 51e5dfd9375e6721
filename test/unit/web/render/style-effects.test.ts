/** The style coefficients in plain words: a clear effect only on a board of enough votes, when the interval, as printed, leaves out zero. */
import { styleEffect } from '../../../../api/web/render/style-effects';
import { STYLE_MIN_VOTES } from '../../../../domain/ratings/style-control';

const coefficient = (name: string, estimate: number, ci_low: number, ci_high: number) => ({
  name,
  estimate,
  ci_low,
  ci_high,
});

describe('styleEffect', () => {
  it('puts a clear effect as the share of an otherwise even vote, with its interval', () => {
    expect(styleEffect(coefficient('length', 0.25, 0.2, 0.3), 500)).toEqual({
      label: 'Length',
      estimate: 0.25,
      low: 0.2,
      high: 0.3,
      words:
        'Between two answers judges would otherwise split evenly, the answer with more length (by one standard deviation of the difference) wins 56% of votes (55%–57%).',
    });
    expect(styleEffect(coefficient('position', -0.4, -0.6, -0.2), 500).words).toBe(
      'Between two answers judges would otherwise split evenly, the answer shown on the left wins 40% of votes (35%–45%).',
    );
  });

  it('calls an interval that holds zero, as printed, no clear effect', () => {
    expect(styleEffect(coefficient('bold', 0.1, -0.05, 0.25), 500).words).toBe(
      'No clear effect: the answer with more bold (by one standard deviation of the difference) wins 49%–56% of otherwise even votes.',
    );
    // A lower end of 0.0004 prints as 0.000: not clear, whatever the estimate.
    expect(styleEffect(coefficient('position', 4.97, 0.0004, 17.8), 500).words).toMatch(/^No clear effect: /);
  });

  it('says a feature was not measured when no vote on the board varies in it', () => {
    expect(styleEffect(coefficient('headers', 0, 0, 0), 500).words).toBe(
      'Not measured yet: too few votes whose answers differ in headers.',
    );
    expect(styleEffect(coefficient('position', 0, 0, 0), 500).words).toBe('Not measured yet: too few votes.');
    expect(styleEffect(coefficient('list_items', 0, 0, 0), 500).label).toBe('List items');
  });

  it('calls nothing clear on a board of fewer than STYLE_MIN_VOTES votes, however narrow the interval', () => {
    const strong = coefficient('position', 1.2, 0.8, 1.6);
    expect(styleEffect(strong, STYLE_MIN_VOTES).words).toMatch(/^Between two answers/);
    expect(styleEffect(strong, STYLE_MIN_VOTES - 1).words).toBe(
      `Too few votes to tell: an effect is judged from ${STYLE_MIN_VOTES} votes on a board, and this one has ${STYLE_MIN_VOTES - 1}.`,
    );
  });
});
