import { test } from "node:test";
import assert from "node:assert/strict";
import { totals } from "../lib/report.js";

test("totals sums the amounts", () => {
  assert.equal(totals([{ amount: 2 }, { amount: 3 }]).sum, 5);
});

test("totals skips rows without an amount", () => {
  assert.equal(totals([{ amount: 2 }, {}]).average, 2);
});

test("totals of nothing is zero", () => {
  assert.deepEqual(totals([]), { sum: 0, average: 0 });
});
