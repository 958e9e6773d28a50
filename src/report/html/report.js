"use strict";
// Filters of the per-post rows: each row group (tbody.post) carries
// data-failing, data-error, data-changed ("true"/"false") and
// data-retriever; a button shows the groups whose flag is "true".
(function () {
  const buttons = Array.from(document.querySelectorAll("button[data-filter]"));
  const select = document.getElementById("retriever-filter");
  const groups = Array.from(document.querySelectorAll("tbody.post"));
  const shown = document.getElementById("shown");
  let filter = "all";
  function apply() {
    const retriever = select ? select.value : "";
    let n = 0;
    for (const g of groups) {
      const keep = (filter === "all" || g.dataset[filter] === "true") &&
        (retriever === "" || g.dataset.retriever === retriever);
      g.hidden = !keep;
      if (keep) n += 1;
    }
    for (const b of buttons) {
      b.setAttribute("aria-pressed", String(b.dataset.filter === filter));
    }
    if (shown) shown.textContent = n + " of " + groups.length + " rows shown";
  }
  for (const b of buttons) {
    b.addEventListener("click", () => { filter = b.dataset.filter; apply(); });
  }
  if (select) select.addEventListener("change", apply);
  apply();
  document.body.dataset.ready = "true";
})();
