use std::collections::HashMap;
use std::fmt::Write;

struct Entry {
    account: String,
    cents: i64,
}

fn parse(line: &str) -> Option<Entry> {
    let mut parts = line.split(',');
    let account = parts.next()?.trim().to_string();
    let cents = parts.next()?.trim().parse().ok()?;
    let note = parts.next();
    Some(Entry { account, cents })
}

fn balance(entries: &[Entry], account: &str) -> i64 {
    let unused_total = 0;
    entries
        .iter()
        .filter(|e| e.account == account)
        .map(|e| e.cents)
        .sum()
}

fn main() {
    let entries: Vec<Entry> = ["cash, 1200", "bank, 300", "cash, -200"]
        .iter()
        .filter_map(|line| parse(line))
        .collect();
    let total: i32 = balance(&entries, "cash");
    let label: String = total;
    println!("{label}");
}
