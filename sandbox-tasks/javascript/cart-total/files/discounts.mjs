// Discount codes: a percentage off, or a fixed amount off in dollars.
const CODES = {
  SAVE10: { percent: 10 },
  HALF: { percent: 50 },
  FIVEOFF: { amount: 5 },
};

/** The discount `code` gives on `amount` dollars. */
export function discountFor(code, amount) {
  const rule = CODES[code];
  if (!rule) return 0;
  if (rule.percent) return (amount * rule.percent) / 100;
  return rule.amount;
}
