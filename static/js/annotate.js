/* Task pages: keyboard shortcuts, dialogs, and never losing a pending change.
 * Saving itself is htmx (hx-post on the form); this file only adds what htmx cannot do. */
(function () {
  "use strict";
  const form = document.getElementById("task-form");
  const hint = document.getElementById("shortcut-hint");
  let pending = "";
  let pendingTimer = null;
  let dirty = false;

  function isTextEntry(el) {
    if (!el) return false;
    if (el.isContentEditable || el.tagName === "TEXTAREA" || el.tagName === "SELECT") return true;
    if (el.tagName !== "INPUT") return false;
    return !["radio", "checkbox", "button", "submit", "range"].includes(el.type);
  }

  function shortcuts() {
    const map = new Map();
    document.querySelectorAll("[data-shortcut]").forEach((el) => {
      if (!el.disabled) map.set(el.dataset.shortcut, el);
    });
    return map;
  }

  function setHint(text) {
    if (hint) hint.textContent = text;
  }

  function activate(el) {
    if (el.matches("input[type=radio], input[type=checkbox], button")) {
      el.click();
      el.focus({ preventScroll: true });
    } else {
      el.focus();
    }
    const label = el.closest("label");
    setHint("Selected: " + (label ? label.textContent.replace(/\s+/g, " ").trim() : el.dataset.shortcut));
  }

  function openDialog(id) {
    const dialog = document.getElementById(id);
    if (dialog && !dialog.open) dialog.showModal();
  }

  document.addEventListener("keydown", (event) => {
    if (event.key === "Enter" && (event.ctrlKey || event.metaKey)) {
      const button = document.getElementById("submit-btn");
      if (button) {
        event.preventDefault();
        button.click();
      }
      return;
    }
    if (event.ctrlKey || event.metaKey || event.altKey) return;
    if (document.querySelector("dialog[open]")) return;
    if (isTextEntry(event.target)) {
      if (event.key === "Escape") event.target.blur();
      return;
    }
    const key = event.key.length === 1 ? event.key.toLowerCase() : event.key;
    // In a group with data-keys (ratings, coverage labels…), a key picks that option.
    const group = event.target.closest && event.target.closest("[data-keys]");
    if (group && !pending && group.dataset.keys.includes(key) && key.length === 1) {
      const option = group.querySelector(`input[data-key="${CSS.escape(key)}"]`);
      if (option) {
        event.preventDefault();
        option.click();
        option.focus();
        return;
      }
    }
    const map = shortcuts();
    if (pending) {
      const el = map.get(pending + " " + key);
      pending = "";
      clearTimeout(pendingTimer);
      if (el) {
        event.preventDefault();
        activate(el);
        return;
      }
      setHint("");
    }
    if (map.has(key)) {
      event.preventDefault();
      activate(map.get(key));
      return;
    }
    const prefix = key + " ";
    if ([...map.keys()].some((k) => k.startsWith(prefix))) {
      event.preventDefault();
      pending = key;
      setHint("“" + key + "” … then the second key");
      pendingTimer = setTimeout(() => { pending = ""; setHint(""); }, 2500);
      return;
    }
    if (key === "h") { event.preventDefault(); openDialog("guidelines"); }
    if (key === "?") { event.preventDefault(); openDialog("shortcuts"); }
  });

  document.addEventListener("click", (event) => {
    const opener = event.target.closest("[data-open-dialog]");
    if (opener) openDialog(opener.dataset.openDialog);
  });

  if (!form || form.dataset.submitted === "1") return;

  // data-state on the form: dirty (unsaved edits) → saving → saved | invalid | conflict.
  let edits = 0;
  let editsAtRequest = 0;
  function setState(state) { form.dataset.state = state; }
  setState("saved");
  form.addEventListener("input", () => { dirty = true; edits += 1; setState("dirty"); });
  document.body.addEventListener("htmx:beforeRequest", (event) => {
    if (event.detail.elt !== form) return;
    editsAtRequest = edits;
    setState("saving");
    const status = document.getElementById("save-status");
    if (status && !status.classList.contains("conflict")) status.textContent = "Saving…";
  });
  document.body.addEventListener("htmx:afterRequest", (event) => {
    const status = event.detail.xhr ? event.detail.xhr.status : 0;
    if (status === 409) {
      form.dataset.conflict = "1";  // stop the leave-page beacon too
      setState("conflict");
    } else if (event.detail.elt === form) {
      if (status === 200 && edits === editsAtRequest) { dirty = false; setState("saved"); }
      else if (status === 422) setState("invalid");
      else if (status !== 200) setState("dirty");
    }
  });
  // A change typed just before leaving is sent anyway (the server checks the version as usual).
  window.addEventListener("pagehide", () => {
    if (dirty && form.dataset.conflict !== "1" && navigator.sendBeacon) {
      navigator.sendBeacon(form.getAttribute("hx-post"), new FormData(form));
    }
  });
})();
