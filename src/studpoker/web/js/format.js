// Amounts are integers in the table's smallest unit (cents); players read them in the room's
// units with two decimals, everywhere (table, lobby, histories): the same text as the server's
// studpoker.money.format_money, so that the table's 40.00 is the history's 40.00.

export function money(cents) {
  if (cents === null || cents === undefined || Number.isNaN(Number(cents))) return "";
  const units = Math.round(Number(cents));
  const sign = units < 0 ? "-" : "";
  const abs = Math.abs(units);
  return `${sign}${Math.floor(abs / 100)}.${String(abs % 100).padStart(2, "0")}`;
}

/** A count (seats, hands, hands per hour): a whole number, never decimals. */
export function count(n) {
  if (n === null || n === undefined || Number.isNaN(Number(n))) return "–";
  return String(Math.round(Number(n)));
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
