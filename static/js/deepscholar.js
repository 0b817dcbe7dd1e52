/* DeepScholar label tasks: one unit at a time. Without this script every unit is shown.
 * Picking a label moves to the next unit; j / k (buttons with data-shortcut) move by hand. */
(function () {
  "use strict";
  const cards = Array.from(document.querySelectorAll("[data-ds-card]"));
  if (!cards.length) return;
  let current = 0;

  function show(i, focus) {
    current = Math.max(0, Math.min(cards.length - 1, i));
    cards.forEach((card, n) => {
      card.hidden = n !== current;
      // The shown card's label keys work wherever the focus is (but in a text field):
      // annotate.js picks in the group under [data-keys-current] when focus is in no group.
      card.toggleAttribute("data-keys-current", n === current);
    });
    if (focus) {
      const radio = cards[current].querySelector("input:checked") || cards[current].querySelector("input");
      (radio || cards[current]).focus();
    }
  }

  const firstOpen = cards.findIndex((card) => !card.querySelector("input:checked"));
  show(firstOpen === -1 ? 0 : firstOpen, false);
  const next = document.querySelector("[data-ds-next]");
  const prev = document.querySelector("[data-ds-prev]");
  if (next) next.addEventListener("click", () => show(current + 1, true));
  if (prev) prev.addEventListener("click", () => show(current - 1, true));
  cards.forEach((card, n) => {
    card.addEventListener("change", (event) => {
      if (event.target.matches("input[type=radio]") && n === current && n < cards.length - 1) {
        setTimeout(() => show(n + 1, true), 0);
      }
    });
  });
})();
