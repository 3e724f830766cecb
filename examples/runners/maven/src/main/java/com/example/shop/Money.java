package com.example.shop;

import java.util.Map;

/** Tax rates and amounts. */
public final class Money {
    private static final Map<String, Double> RATES = Map.of("de", 0.19, "fr", 0.2);

    private Money() {}

    /** The tax rate of a country. The bug: codes are looked up as given ("DE" is not "de"). */
    public static double taxRate(String country) {
        return RATES.get(country);
    }

    /** Cents written as units. The bug: cents are not padded. */
    public static String formatCents(int cents) {
        return (cents / 100) + "." + (cents % 100);
    }
}
