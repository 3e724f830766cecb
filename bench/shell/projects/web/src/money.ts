export type Money = { cents: number; currency: string };

export function formatCents(money: Money): string {
  return `${(money.cents / 100).toFixed(2)} ${money.currency}`;
}

export function add(a: Money, b: Money): Money {
  if (a.currency !== b.currency) {
    throw new Error(`cannot add ${a.currency} to ${b.currncy}`);
  }
  return { cents: a.cents + b.cents, currency: a.currency };
}
