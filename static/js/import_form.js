/* Import forms: the format list shows only the chosen kind's formats. Each format option
 * says the kinds it belongs to (data-kinds, annotation.importers.forms.FormatSelect); a
 * format of another kind is hidden and disabled, and a chosen one that no longer fits is
 * cleared. Without this script the full list stays, and the import's error names a
 * format that is not the kind's. */
(function () {
  "use strict";

  function follow(formatSelect) {
    const form = formatSelect.form;
    const kindSelect = form && form.elements[formatSelect.dataset.kindField];
    if (!kindSelect) return;

    function filter() {
      const kind = kindSelect.value;
      for (const option of formatSelect.options) {
        if (!option.dataset.kinds) continue; // the empty choice ("—") stays
        const fits = option.dataset.kinds.split(" ").includes(kind);
        option.hidden = !fits;
        option.disabled = !fits;
      }
      const chosen = formatSelect.selectedOptions[0];
      if (chosen && chosen.disabled) formatSelect.value = "";
    }

    // Each option field says where it is required (data-required-kinds, less the formats
    // of data-optional-formats, unless the checkbox of data-required-unless is ticked:
    // annotation.importers.forms._requirement_attrs); it is marked required only there.
    const needy = Array.from(form.querySelectorAll("[data-required-kinds]"));
    function mark() {
      const kind = kindSelect.value;
      const format = formatSelect.value;
      for (const field of needy) {
        const unless = field.dataset.requiredUnless && form.elements[field.dataset.requiredUnless];
        const needed =
          field.dataset.requiredKinds.split(" ").includes(kind) &&
          !(format && (field.dataset.optionalFormats || "").split(" ").includes(format)) &&
          !(unless && unless.checked);
        field.required = needed;
        const row = field.closest("p, .form-row, div");
        if (row) row.classList.toggle("import-required", needed);
      }
    }
    for (const field of needy) {
      const unless = field.dataset.requiredUnless && form.elements[field.dataset.requiredUnless];
      if (unless) unless.addEventListener("change", mark);
    }

    kindSelect.addEventListener("change", function () { filter(); mark(); });
    formatSelect.addEventListener("change", mark);
    filter();
    mark();
  }

  function start() {
    document.querySelectorAll("select[data-kind-field]").forEach(follow);
  }

  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else start();
})();
