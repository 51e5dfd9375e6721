// Totals of the shop's cart: items, a discount code, then sales tax.
import { discountFor } from './discounts.mjs';

/**
 * items: [{ name, price, quantity }] with prices in dollars; code: a discount code or undefined;
 * taxRate: 0.08 for 8 %. Returns { subtotal, discount, tax, total } in dollars.
 */
export function cartTotal(items, code, taxRate) {
  const subtotal = items.reduce((sum, item) => sum + item.price * item.quantity, 0);
  const tax = subtotal * taxRate;
  const discount = discountFor(code, subtotal + tax);
  return { subtotal, discount, tax, total: subtotal + tax - discount };
}
