/* Metric-wise page: claims selected by highlighting text, paragraph relevance by keyboard.
 * The claim form markup comes from <template> elements the server rendered; this file only
 * clones them, fills in values (textContent / .value, never HTML) and lets htmx autosave. */
(function () {
  "use strict";
  const form = document.getElementById("task-form");
  if (!form || form.dataset.submitted === "1") return;
  const adder = document.getElementById("claim-adder");
  const addButton = document.getElementById("claim-add-btn");
  document.body.appendChild(adder);  // positioned against the page, not the sticky panel
  const hint = document.getElementById("shortcut-hint");
  let pendingClaim = null;
  let currentPara = null;

  function say(text) { if (hint) hint.textContent = text; }
  function changed() { form.dispatchEvent(new Event("input", { bubbles: true })); }
  function elementOf(node) { return node.nodeType === Node.ELEMENT_NODE ? node : node.parentElement; }
  function isTextEntry(el) {
    return el && (el.tagName === "TEXTAREA" || el.isContentEditable ||
      (el.tagName === "INPUT" && !["radio", "checkbox", "button", "submit"].includes(el.type)));
  }

  /* Elements that end a line: list items, line breaks, rows, headings, blocks. */
  const LINE_ENDS = "li, br, tr, p, pre, blockquote, h4, h5, h6";

  /* The words of a selection, spaces folded within a line; a list item, a line break or a
     block ends a line, so a claim taken across list items keeps them apart ("…seed
     instructions\nUse LLMs…", not "…seed instructions Use LLMs…"). */
  function cleanText(range) {
    const fragment = range.cloneContents();
    fragment.querySelectorAll(".cite-tip").forEach((n) => n.remove());
    const walker = document.createTreeWalker(fragment, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      node.data = node.data.replace(/\s+/g, " ");
    }
    fragment.querySelectorAll(LINE_ENDS).forEach((el) => el.after("\n"));
    return fragment.textContent.replace(/ *\n\s*/g, "\n").trim();
  }

  function onlySpaceBetween(a, b) {
    const range = document.createRange();
    range.setStartAfter(a);
    range.setEndBefore(b);
    return range.toString().trim() === "";
  }

  /* Citations standing next to each other form one group: the shared citations of a claim. */
  function groupAround(index, wraps) {
    let start = index, end = index;
    while (start > 0 && onlySpaceBetween(wraps[start - 1], wraps[start])) start--;
    while (end < wraps.length - 1 && onlySpaceBetween(wraps[end], wraps[end + 1])) end++;
    return [start, end];
  }

  function claimEndingAt(wrap) {
    const body = wrap.closest(".para-body");
    const wraps = [...body.querySelectorAll(".cite-wrap")];
    const [start, end] = groupAround(wraps.indexOf(wrap), wraps);
    const range = document.createRange();
    if (start > 0) range.setStartAfter(wraps[start - 1]); else range.setStart(body, 0);
    range.setEndBefore(wraps[start]);
    return { body, text: cleanText(range), wraps: wraps.slice(start, end + 1) };
  }

  function claimFromSelection() {
    const selection = window.getSelection();
    if (!selection || selection.isCollapsed || !selection.rangeCount) return null;
    const range = selection.getRangeAt(0);
    const body = elementOf(range.startContainer).closest(".para-body");
    if (!body || body !== elementOf(range.endContainer).closest(".para-body")) {
      return body ? { error: "A claim stays within one paragraph." } : null;
    }
    const wraps = [...body.querySelectorAll(".cite-wrap")];
    let chosen = wraps.filter((w) => range.intersectsNode(w));
    if (chosen.length) {
      const [, end] = groupAround(wraps.indexOf(chosen[chosen.length - 1]), wraps);
      chosen = wraps.slice(wraps.indexOf(chosen[0]), end + 1);
    } else {
      const after = wraps.findIndex((w) => range.comparePoint(w, 0) > 0);
      if (after >= 0) {
        const [start, end] = groupAround(after, wraps);
        chosen = wraps.slice(start, end + 1);
      }
    }
    return { body, text: cleanText(range), wraps: chosen };
  }

  function retoken(root, tokens) {
    root.querySelectorAll("*").forEach((el) => {
      for (const attr of [...el.attributes]) {
        let value = attr.value;
        for (const [token, replacement] of Object.entries(tokens)) value = value.split(token).join(replacement);
        if (value !== attr.value) el.setAttribute(attr.name, value);
      }
    });
  }

  function renumber(container) {
    container.querySelectorAll(".claim").forEach((claim, i) => {
      claim.querySelector(".claim-n").textContent = String(i + 1);
    });
  }

  function addClaim(claim) {
    if (!claim) return;
    if (claim.error) { say(claim.error); return; }
    if (!claim.wraps.length) { say("A claim ends in citations: select text that ends in a citation."); return; }
    if (!claim.text) { say("Select the text of the claim first."); return; }
    const para = claim.body.closest(".para");
    const pid = para.dataset.report;
    const number = para.dataset.paragraph;
    const container = document.getElementById("claims-" + pid);
    // the same selection added again is one claim (the server refuses a repeat at submit)
    const repeat = [...container.querySelectorAll(".claim")].find((c) =>
      c.querySelector(".claim-paragraph-input").value === number &&
      c.querySelector(".claim-text-input").value === claim.text);
    if (repeat) {
      say("This claim is already added (claim " + repeat.querySelector(".claim-n").textContent + ").");
      return;
    }
    const cid = "c" + Date.now().toString(36) + Math.random().toString(36).slice(2, 6);
    const tokens = { "__PID__": pid, "__CID__": cid };
    const fragment = document.getElementById("claim-template").content.cloneNode(true);
    retoken(fragment, tokens);
    const fieldset = fragment.querySelector(".claim");
    const cites = fieldset.querySelector(".claim-cites");
    const seen = new Set();
    const keys = [];
    claim.wraps.forEach((wrap) => {
      const marker = wrap.querySelector(".cite");
      const key = marker.dataset.cite;
      if (seen.has(key)) return;
      seen.add(key);
      const kind = ["snippet", "link", "title_only", "bare"].find((k) => marker.dataset.kind === k) || "bare";
      const row = document.getElementById("cite-template-" + kind).content.cloneNode(true);
      retoken(row, { ...tokens, "__J__": String(keys.length) });
      row.querySelector(".claim-cite-key").textContent = key;
      // the source as the chip's tip shows it (rendering.source_html: title, snippets and
      // its "Open source" link), so a link-only source can be opened from its card
      const tip = wrap.querySelector(".cite-tip");
      if (tip) row.querySelector(".claim-cite-source").replaceChildren(...[...tip.childNodes].map((n) => n.cloneNode(true)));
      row.querySelector(".claim-cite").setAttribute("aria-label", "Does citation " + key + " support the claim?");
      cites.appendChild(row);
      keys.push(key);
    });
    fieldset.querySelector(".claim-para").textContent = number;
    fieldset.querySelector(".claim-paragraph-input").value = number;
    fieldset.querySelector(".claim-text-input").value = claim.text;
    fieldset.querySelector(".claim-text").textContent = claim.text;
    fieldset.querySelector(".claim-citations-input").value = JSON.stringify(keys);
    fieldset.querySelector(".claim-count-n").textContent = String(keys.length);
    container.appendChild(fragment);
    renumber(container);
    changed();
    const added = container.lastElementChild;
    added.scrollIntoView({ block: "nearest" });
    const first = added.querySelector("input[type=radio]");
    if (first) first.focus({ preventScroll: true });
    say("Claim added to " + container.dataset.label + " (" + keys.length + " citation" + (keys.length === 1 ? "" : "s") + ").");
  }

  function hideAdder() { adder.hidden = true; pendingClaim = null; }

  document.querySelector(".reports").addEventListener("mouseup", () => {
    setTimeout(() => {
      const claim = claimFromSelection();
      if (!claim) { hideAdder(); return; }
      pendingClaim = claim;
      const rect = window.getSelection().getRangeAt(0).getBoundingClientRect();
      adder.style.top = window.scrollY + rect.bottom + 6 + "px";
      adder.style.left = window.scrollX + rect.left + "px";
      adder.hidden = false;
      if (claim.error) say(claim.error);
    }, 0);
  });
  addButton.addEventListener("click", () => {
    addClaim(pendingClaim);
    window.getSelection().removeAllRanges();
    hideAdder();
  });

  form.addEventListener("click", (event) => {
    const remove = event.target.closest(".claim-remove");
    if (!remove) return;
    const claim = remove.closest(".claim");
    const container = claim.parentElement;
    claim.remove();
    renumber(container);
    changed();
    say("Claim removed.");
  });

  form.addEventListener("focusin", (event) => {
    const para = event.target.closest(".para");
    if (para) currentPara = para;
  });

  document.addEventListener("keydown", (event) => {
    if (event.ctrlKey || event.metaKey || event.altKey || document.querySelector("dialog[open]")) return;
    const target = event.target;
    if (isTextEntry(target)) return;
    if (event.key === "+" && target.classList && target.classList.contains("cite")) {
      event.preventDefault();
      addClaim(claimEndingAt(target.closest(".cite-wrap")));
      return;
    }
    const paras = [...document.querySelectorAll(".para[data-paragraph]")];
    if (event.key === "j" || event.key === "k") {
      event.preventDefault();
      const index = currentPara ? paras.indexOf(currentPara) : -1;
      const next = paras[Math.max(0, Math.min(paras.length - 1, index + (event.key === "j" ? 1 : -1)))];
      if (next) { currentPara = next; next.focus(); next.scrollIntoView({ block: "center" }); }
      return;
    }
    const label = { r: "R", u: "U", o: "O" }[event.key];
    if (label && currentPara) {
      const radio = currentPara.querySelector(`.rel-controls input[value="${label}"]`);
      if (radio) {
        event.preventDefault();
        radio.click();
        say("¶" + currentPara.dataset.paragraph + " marked " + label + ".");
      }
    }
  });
})();
