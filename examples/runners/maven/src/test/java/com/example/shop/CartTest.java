package com.example.shop;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import org.junit.jupiter.api.Disabled;
import org.junit.jupiter.api.Test;

class CartTest {
    @Test
    void subtotalCountsQuantity() {
        assertEquals(200, Cart.subtotal(List.of(new Cart.Line(50, 4))));
    }

    @Test
    void subtotalOfTwoLines() {
        assertEquals(130, Cart.subtotal(List.of(new Cart.Line(50, 2), new Cart.Line(10, 3))));
    }

    @Test
    void subtotalOfNothing() {
        assertEquals(0, Cart.subtotal(List.of()));
    }

    @Test
    void totalForGermany() {
        assertEquals(119, Cart.total(List.of(new Cart.Line(100, 1)), "DE"));
    }

    @Test
    @Disabled("no rate yet")
    void totalForJapan() {
        assertEquals(110, Cart.total(List.of(new Cart.Line(100, 1)), "JP"));
    }
}
