// Amounts are integers in the table's smallest unit (cents); players read them in dollars.

export function money(cents) {
  if (cents === null || cents === undefined || Number.isNaN(cents)) return "";
  const sign = cents < 0 ? "-" : "";
  const abs = Math.abs(cents);
  const whole = Math.floor(abs / 100).toLocaleString("en-US");
  const rest = abs % 100;
  return rest ? `${sign}${whole}.${String(rest).padStart(2, "0")}` : `${sign}${whole}`;
}

export function stakesText(stakes) {
  if (stakes.small === undefined) return "";
  return `${money(stakes.small)}/${money(stakes.big)}`;
}

export function escapeHtml(text) {
  return String(text ?? "").replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]);
}

const STREETS = {
  third: "3rd street", fourth: "4th street", fifth: "5th street", sixth: "6th street", seventh: "7th street",
  preflop: "Pre-flop", flop: "Flop", turn: "Turn", river: "River", showdown: "Showdown",
  3: "3rd street", 4: "4th street", 5: "5th street", 6: "6th street", 7: "7th street",
};

export function streetName(street) {
  if (street === undefined || street === null) return "";
  return STREETS[street] ?? String(street).replace(/_/g, " ");
}
