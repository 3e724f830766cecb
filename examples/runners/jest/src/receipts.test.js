const { formatCents } = require("./money");

test.each([
  [5, "0.05"],
  [1000, "10.00"],
  [1234, "12.34"],
])("formats %i cents", (cents, expected) => {
  expect(formatCents(cents)).toBe(expected);
});
