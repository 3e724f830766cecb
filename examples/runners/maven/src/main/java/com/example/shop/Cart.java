package com.example.shop;

import java.util.List;

/** A shopping cart's sums. */
public final class Cart {
    private Cart() {}

    /** One product in the cart. */
    public record Line(int price, int qty) {}

    /** The sum of the lines. The bug: a line's quantity is ignored. */
    public static int subtotal(List<Line> lines) {
        return lines.stream().mapToInt(Line::price).sum();
    }

    /** The subtotal with the country's tax. */
    public static int total(List<Line> lines, String country) {
        int sub = subtotal(lines);
        return sub + (int) Math.round(sub * Money.taxRate(country));
    }
}
