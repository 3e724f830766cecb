use shop::format_cents;

#[test]
fn formats_cents() {
    assert_eq!(format_cents(5), "0.05");
}

#[test]
fn formats_whole_units() {
    assert_eq!(format_cents(1000), "10.0");
}
