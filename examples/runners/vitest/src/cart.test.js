import { describe, expect, test } from "vitest";
import { subtotal, total } from "./cart.js";

describe("cart", () => {
  test("subtotal counts quantities", () => {
    expect(subtotal([{ price: 50, qty: 4 }])).toBe(200);
  });

  test("subtotal of two lines", () => {
    expect(subtotal([{ price: 50, qty: 2 }, { price: 10, qty: 3 }])).toBe(130);
  });

  test("subtotal of nothing", () => {
    expect(subtotal([])).toBe(0);
  });

  test("total for germany", () => {
    expect(total([{ price: 100, qty: 1 }], "DE")).toBe(119);
  });

  test.skip("total for japan", () => {
    expect(total([{ price: 100, qty: 1 }], "JP")).toBe(110);
  });
});
