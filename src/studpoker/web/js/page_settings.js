// The settings dialog (⚙): four-colour cards, the turn chime (the same switch as the mute
// buttons: sound.js), the keyboard shortcuts (shown on the buttons or not, and rebound:
// shortcuts.js), and the "?" list of shortcuts. Kept in localStorage, but for the bindings.

import { setFourColour, isFourColour } from "./cards.js";
import { onSoundChange, setSound, soundOn, wireMuteButton } from "./sound.js";

const $ = (sel) => document.querySelector(sel);

/** Read the stored settings into the page. */
export function applySettings() {
  setFourColour(localStorage.getItem("studpoker.fourColour") === "on");
  $("#opt-fourcolour").checked = isFourColour();
  $("#opt-sound").checked = soundOn();
  const keys = localStorage.getItem("studpoker.keys") !== "off";
  $("#opt-keys").checked = keys;
  document.body.classList.toggle("no-keys", !keys);
}

/** Wire the settings' controls; `redraw()` draws the open table again (the card colours changed). */
export function wireSettings({ shortcuts, redraw }) {
  $("#opt-fourcolour").addEventListener("change", (e) => {
    localStorage.setItem("studpoker.fourColour", e.target.checked ? "on" : "off");
    applySettings();
    redraw();
  });
  // the table's mute button and the settings checkbox are one switch (sound.js)
  wireMuteButton($("#mute-btn"));
  onSoundChange((on) => ($("#opt-sound").checked = on));
  $("#opt-sound").addEventListener("change", (e) => setSound(e.target.checked));
  $("#opt-keys").addEventListener("change", (e) => {
    localStorage.setItem("studpoker.keys", e.target.checked ? "on" : "off");
    applySettings();
  });
  $("#settings-btn").addEventListener("click", () => $("#settings").showModal());
  $("#settings-btn").addEventListener("click", () => shortcuts.renderSettings());
  $("#help-btn").addEventListener("click", () => shortcuts.openHelp());
}
