const test = require("node:test");
const assert = require("node:assert/strict");
const { formatCents } = require("../src/money");

test("formats cents", async (t) => {
  for (const [cents, expected] of [[5, "0.05"], [1000, "10.00"], [1234, "12.34"]]) {
    await t.test(`${cents} cents`, () => {
      assert.equal(formatCents(cents), expected);
    });
  }
});
