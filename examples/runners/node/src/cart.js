const { taxRate } = require("./money");

// The bug: a line's quantity is ignored.
function subtotal(lines) {
  return lines.reduce((sum, line) => sum + line.price, 0);
}

function total(lines, country) {
  const sub = subtotal(lines);
  return sub + Math.round(sub * taxRate(country));
}

module.exports = { subtotal, total };
