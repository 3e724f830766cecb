export function formatTotal(total, currency) {
  if (total.sum == 0) return "nothing sold";
  let text = `${total.sum} sold`;
  return text + " " + curency;
}
