import { taxRate } from "./money.js";

// The bug: a line's quantity is ignored.
export function subtotal(lines) {
  return lines.reduce((sum, line) => sum + line.price, 0);
}

export function total(lines, country) {
  const sub = subtotal(lines);
  return sub + Math.round(sub * taxRate(country));
}
