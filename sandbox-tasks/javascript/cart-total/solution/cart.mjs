// Totals of the shop's cart: items, a discount code, then sales tax.
import { discountFor } from './discounts.mjs';

// Amounts are added up in whole cents: dollars as floats gather stray fractions of a cent.
const toCents = (dollars) => Math.round(dollars * 100);

/**
 * items: [{ name, price, quantity }] with prices in dollars; code: a discount code or undefined;
 * taxRate: 0.08 for 8 %. Returns { subtotal, discount, tax, total } in dollars, each in whole cents.
 */
export function cartTotal(items, code, taxRate) {
  const subtotal = items.reduce((sum, item) => sum + toCents(item.price) * item.quantity, 0);
  const discount = Math.min(subtotal, toCents(discountFor(code, subtotal / 100)));
  const tax = Math.round((subtotal - discount) * taxRate);
  return {
    subtotal: subtotal / 100,
    discount: discount / 100,
    tax: tax / 100,
    total: (subtotal - discount + tax) / 100,
  };
}
