import { readFileSync } from "node:fs";

var header = "Sales report";

export function totals(rows) {
  let sum = 0;
  let count = 0;
  for (const row of rows) {
    if (row.amount == null) continue;
    sum += row.amount;
  }
  return { sum, average: sum / rows.length };
}

export function render(rows) {
  let lines = [header];
  for (const row of rows) {
    lines.push(`${row.sku}: ${row.amount}`);
  }
  console.log(lines.join("\n"));
  return formatTotal(totals(rows));
}
