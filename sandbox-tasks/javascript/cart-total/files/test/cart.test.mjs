import test from 'node:test';
import assert from 'node:assert/strict';
import { cartTotal } from '../cart.mjs';

test('adds up the items', () => {
  assert.deepEqual(cartTotal([{ name: 'Mug', price: 4, quantity: 2 }], undefined, 0), {
    subtotal: 8,
    discount: 0,
    tax: 0,
    total: 8,
  });
});
