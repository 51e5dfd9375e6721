import test from 'node:test';
import assert from 'node:assert/strict';
import { cartTotal } from '../cart.mjs';

const item = (price, quantity = 1) => ({ name: `item at ${price}`, price, quantity });

test('adds up the items', () => {
  assert.deepEqual(cartTotal([item(2.5, 2)], undefined, 0), { subtotal: 5, discount: 0, tax: 0, total: 5 });
});

test('keeps whole cents when adding prices', () => {
  assert.deepEqual(cartTotal([item(0.1), item(0.2)], undefined, 0), {
    subtotal: 0.3,
    discount: 0,
    tax: 0,
    total: 0.3,
  });
});

test('takes a percentage off before tax', () => {
  assert.deepEqual(cartTotal([item(100)], 'SAVE10', 0.08), { subtotal: 100, discount: 10, tax: 7.2, total: 97.2 });
});

test('takes a fixed amount off before tax', () => {
  assert.deepEqual(cartTotal([item(20)], 'FIVEOFF', 0.1), { subtotal: 20, discount: 5, tax: 1.5, total: 16.5 });
});

test('never discounts more than the subtotal', () => {
  assert.deepEqual(cartTotal([item(3)], 'FIVEOFF', 0.1), { subtotal: 3, discount: 3, tax: 0, total: 0 });
});

test('rounds tax to the cent', () => {
  assert.deepEqual(cartTotal([item(19.99)], undefined, 0.0825), {
    subtotal: 19.99,
    discount: 0,
    tax: 1.65,
    total: 21.64,
  });
  assert.deepEqual(cartTotal([item(33.33, 3)], 'SAVE10', 0.07), {
    subtotal: 99.99,
    discount: 10,
    tax: 6.3,
    total: 96.29,
  });
});

test('recognises codes whatever their case and spacing', () => {
  assert.deepEqual(cartTotal([item(50)], '  save10 ', 0), { subtotal: 50, discount: 5, tax: 0, total: 45 });
});

test('an unknown code gives no discount', () => {
  assert.deepEqual(cartTotal([item(10)], 'BOGUS', 0), { subtotal: 10, discount: 0, tax: 0, total: 10 });
});
