package com.example.shop;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class MoneyTest {
    @ParameterizedTest
    @CsvSource({"5, 0.05", "1000, 10.00", "1234, 12.34"})
    void formatsCents(int cents, String expected) {
        assertEquals(expected, Money.formatCents(cents));
    }
}
