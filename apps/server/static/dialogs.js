// @ts-check
// The page's own confirmations (a <dialog>, never the browser's confirm()).

import { $ } from "./dom.js";

/**
 * Asks a yes/no question in the confirm dialog.
 * @param {string} text the question
 * @param {string} [yes] the label of the button that goes on
 * @returns {Promise<boolean>} true if the player said yes
 */
export function askConfirm(text, yes = "OK") {
  const d = $("#confirm-dialog", HTMLDialogElement);
  $("#confirm-text").textContent = text;
  $("#confirm-yes").textContent = yes;
  d.returnValue = "";
  return new Promise((resolve) => {
    d.addEventListener("close", () => resolve(d.returnValue === "yes"), { once: true });
    d.showModal();
    $("#confirm-yes").focus();
  });
}
