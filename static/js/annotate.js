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
    // In a group with data-keys (ratings, coverage labels…), a key picks that option. Focus
    // in no such group: the group of the unit a page shows as current ([data-keys-current],
    // DeepScholar's one card at a time), so its keys work as soon as the page loads.
    const group = (event.target.closest && event.target.closest("[data-keys]")) ||
      document.querySelector("[data-keys-current]:not([hidden]) [data-keys]");
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

  if (!form) return;
  // Unsaved answers are also kept in this browser (localStorage), per assignment, until the
  // server has them: a reload or a crash during an outage loses nothing.
  const backupKey = "concord:unsaved:" + form.getAttribute("action");
  // A submit that got no answer is remembered too, so a reload still says it (notSubmitted).
  const pendingKey = "concord:submit-pending:" + form.getAttribute("action");
  if (form.dataset.submitted === "1") {
    forget();
    try { localStorage.removeItem(pendingKey); } catch (e) { /* nothing kept */ }
    return;
  }

  // data-state on the form: dirty (unsaved edits) → saving → saved | invalid | conflict |
  // unavailable (the server or database is away) | signed-out (both retried until saved).
  let edits = 0;
  let editsAtRequest = 0;
  let savedEdits = 0;  // the edits the server holds (its last 200 to an autosave)
  let submitPending = false;  // Submit was pressed and got no answer yet (notSubmitted)
  try { submitPending = localStorage.getItem(pendingKey) === "1"; } catch (e) { /* none kept */ }
  function setState(state) { form.dataset.state = state; }
  setState("saved");
  form.addEventListener("input", () => { dirty = true; edits += 1; setState("dirty"); keep(); });
  // Submit: answers still waiting for their autosave (htmx's 600 ms delay) are saved first.
  // A refused submit saves nothing, so without this the delayed autosave went after the
  // refusal and its "Draft saved" replaced the refusal's message within a second. Capture
  // phase: before htmx's own click handler, so the submit queues behind this save
  // (hx-sync); Ctrl+Enter clicks the button too.
  document.addEventListener("click", (event) => {
    if (!event.target.closest || !event.target.closest("#submit-btn")) return;
    if (edits !== savedEdits && !(form.dataset.state === "saving" && editsAtRequest === edits)) {
      saveNow();
    }
  }, true);
  document.body.addEventListener("htmx:beforeRequest", (event) => {
    if (event.detail.elt !== form) return;
    // An autosave of answers the server already holds (saved just before a submit) would
    // only replace what the page shows (a refusal) with "Draft saved": not sent.
    if (edits === savedEdits && !retryDelay) { event.preventDefault(); return; }
    editsAtRequest = edits;
    setState("saving");
    const status = document.getElementById("save-status");
    if (status && !status.classList.contains("conflict")) status.textContent = "Saving…";
  });
  document.body.addEventListener("htmx:afterRequest", (event) => {
    const status = event.detail.xhr ? event.detail.xhr.status : 0;
    const mine = form.contains(event.detail.elt);
    // A refused submit or a conflict: its message is at the foot of the judgment panel,
    // below the fold on a short window; bring it into view (it is a role="alert" too).
    if (mine && event.detail.elt !== form && [409, 422].includes(status)) {
      const box = document.getElementById("save-status");
      if (box) box.scrollIntoView({ block: "nearest" });
    }
    const away = mine && status === 200 && redirectedAway(event.detail);
    const submitting = mine && event.detail.elt !== form;
    // A submit the server answered (done, or refused with its reason shown) is no longer
    // pending; one that got no answer, or was refused for the sign-in, is (notSubmitted).
    if (submitting && [204, 409, 422].includes(status)) setSubmitPending(false);
    if (mine && UNAVAILABLE.includes(status)) {
      if (submitting) setSubmitPending(true);
      unavailable(status);
    } else if (mine && (status === 401 || away)) {
      if (submitting) setSubmitPending(true);
      signedOut(status === 401);
    } else if (status === 409) {
      resumed();
      form.dataset.conflict = "1";  // stop the leave-page beacon too
      setState("conflict");
    } else if (mine && status === 204) {
      forget();  // submitted; the page moves on
    } else if (mine && status === 403) {
      if (submitting) setSubmitPending(true);
      refused(submitPending);
    } else if (mine && !(status >= 200 && status < 300) && status !== 422) {
      if (submitting) setSubmitPending(true);
      failed(status, event.detail.elt !== form);
    } else if (event.detail.elt === form) {
      if (status === 200) { recovered(); resumed(); savedEdits = editsAtRequest; notSubmitted(); }
      if (status === 200 && edits === editsAtRequest) { dirty = false; setState("saved"); forget(); }
      else if (status === 422) setState("invalid");
      else if (status !== 200) setState("dirty");
    }
  });

  // --- Refused (403: the CSRF check, e.g. the browser's cookies were cleared mid-task) or
  // failed (any other answer not handled above: a 500, a 404, a 413) ------------------------
  // htmx draws no 4xx/5xx answer, so the box said "Saving…" forever. It says "Not saved"
  // and what to do instead; the answers stay in the form and in localStorage, as when
  // signed out. A 403 is retried: signing in again (a new tab) gives the browser a new
  // CSRF cookie, which every save sends (csrfToken), so the retry then goes through.
  function refused(submitting) {
    const verb = submitting ? "Not submitted" : "Not saved";
    holdAndRetry("refused", verb + " — the server refused this save: your sign-in or its " +
      "security cookie has ended (cookies cleared?). Your answers are kept in this browser.",
      true, "alert", 2000, 30000);
    appendAction("Sign in again", form.dataset.loginUrl,
      " (it opens a new tab); they are saved here as soon as you have. Or reload the page.");
  }

  function failed(status, submitting) {
    setState("failed");
    keep();
    const verb = submitting ? "Not submitted" : "Not saved";
    const box = document.getElementById("save-status");
    if (!box) return;
    box.className = "save-status outage";
    box.setAttribute("role", "alert");
    box.replaceChildren(Object.assign(document.createElement("strong"), {
      textContent: verb + " — the server could not save this (error " + status + ").",
    }), " Your answers are kept in this browser; reload the page to save them again.");
  }

  function appendAction(label, href, after) {
    const box = document.getElementById("save-status");
    if (!box || !href) return;
    box.append(" ", Object.assign(document.createElement("a"), {
      href: href, target: "_blank", rel: "noopener", textContent: label,
    }), after);
  }

  // --- The server is unavailable (503 from a database outage, or no answer at all) --------
  // The answers stay in the form and in localStorage; the save is retried with backoff
  // (1 s, 2 s, 4 s … 30 s) until it succeeds, and then the backup is cleared.
  const UNAVAILABLE = [0, 502, 503, 504];
  const OUTAGE = "Not saved — the server is unavailable, retrying…";
  const OUTAGE_SUBMIT = "Not submitted — the server is unavailable. Your answers are kept in " +
    "this browser and saved as soon as it is back, retrying…; then press Submit again.";
  let retryDelay = 0;
  let retryTimer = null;
  // htmx leaves 5xx answers unswapped by default: show the server's 503 message.
  document.body.addEventListener("htmx:beforeSwap", (event) => {
    if (!form.contains(event.detail.elt)) return;
    if (redirectedAway(event.detail)) {
      event.detail.shouldSwap = false;  // e.g. the login page: never drawn into the panel
    } else if ([401, 503].includes(event.detail.xhr.status)) {
      event.detail.shouldSwap = true;
      event.detail.isError = false;
    }
  });

  // --- Signed out (in another tab, or the session ended) while the page is open ------------
  // The server answers the page's saves 401 (annotation.views.annotate.signed_in_to_save);
  // an answer that is not from the address asked (a redirect, e.g. to the login page) is
  // no save either. The answers stay in the form and in localStorage, the save is retried,
  // and once the annotator has signed in again (the message links to the login page in a
  // new tab) it goes through. Signing in gives a new CSRF token: every save sends the one
  // the browser holds now (csrfToken), not the one the page was rendered with.
  const SIGNED_OUT = "Not saved — you are signed out. Your answers are kept in this browser; " +
    "sign in again (in a new tab) and they are saved here.";
  const SIGNED_OUT_SUBMIT = "Not submitted — you are signed out. Your answers are kept in this " +
    "browser; sign in again (in a new tab) and they are saved here, then press Submit again.";

  function redirectedAway(detail) {
    const xhr = detail.xhr;
    if (!xhr || !xhr.responseURL) return false;
    try {
      const asked = (detail.requestConfig && detail.requestConfig.path) || form.getAttribute("hx-post");
      return new URL(xhr.responseURL).pathname !== new URL(asked, location.href).pathname;
    } catch (e) { return false; }
  }

  function signedOut(swapped) {
    holdAndRetry("signed-out", submitPending ? SIGNED_OUT_SUBMIT : SIGNED_OUT,
      !swapped || submitPending, "alert", 2000, 10000);
  }

  function csrfToken() {
    const found = document.cookie.split("; ").find((c) => c.startsWith("csrftoken="));
    return found ? decodeURIComponent(found.slice("csrftoken=".length)) : "";
  }
  document.body.addEventListener("htmx:configRequest", (event) => {
    if (!form.contains(event.detail.elt)) return;
    const token = csrfToken();
    if (!token) return;
    event.detail.parameters["csrfmiddlewaretoken"] = token;
    document.querySelectorAll("input[name=csrfmiddlewaretoken]").forEach((el) => { el.value = token; });
  });

  function unavailable(status) {
    const box = document.getElementById("save-status");
    const told = box && status === 503 && box.dataset.outage;  // the server's own message
    holdAndRetry("unavailable", submitPending ? OUTAGE_SUBMIT : OUTAGE, !told || submitPending,
      "status", 1000, 30000);
    if (box && !told) {
      box.dataset.outage = "1";
      box.setAttribute("aria-live", "polite");
    }
  }

  // Not saved for now (the server is away, or the annotator is signed out): the answers
  // stay in the form and in localStorage, the box says why (``show``: unless the server's
  // own message is already there), and the save is retried with backoff from ``first`` ms
  // up to ``cap`` until it succeeds (recovered() then clears the backup's retry).
  function holdAndRetry(state, text, show, role, first, cap) {
    setState(state);
    keep();
    const box = document.getElementById("save-status");
    if (box && show) {
      box.className = "save-status outage";
      box.setAttribute("role", role);
      box.replaceChildren(Object.assign(document.createElement("strong"), { textContent: text }));
    }
    retryDelay = Math.min(retryDelay ? retryDelay * 2 : first, cap);
    clearTimeout(retryTimer);
    retryTimer = setTimeout(saveNow, retryDelay);
  }

  function recovered() {
    if (!retryDelay) return;
    retryDelay = 0;
    clearTimeout(retryTimer);
    const box = document.getElementById("save-status");
    if (box) box.prepend(Object.assign(document.createElement("strong"), { textContent: "Saved. " }));
  }

  // --- A submit that did not go through (no answer, or signed out / refused) -------------
  // The retries save the answers, never submit them: submitting is the annotator's act,
  // and its result (done, or refused with the reason) is shown for the click that made it.
  // Before, the retried save drew "Saved. Draft saved" and nothing said the task was still
  // unsubmitted: the annotator left believing it submitted (a qualification round stayed
  // undecided). While a submit is pending (submitPending) every successful save says so.
  function notSubmitted() {
    const box = document.getElementById("save-status");
    if (!submitPending || !box) return;
    // not the green of a finished save (annotate.css; on the form: htmx's settling puts the
    // server's classes back on the box after this runs)
    form.dataset.submitPending = "1";
    box.setAttribute("role", "alert");
    box.prepend(Object.assign(document.createElement("strong"), {
      className: "not-submitted",
      textContent: "Not submitted yet — your answers are saved; press Submit again. ",
    }));
  }

  function setSubmitPending(on) {
    submitPending = on;
    try {
      if (on) localStorage.setItem(pendingKey, "1"); else localStorage.removeItem(pendingKey);
    } catch (e) { /* storage unavailable: this page still knows */ }
    if (!on) delete form.dataset.submitPending;
  }

  function saveNow() {
    htmx.ajax("POST", form.getAttribute("hx-post"), {
      source: form, target: "#save-status", swap: "outerHTML",
    });
  }

  // On load: answers typed before this script ran (the page shows its form before its
  // deferred scripts run, so a fast typist or a slow connection can get there first; htmx
  // did not hear those inputs), then answers kept from an earlier visit that the server
  // never got. After htmx has set up the form (its DOMContentLoaded handler), so both
  // autosave. The form says data-ready="1" once this is done: until then, answers this
  // browser kept for the task may still be taken up, e.g. those another tab typed just now.
  function onReady() { typedBeforeReady(); restoreKept(); notSubmitted(); form.dataset.ready = "1"; }
  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", () => setTimeout(onReady, 0));
  } else {
    setTimeout(onReady, 0);
  }

  // A field whose value differs from the one the server rendered was edited before the
  // listeners were there: an edit like any other (the form is dirty, kept and autosaved).
  function typedBeforeReady() {
    const edited = [...form.elements].find((el) => {
      if (!answerField(el)) return false;
      if (el.type === "radio" || el.type === "checkbox") return el.checked !== el.defaultChecked;
      if (el.tagName === "SELECT") {
        const rendered = [...el.options].some((o) => o.defaultSelected);
        return [...el.options].some((o, i) =>
          o.selected !== (rendered ? o.defaultSelected : !el.multiple && el.size <= 1 && i === 0));
      }
      return el.type !== "hidden" && "defaultValue" in el && el.value !== el.defaultValue;
    });
    if (edited) edited.dispatchEvent(new Event("input", { bubbles: true }));
  }
  const NOT_ANSWERS = ["csrfmiddlewaretoken", "version", "client", "resume"];
  // A form element that holds an answer (not a button, a file, or the form's bookkeeping).
  function answerField(el) {
    return el.name && !NOT_ANSWERS.includes(el.name) &&
      !["button", "submit", "file"].includes(el.type);
  }
  function answers() {
    return [...new FormData(form)].filter(
      ([name, value]) => typeof value === "string" && !NOT_ANSWERS.includes(name)
    );
  }

  function baseVersion() {
    const input = document.getElementById("base-version");
    return input ? input.value : "";
  }

  function clientId() {
    const input = document.getElementById("client-id");
    return input ? input.value : "";
  }

  // The page this one continues: its id goes with the next saves until one is answered, so a
  // save of the earlier page that landed unseen (the leave-page beacon) is not a conflict.
  function resumeAs(client) {
    if (!client || client === clientId()) return;
    let input = form.querySelector("input[name=resume]");
    if (!input) {
      input = Object.assign(document.createElement("input"), { type: "hidden", name: "resume" });
      form.append(input);
    }
    input.value = client;
  }

  function resumed() {
    const input = form.querySelector("input[name=resume]");
    if (input) input.remove();
  }

  function restoreKept() {
    let kept = null;
    try { kept = JSON.parse(localStorage.getItem(backupKey) || "null"); } catch (e) { kept = null; }
    if (!kept || !Array.isArray(kept.answers)) return;
    if (JSON.stringify(kept.answers) === JSON.stringify(answers())) { forget(); return; }
    const box = document.getElementById("save-status");
    const when = new Date(kept.at).toLocaleTimeString();
    // Nothing was saved since, or only by the page that kept these answers (its last save
    // landed after it was gone): carry on where the annotator was.
    const sameWriter = kept.client && kept.client === form.dataset.writer &&
      Number(kept.version) >= Number(form.dataset.writerSince);
    if (String(kept.version) === baseVersion() || sameWriter) {
      resumeAs(kept.client);
      fill(kept.answers);
      if (box) box.textContent = "Restored your unsaved answers from " + when + "; saving…";
      return;
    }
    // Saved elsewhere since (another tab): let the annotator choose, never overwrite silently.
    if (!box) return;
    box.textContent = "This browser kept answers from " + when +
      " that were not saved, but this judgment was saved elsewhere since. ";
    const button = Object.assign(document.createElement("button"), {
      type: "button", className: "link", textContent: "Use the answers kept in this browser",
    });
    button.addEventListener("click", () => fill(kept.answers));
    box.append(button);
  }

  function fill(entries) {
    const values = new Map();
    entries.forEach(([name, value]) => values.set(name, [...(values.get(name) || []), value]));
    const changed = [];
    for (const el of form.elements) {
      if (!answerField(el)) continue;
      const wanted = values.get(el.name) || [];
      if (el.type === "radio" || el.type === "checkbox") {
        if (el.checked !== wanted.includes(el.value)) {
          el.checked = !el.checked;
          changed.push(el);
        }
      } else if (wanted.length) {
        const value = wanted.shift();
        if (el.value !== value) {
          el.value = value;
          changed.push(el);
        }
      }
    }
    // An edit like any other: the page's widgets follow, the form is dirty and autosaves.
    changed.forEach((el) => el.dispatchEvent(new Event("change", { bubbles: true })));
    if (changed.length) changed[0].dispatchEvent(new Event("input", { bubbles: true }));
  }

  // A change typed just before leaving is sent anyway (the server checks the version as usual).
  window.addEventListener("pagehide", () => {
    if (dirty && form.dataset.conflict !== "1" && navigator.sendBeacon) {
      navigator.sendBeacon(form.getAttribute("hx-post"), new FormData(form));
    }
  });

  function keep() {
    try {
      localStorage.setItem(backupKey, JSON.stringify({
        version: baseVersion(), client: clientId(), answers: answers(), at: Date.now(),
      }));
    } catch (e) { /* storage full or disabled: the form still holds the answers */ }
  }

  function forget() {
    try { localStorage.removeItem(backupKey); } catch (e) { /* nothing kept */ }
  }
})();
