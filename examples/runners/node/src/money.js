const RATES = { de: { rate: 0.19 }, fr: { rate: 0.2 } };

// The bug: country codes are looked up as given ("DE" is not "de").
function taxRate(country) {
  return RATES[country].rate;
}

// The bug: cents are not padded ("0.5" for 5 cents).
function formatCents(cents) {
  return `${Math.floor(cents / 100)}.${cents % 100}`;
}

module.exports = { taxRate, formatCents };
