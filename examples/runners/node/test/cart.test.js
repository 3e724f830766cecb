const test = require("node:test");
const assert = require("node:assert/strict");
const { subtotal, total } = require("../src/cart");

test("subtotal counts quantities", () => {
  assert.equal(subtotal([{ price: 50, qty: 4 }]), 200);
});

test("subtotal of two lines", () => {
  assert.equal(subtotal([{ price: 50, qty: 2 }, { price: 10, qty: 3 }]), 130);
});

test("subtotal of nothing", () => {
  assert.equal(subtotal([]), 0);
});

test("total for germany", () => {
  assert.equal(total([{ price: 100, qty: 1 }], "DE"), 119);
});

test("total for japan", { skip: "no rate yet" }, () => {
  assert.equal(total([{ price: 100, qty: 1 }], "JP"), 110);
});
