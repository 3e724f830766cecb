import { expect, test } from "vitest";
import { formatCents } from "./money.js";

test.each([
  [5, "0.05"],
  [1000, "10.00"],
  [1234, "12.34"],
])("formats %i cents", (cents, expected) => {
  expect(formatCents(cents)).toBe(expected);
});
