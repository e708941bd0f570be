// @ts-check
// Element helpers: finding the page's elements, building new ones, the error line.

/**
 * The page's element for a selector, checked: it exists and, given a type, is
 * of that type (an id the page lost fails here, not later as a null).
 * @template {Element} [T=HTMLElement]
 * @param {string} selector
 * @param {{ new (...args: any[]): T }} [type] the element's class, e.g. HTMLInputElement
 * @returns {T}
 */
export function $(selector, type) {
  const found = document.querySelector(selector);
  if (!found) throw new Error(`the page has no ${selector}`);
  if (type && !(found instanceof type)) throw new Error(`${selector} is not a ${type.name}`);
  return /** @type {T} */ (found);
}

/**
 * @typedef {string | number | boolean | null | undefined | ((event: any) => void)} AttrValue
 * An attribute's value: "class" and "text" set className and textContent,
 * "on<event>" a listener; false, null and undefined leave it out, true sets it empty.
 * @typedef {Node | string | null | undefined} Child
 */

/**
 * A new element: el("div", { class: "card", text: "PL04" }, child, ...).
 * @template {keyof HTMLElementTagNameMap} K
 * @param {K} tag
 * @param {Record<string, AttrValue>} [attrs]
 * @param {...Child} children
 * @returns {HTMLElementTagNameMap[K]}
 */
export function el(tag, attrs = {}, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (typeof v === "function") {
      if (!k.startsWith("on")) throw new Error(`el: ${k} is not an on<event> attribute`);
      e.addEventListener(k.slice(2), v);
    } else if (k === "class") e.className = v === null || v === undefined ? "" : String(v);
    else if (k === "text") e.textContent = v === null || v === undefined ? "" : String(v);
    else if (v !== undefined && v !== null && v !== false) e.setAttribute(k, v === true ? "" : String(v));
  }
  for (const c of children) if (c !== null && c !== undefined) e.append(c);
  return e;
}

/** @param {string} message the error line's text ("" hides it) */
export function showError(message) {
  const box = $("#error");
  box.textContent = message;
  box.hidden = !message;
}

/** @param {number} ms @returns {Promise<void>} */
export function sleep(ms) {
  return new Promise((resolve) => { setTimeout(resolve, ms); });
}
