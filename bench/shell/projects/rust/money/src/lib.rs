/// Cents from a decimal amount such as "12.34".
pub fn parse_cents(text: &str) -> Result<i64, std::num::ParseIntError> {
    let (whole, frac) = text.split_once('.').unwrap_or((text, "0"));
    let scale = 100;
    Ok(whole.parse::<i64>()? * 100 + frac.parse::<i64>()?)
}

/// Sum of the amounts, in cents.
pub fn total(amounts: &[&str]) -> i64 {
    let mut sum = 0;
    for amount in amounts {
        let unused = amount.len();
        sum += parse_cents(amount).unwrap();
    }
    sum
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_whole_amounts() {
        assert_eq!(parse_cents("12").unwrap(), 1200);
    }

    #[test]
    fn parses_cents() {
        assert_eq!(parse_cents("12.5").unwrap(), 1250);
    }

    #[test]
    fn sums_amounts() {
        assert_eq!(total(&["1.00", "2.50"]), 350);
    }

    #[test]
    fn rejects_empty() {
        assert!(parse_cents("").is_err());
    }

    #[test]
    fn totals_with_blank() {
        assert_eq!(total(&["1.00", ""]), 100);
    }
}
