// The page's notices: the toast line, and the tab title that flashes while it is your turn at
// the single table (the chime may be muted; the tile view titles the tab itself: tiles.js).

const $ = (sel) => document.querySelector(sel);

let toastTimer = null;
/** A line at the top of the page for four seconds. */
export function toast(text) {
  const el = $("#toast");
  el.textContent = text;
  el.hidden = false;
  clearTimeout(toastTimer);
  toastTimer = setTimeout(() => (el.hidden = true), 4000);
}

let titleTimer = null;
/** Flash the tab title while `app.state` says it is your turn, then give the table's name back. */
export function flashTitle(app) {
  clearInterval(titleTimer);
  let on = false;
  titleTimer = setInterval(() => {
    if (!app.state?.yourTurn) {
      clearInterval(titleTimer);
      if (app.view) document.title = `${app.view.name}: ${app.view.gameName}`;
      return;
    }
    on = !on;
    document.title = on ? "▶ Your turn!" : `${app.view?.name ?? "studpoker"}`;
  }, 900);
}
