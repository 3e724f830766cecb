//! A small shop with bugs, for agentout's runner examples.

/// One product in the cart.
pub struct Line {
    pub price: u32,
    pub qty: u32,
}

/// The sum of the lines. The bug: a line's quantity is ignored.
pub fn subtotal(lines: &[Line]) -> u32 {
    lines.iter().map(|l| l.price).sum()
}

/// The tax rate of a country. The bug: only lower-case codes are known.
pub fn tax_rate(country: &str) -> f64 {
    match country {
        "de" => 0.19,
        "fr" => 0.2,
        _ => None.unwrap(),
    }
}

/// Cents written as units. The bug: cents are not padded.
pub fn format_cents(cents: u32) -> String {
    format!("{}.{}", cents / 100, cents % 100)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn subtotal_counts_quantity() {
        assert_eq!(subtotal(&[Line { price: 50, qty: 4 }]), 200);
    }

    #[test]
    fn subtotal_of_two_lines() {
        let lines = [Line { price: 50, qty: 2 }, Line { price: 10, qty: 3 }];
        assert_eq!(subtotal(&lines), 130);
    }

    #[test]
    fn subtotal_of_nothing() {
        assert_eq!(subtotal(&[]), 0);
    }

    #[test]
    fn tax_rate_any_case() {
        assert_eq!(tax_rate("DE"), 0.19);
    }

    #[test]
    #[ignore = "not yet"]
    fn tax_rate_japan() {
        assert_eq!(tax_rate("jp"), 0.1);
    }
}
