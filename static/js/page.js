// The upload page: uploads with per-file progress, the live-status socket's state, and
// the polling fallback. Rows themselves are server-rendered; htmx swaps them.
(function () {
  "use strict";

  var socketUp = false;
  var sending = 0;
  var waiting = [];
  var PARALLEL = 3;
  // Rows being fetched for showRow, by document id. A push about such a row that arrives
  // meanwhile finds no row to update yet, or is newer than what the fetch read: the row
  // is fetched again once this fetch is done ("again"), or not shown if it was deleted
  // ("gone").
  var fetching = {};

  function csrfToken() {
    var headers = JSON.parse(document.body.getAttribute("hx-headers") || "{}");
    return headers["X-CSRFToken"] || "";
  }

  function notice(message) {
    var box = document.getElementById("notice");
    if (!box) return;
    box.textContent = message;
    box.hidden = false;
    clearTimeout(notice.timer);
    notice.timer = setTimeout(function () { box.hidden = true; }, 8000);
  }

  // Sizes and durations as config/humanize.py writes them on the server.
  function humanSize(bytes) {
    if (bytes < 1024) return bytes + " bytes";
    var units = ["KiB", "MiB", "GiB", "TiB"];
    var value = bytes;
    var unit = -1;
    do { value /= 1024; unit += 1; } while (value >= 1024 && unit < units.length - 1);
    return Number(value.toFixed(1)) + " " + units[unit];
  }

  function duration(seconds) {
    if (seconds < 60) return Math.max(1, Math.ceil(seconds)) + " s";
    if (seconds < 90 * 60) {
      var minutes = Math.ceil(seconds / 60);
      return "about " + minutes + " minute" + (minutes > 1 ? "s" : "");
    }
    return "about " + Math.round(seconds / 3600) + " hours";
  }

  function waitText(seconds) {
    if (!seconds || isNaN(seconds)) return "in a moment";
    return "in " + duration(seconds);
  }

  // What a person should read for a refused upload.
  function refusal(xhr) {
    var body = {};
    try { body = JSON.parse(xhr.responseText || "{}"); } catch (e) { body = {}; }
    var result = (body.results && body.results[0]) || body; // a completion's own error too
    var detail = (result.error && result.error.detail) || body.detail;
    if (body.code === "invalid" && body.fields) {  // bad tags or metadata: say which, and why
      detail = Object.keys(body.fields).map(function (name) {
        return name + ": " + [].concat(body.fields[name]).join(" ");
      }).join(" ");
    }
    var retryAfter = parseInt(xhr.getResponseHeader("Retry-After"), 10);
    switch (xhr.status) {
      case 429:
        return "You have sent a lot at once; try again " + waitText(retryAfter) + ".";
      case 503:
        return "The service is busy; try again " + waitText(retryAfter) + ".";
      case 401:
      case 403:
        return "Your session has ended. Sign in again, then upload this file.";
      case 413:
      case 415:
      case 400:
        return detail || "This file was refused.";
      default:
        return detail || "The upload failed (" + xhr.status + "). Try again.";
    }
  }

  function uploadItem(file, what) {
    var item = document.createElement("li");
    item.className = "upload";
    item.setAttribute("data-state", "waiting");
    var name = document.createElement("span");
    name.className = "name";
    name.textContent = file.name;
    if (what) {
      var kind = document.createElement("span");
      kind.className = "kind";
      kind.textContent = what;
      name.append(" ", kind);
    }
    var size = document.createElement("span");
    size.className = "meta";
    size.textContent = humanSize(file.size);
    var bar = document.createElement("progress");
    bar.max = 100;
    bar.value = 0;
    bar.setAttribute("aria-label", "Sending " + file.name);
    var state = document.createElement("span");
    state.className = "state";
    state.textContent = "waiting";
    item.append(name, size, bar, state);
    document.getElementById("uploads").prepend(item);
    return item;
  }

  function settle(item, kind, message) {
    item.setAttribute("data-state", kind);
    item.querySelector(".state").textContent = message;
    var bar = item.querySelector("progress");
    if (bar) bar.remove();
    if (kind === "accepted") {
      setTimeout(function () { item.remove(); }, 4000);
    } else {
      var dismiss = document.createElement("button");
      dismiss.type = "button";
      dismiss.className = "small link";
      dismiss.textContent = "Dismiss";
      dismiss.setAttribute("aria-label", "Dismiss " + item.querySelector(".name").firstChild.textContent);
      dismiss.addEventListener("click", function () { item.remove(); });
      item.append(dismiss);
    }
  }

  // Whether a row has every tag the list is filtered by (the "with tags" box).
  function hasFilterTags(row) {
    var box = document.getElementById("tag-filter");
    if (!box || !box.value.trim()) return true;
    var has = Array.prototype.map.call(row.querySelectorAll("a.tag"), function (a) { return a.textContent; });
    return box.value.split(",").every(function (tag) {
      return !tag.trim() || has.indexOf(tag.trim()) !== -1;
    });
  }

  // Put a new row where a reload would: the list is newest first (data-created, the
  // document's creation as epoch seconds with microseconds, all of one length). A row older
  // than every row shown belongs on a later page, if there is one. False: not placed.
  function placeRow(rows, row, listing) {
    var created = row.getAttribute("data-created") || "";
    var shown = rows.querySelectorAll("tr.row");
    for (var i = 0; i < shown.length; i++) {
      if ((shown[i].getAttribute("data-created") || "") < created) {
        shown[i].before(row);
        return true;
      }
    }
    if (parseInt(listing.getAttribute("data-pages") || "1", 10) > 1) return false;
    rows.append(row);
    return true;
  }

  // The page's rows read again from the database (the list, or a document's page's row:
  // whatever listens for "refresh"), as the polling reads them. One read at a time: asked
  // again while one is on its way, which may have read the rows before the change that
  // asks, it reads once more when that one is done.
  var rereading = null; // the read's request, while it is on its way
  var rereadAgain = false;

  function isReread(elt) {
    return Boolean(elt && elt.getAttribute && elt.getAttribute("data-poll") === "when-needed");
  }

  function readRowsAgain() {
    if (rereading) {
      rereadAgain = true;
      return;
    }
    htmx.trigger(document.body, "refresh");
  }

  // Put a document's row in the list, where a reload would, if the list shows rows in its status
  // and with the tags it is filtered by:
  // one this page just uploaded (queued), or one uploaded elsewhere that a push announces.
  function showRow(documentId, status) {
    var listing = document.getElementById("listing");
    var form = document.getElementById("upload-form");
    if (!listing || !form) return;
    var filter = document.getElementById("status-filter");
    var page = listing.getAttribute("data-page");
    if ((filter && filter.value && filter.value !== (status || "queued")) || (page && page !== "1")) return;
    if (fetching[documentId]) {
      fetching[documentId] = "again";
      return;
    }
    fetching[documentId] = true;
    var url = form.getAttribute("data-row-url").replace("00000000-0000-0000-0000-000000000000", documentId);
    fetch(url, { credentials: "same-origin", headers: { "HX-Request": "true" } })
      .then(function (response) { return response.ok ? response.text() : ""; })
      .then(function (html) {
        if (!html || fetching[documentId] === "gone") return;
        var rows = document.getElementById("rows");
        var template = document.createElement("template");
        template.innerHTML = html.trim();
        var row = template.content.firstElementChild;
        if (!hasFilterTags(row)) return;
        var existing = document.getElementById(row.id);
        if (existing) existing.replaceWith(row);
        else if (!placeRow(rows, row, listing)) return;
        var empty = rows.querySelector("tr.empty");
        if (empty) empty.remove();
        htmx.process(row);
      })
      .finally(function () {
        var again = fetching[documentId] === "again";
        delete fetching[documentId];
        if (again) showRow(documentId, status);
      });
  }

  // After a new version was accepted: its row (in the list, or on the document's page)
  // and the page's facts and versions show it; pushes keep the row moving from there.
  function versionAccepted(result) {
    showRow(result.document_id);
    if (!document.getElementById("listing")) {
      htmx.trigger(document.body, "refresh");
      readDocumentAgain();
    }
  }

  // A document's page: its title, facts, versions and history read again, and the search
  // box's title and the text of the version search serves (one request, one at a time; a
  // change meanwhile reads once more after it).
  var DOCUMENT_PARTS = ["doc-title", "facts", "version-list", "history", "search-title", "served-text"];
  var reading = false;
  var readAgain = false;

  function readDocumentAgain() {
    var list = document.getElementById("version-list");
    if (!list) return;
    if (reading) {
      readAgain = true;
      return;
    }
    reading = true;
    fetch(list.getAttribute("data-url"), { credentials: "same-origin" })
      .then(function (response) { return response.ok ? response.text() : ""; })
      .then(function (html) {
        if (!html) return;
        var fresh = new DOMParser().parseFromString(html, "text/html");
        DOCUMENT_PARTS.forEach(function (id) {
          var shown = document.getElementById(id);
          var read = fresh.getElementById(id);
          if (shown && read) shown.replaceWith(document.importNode(read, true));
        });
        // The new-version button names the file: its label alone changes, so focus stays on it.
        var button = document.querySelector("#versions button[data-new-version]");
        var readButton = fresh.querySelector("#versions button[data-new-version]");
        if (button && readButton) button.setAttribute("aria-label", readButton.getAttribute("aria-label"));
        followServedVersion(fresh);
      })
      .finally(function () {
        reading = false;
        if (readAgain) {
          readAgain = false;
          readDocumentAgain();
        }
      });
  }

  // Once a newer version is the one search serves, the document's own search box names its
  // file, and a search it shows is run again: its results are then of the new version.
  // The box itself stays as it is, with what is typed in it and the focus.
  function followServedVersion(fresh) {
    var shown = document.getElementById("document-search");
    var read = fresh.getElementById("document-search");
    if (!shown || !read || shown.getAttribute("data-version") === read.getAttribute("data-version")) return;
    shown.setAttribute("data-version", read.getAttribute("data-version"));
    var box = document.getElementById("search-q");
    var readBox = fresh.getElementById("search-q");
    if (!box || !readBox) return;
    // The longer text, which the placeholder's fitting (below) shortens where it is cut.
    box.dataset.placeholderLong = readBox.getAttribute("placeholder");
    box.setAttribute("placeholder", box.dataset.placeholderLong);
    box.dispatchEvent(new Event("placeholder-changed", { bubbles: true }));
    if (box.value.trim()) htmx.trigger(box, "search");
  }

  function accepted(upload, xhr) {
    var body = JSON.parse(xhr.responseText);
    var result = body.results ? body.results[0] : body;
    if (!upload.version) {
      settle(upload.item, "accepted", result.duplicate ? "already uploaded: shown below" : "accepted");
      showRow(result.document_id);
      return;
    }
    var message = "accepted as version " + result.version;
    if (result.duplicate && result.document_id === upload.document) {
      // The document's own current file again: no new version, nothing to process.
      message = "the same file as version " + result.version + ": nothing new";
    } else if (result.duplicate) {
      message = "these bytes are already another of your documents: shown below";
    }
    settle(upload.item, "accepted", message);
    versionAccepted(result);
  }

  // The upload form's labels: tags by commas, metadata a `key: value` a line (true, false
  // and numbers stay typed); `problem` says what is wrong with them, if anything.
  function labels() {
    var tags = document.getElementById("upload-tags");
    var lines = document.getElementById("upload-metadata");
    var given = { tags: [], metadata: null, problem: null };
    if (tags) {
      tags.value.split(",").forEach(function (tag) {
        if (tag.trim()) given.tags.push(tag.trim());
      });
    }
    if (!lines || !lines.value.trim()) return given;
    var metadata = {};
    lines.value.split("\n").forEach(function (line) {
      if (!line.trim()) return;
      var colon = line.indexOf(":");
      if (colon < 1) { given.problem = given.problem || line.trim(); return; }
      var key = line.slice(0, colon).trim();
      var value = line.slice(colon + 1).trim();
      if (value === "true" || value === "false") metadata[key] = value === "true";
      // A number JavaScript cannot hold exactly (a long one turns into Infinity, then
      // null in JSON) is sent as the text it is.
      else if (/^-?(0|[1-9][0-9]{0,14})(\.[0-9]+)?$/.test(value)) metadata[key] = Number(value);
      else metadata[key] = value;
    });
    if (given.problem) {
      given.problem = "The metadata line \u201c" + given.problem + "\u201d has no key: write it as key: value.";
    }
    given.metadata = metadata;
    return given;
  }

  // The labels as the upload API takes them: `tags` repeated, `metadata` one JSON object.
  function labelled(data) {
    var given = labels();
    given.tags.forEach(function (tag) { data.append("tags", tag); });
    if (given.metadata) data.append("metadata", JSON.stringify(given.metadata));
    return given.problem;
  }

  function showProgress(item, fraction) {
    var percent = Math.round(100 * fraction);
    item.querySelector("progress").value = percent;
    item.querySelector(".state").textContent = percent + "%";
  }

  // Straight to the bucket when the service stores uploads in one (static/js/direct.js);
  // through the API otherwise, or when the service says direct uploads are unavailable.
  function sendDirect(upload) {
    var item = upload.item;
    var given = labels();
    if (given.problem) {
      settle(item, "refused", given.problem);
      next();
      return;
    }
    sending += 1;
    item.setAttribute("data-state", "sending");
    item.querySelector(".state").textContent = "sending";
    window.IngestDirect.send(upload.file, {
      api: document.getElementById("upload-form").getAttribute("data-direct"),
      csrf: csrfToken(),
      labels: given,
      progress: function (fraction) { showProgress(item, fraction); },
      accepted: function (xhr) { accepted(upload, xhr); },
      refused: function (problem) {
        settle(item, "refused", typeof problem === "string" ? problem : refusal(problem));
      },
      fallback: function () {
        upload.proxied = true;
        send(upload);
      },
    }).catch(function () {
      settle(item, "refused", "The upload was interrupted. Check your connection and try again.");
    }).finally(function () {
      sending -= 1;
      next();
    });
  }

  function send(upload) {
    var file = upload.file;
    var item = upload.item;
    var form = document.getElementById("upload-form");
    if (!upload.version && !upload.proxied && form && form.getAttribute("data-direct") && window.IngestDirect) {
      sendDirect(upload);
      return;
    }
    var xhr = new XMLHttpRequest();
    var data = new FormData();
    data.append("file", file, file.name);
    if (!upload.version) {
      var problem = labelled(data);
      if (problem) {
        settle(item, "refused", problem);
        next();
        return;
      }
    }
    sending += 1;
    item.setAttribute("data-state", "sending");
    item.querySelector(".state").textContent = "sending";
    xhr.open("POST", upload.version || form.getAttribute("data-api"));
    xhr.setRequestHeader("X-CSRFToken", csrfToken());
    xhr.setRequestHeader("Accept", "application/json");
    xhr.upload.addEventListener("progress", function (event) {
      if (event.lengthComputable) showProgress(item, event.loaded / event.total);
    });
    xhr.addEventListener("load", function () {
      if (xhr.status === 202) {
        accepted(upload, xhr);
      } else {
        settle(item, "refused", refusal(xhr));
      }
    });
    xhr.addEventListener("error", function () {
      settle(item, "refused", "The upload was interrupted. Check your connection and try again.");
    });
    xhr.addEventListener("loadend", function () {
      sending -= 1;
      next();
    });
    xhr.send(data);
  }

  function next() {
    while (sending < PARALLEL && waiting.length) {
      send(waiting.shift());
    }
  }

  // The upload limit, from the upload form or the document page's versions card.
  function uploadLimit() {
    var holder = document.querySelector("[data-max-bytes]");
    return holder ? parseInt(holder.getAttribute("data-max-bytes"), 10) : Infinity;
  }

  function tooLarge(file, item) {
    var limit = uploadLimit();
    if (file.size <= limit) return false;
    settle(item, "refused", "This file is " + humanSize(file.size) + "; the limit is " + humanSize(limit) + ".");
    return true;
  }

  function enqueue(files) {
    Array.prototype.forEach.call(files, function (file) {
      var item = uploadItem(file);
      if (!tooLarge(file, item)) waiting.push({ file: file, item: item });
    });
    next();
  }

  // A new version of a document, from a failed row's "New version" or the document's page:
  // the file goes to the API's POST /api/documents/<id>/versions/, as the page's uploads go
  // to POST /api/documents/, with the same CSRF token, progress and refusals.
  var versionInput = null;
  var versionTarget = null;

  function chooseNewVersion(button) {
    if (!versionInput) {
      versionInput = document.createElement("input");
      versionInput.type = "file";
      // The same types as the upload form's chooser (search/file_types.py ACCEPT).
      var chooser = document.getElementById("files");
      versionInput.accept = chooser ? chooser.accept : "";
      versionInput.className = "visually-hidden";
      versionInput.tabIndex = -1;
      versionInput.setAttribute("aria-hidden", "true");
      versionInput.addEventListener("change", function () {
        var file = versionInput.files[0];
        versionInput.value = "";
        if (file && versionTarget) enqueueVersion(file, versionTarget);
      });
      document.body.append(versionInput);
    }
    var label = button.getAttribute("aria-label") || "";
    versionTarget = {
      url: button.getAttribute("data-new-version"),
      document: button.getAttribute("data-document"),
      of: label.replace(/^Upload a /, ""),
    };
    versionInput.click();
  }

  function enqueueVersion(file, target) {
    if (!document.getElementById("uploads")) return;
    var item = uploadItem(file, target.of);
    if (!tooLarge(file, item)) {
      waiting.push({ file: file, item: item, version: target.url, document: target.document });
    }
    next();
  }

  // Poll only while the socket is down and something on the page can still change.
  window.ingestNeedsPolling = function () {
    if (socketUp) return false;
    return Boolean(
      document.querySelector('#rows tr[data-status="queued"], #rows tr[data-status="processing"]')
    );
  };

  function setLive(state, text) {
    var live = document.getElementById("live");
    if (!live) return;
    live.setAttribute("data-state", state);
    live.textContent = text;
  }

  document.addEventListener("DOMContentLoaded", function () {
    var input = document.getElementById("files");
    var zone = document.getElementById("upload-form");
    if (input && zone) {
      input.addEventListener("change", function () {
        enqueue(input.files);
        input.value = "";
      });
      var label = zone.querySelector(".drop-target");
      label.addEventListener("keydown", function (event) {
        if (event.key === "Enter" || event.key === " ") { event.preventDefault(); input.click(); }
      });
      label.setAttribute("tabindex", "0");
      label.setAttribute("role", "button");
      ["dragenter", "dragover"].forEach(function (name) {
        zone.addEventListener(name, function (event) {
          event.preventDefault();
          zone.classList.add("over");
        });
      });
      ["dragleave", "drop"].forEach(function (name) {
        zone.addEventListener(name, function (event) {
          event.preventDefault();
          zone.classList.remove("over");
        });
      });
      zone.addEventListener("drop", function (event) {
        if (event.dataTransfer && event.dataTransfer.files.length) enqueue(event.dataTransfer.files);
      });
    }

    document.addEventListener("click", function (event) {
      var button = event.target.closest && event.target.closest("button[data-new-version]");
      if (button) chooseNewVersion(button);
    });
    // On a document's page, a pushed row whose status changed: its versions and facts too.
    var shownStatus = {};
    function statusShown() {
      var changed = false;
      document.querySelectorAll("table.single tr.row").forEach(function (row) {
        var status = row.getAttribute("data-status");
        if (row.id in shownStatus && shownStatus[row.id] !== status) changed = true;
        shownStatus[row.id] = status;
      });
      if (changed) readDocumentAgain();
    }
    statusShown();
    document.body.addEventListener("htmx:wsAfterMessage", statusShown);
    document.body.addEventListener("htmx:afterSwap", function (event) {
      if (event.detail.target && event.detail.target.id === "rows") statusShown();
    });

    // The list's and a row's polls (hx-trigger `every`, data-poll="when-needed") go only
    // when ingestNeedsPolling says so. Here, not as a filter in hx-trigger, which htmx
    // would run through Function(): the Content-Security-Policy runs no eval.
    document.body.addEventListener("htmx:confirm", function (event) {
      var elt = event.detail.elt;
      if (event.detail.triggeringEvent || !elt || elt.getAttribute("data-poll") !== "when-needed") return;
      if (!window.ingestNeedsPolling()) event.preventDefault();
    });
    document.body.addEventListener("htmx:beforeRequest", function (event) {
      if (isReread(event.detail.elt)) rereading = event.detail.xhr;
    });
    document.body.addEventListener("htmx:afterRequest", function (event) {
      // After the swap, or the failure. Heard here even once the list replaced itself:
      // htmx then tells the nearest ancestor still on the page, as `elt`, with the same xhr.
      if (!rereading || event.detail.xhr !== rereading) return;
      rereading = null;
      if (rereadAgain) {
        rereadAgain = false;
        readRowsAgain();
      }
    });
    document.body.addEventListener("htmx:wsOpen", function () {
      socketUp = true;
      setLive("live", "live");
      // Whatever changed while the socket was down: read it again from the database.
      readRowsAgain();
    });
    document.body.addEventListener("htmx:wsBeforeMessage", function (event) {
      var message = event.detail.message || "";
      // The queue of a lane where this user has jobs waiting moved (jobs/queue_moved.py,
      // at most about once a second): read the rows again, for their places in line and
      // for documents uploaded elsewhere that this page does not show yet.
      if (message.indexOf('<div id="queue-moved"') === 0) {
        event.preventDefault();
        readRowsAgain();
        return;
      }
      var pushed = /id="doc-([0-9a-f-]+)"/.exec(message);
      if (!pushed) return;
      // A read on its way may have read this row before the push's change.
      if (rereading) rereadAgain = true;
      if (document.getElementById("doc-" + pushed[1])) {
        if (fetching[pushed[1]]) fetching[pushed[1]] = "again";
        return;
      }
      // A push about a row this page does not show: htmx would find no target for it and
      // log an error. A deleted one is nothing to do; another is a document uploaded in
      // another tab or through the API, or one whose row is being fetched: add its row,
      // as for an upload from this page (a fetch on its way is made again after it).
      event.preventDefault();
      if (message.indexOf('hx-swap-oob="delete"') !== -1) {
        if (fetching[pushed[1]]) fetching[pushed[1]] = "gone";
        return;
      }
      var status = /data-status="([a-z_]+)"/.exec(message);
      showRow(pushed[1], status ? status[1] : undefined);
    });
    document.body.addEventListener("htmx:wsClose", function () {
      socketUp = false;
      setLive("polling", "reconnecting; checking every few seconds");
    });
    document.body.addEventListener("htmx:wsError", function () {
      socketUp = false;
      setLive("polling", "reconnecting; checking every few seconds");
    });
    document.body.addEventListener("notice", function (event) {
      notice(event.detail.value || event.detail.notice || "");
    });
    document.body.addEventListener("htmx:responseError", function (event) {
      var status = event.detail.xhr.status;
      // A refusal that says why itself (a retry refused with 429 or 503): its notice is shown.
      if (event.detail.xhr.getResponseHeader("HX-Trigger")) return;
      if (status === 404) notice("That document is gone: it was deleted, perhaps in another tab.");
      else if (status === 403) notice("Your session has ended. Reload the page and sign in again.");
      else notice("Something went wrong (" + status + "). Try again in a moment.");
    });
    document.body.addEventListener("htmx:sendError", function () {
      notice("The service cannot be reached. Check your connection.");
    });
    // Deleting from a document's own page goes back to the list.
    document.body.addEventListener("htmx:afterRequest", function (event) {
      var home = document.body.getAttribute("data-home");
      var elt = event.detail.elt;
      if (home && elt && elt.classList.contains("danger") && event.detail.successful && elt.closest("table.single")) {
        window.location = home;
      }
    });
  });
})();

// The search box: ↓ from the box goes to the first result, ↑/↓ move between results,
// Esc (in the box or on a result) clears the search and returns to the box.
(function () {
  "use strict";

  // A search that takes a while (an embedding service that is slow, a model still loading)
  // shows that it is working: "Searching…" at the right end of the box, the box marked, the
  // results dimmed and aria-busy, until an answer is in. Only after BUSY_AFTER_MS, so that a
  // quick search does not flicker. A search replaced by a newer one (hx-sync) keeps the sign
  // until the newer one is answered.
  var BUSY_AFTER_MS = 300;
  var pending = null;
  var timer = null;
  var shown = false;

  function showBusy(busy) {
    var form = document.getElementById("search-form");
    var results = document.getElementById("search-results");
    var sign = document.getElementById("search-busy");
    shown = busy;
    if (form) form.classList.toggle("busy", busy);
    if (results) {
      if (busy) results.setAttribute("aria-busy", "true");
      else results.removeAttribute("aria-busy");
    }
    if (sign) sign.textContent = busy ? "Searching\u2026" : "";
  }

  document.addEventListener("htmx:beforeRequest", function (event) {
    if (!event.detail.elt || event.detail.elt.id !== "search-form") return;
    pending = event.detail.xhr;
    if (shown || timer !== null) return;
    timer = setTimeout(function () {
      timer = null;
      if (pending) showBusy(true);
    }, BUSY_AFTER_MS);
  });
  document.addEventListener("htmx:afterRequest", function (event) {
    var ended = event.detail.xhr;
    if (!ended || ended !== pending) return;
    // After the events of this turn: a newer search that replaced this one starts in it.
    setTimeout(function () {
      if (pending !== ended) return;
      pending = null;
      clearTimeout(timer);
      timer = null;
      showBusy(false);
    }, 0);
  });

  function links() {
    return Array.prototype.slice.call(document.querySelectorAll("#search-results a.hit-link"));
  }
  document.addEventListener("keydown", function (event) {
    var box = document.getElementById("search-q");
    if (!box) return;
    var list = links();
    var at = list.indexOf(document.activeElement);
    if (event.target === box && event.key === "ArrowDown" && list.length) {
      event.preventDefault();
      list[0].focus();
    } else if (at >= 0 && event.key === "ArrowDown") {
      event.preventDefault();
      list[Math.min(at + 1, list.length - 1)].focus();
    } else if (at >= 0 && event.key === "ArrowUp") {
      event.preventDefault();
      (at === 0 ? box : list[at - 1]).focus();
    } else if ((event.target === box || at >= 0) && event.key === "Escape") {
      event.preventDefault();
      box.value = "";
      box.focus();
      if (window.htmx) htmx.trigger(box, "search");
    }
  });
})();

// The viewer (documents/page/viewer.py): opened at a passage (a search result's link, or
// an API hit's `view`), the page scrolls to put its outline in the middle of the window
// (a page is often taller than the window). Another anchor asked for wins.
(function () {
  "use strict";
  document.addEventListener("DOMContentLoaded", function () {
    var outline = document.querySelector("#viewer svg.outlines rect");
    var hash = window.location.hash;
    if (outline && (hash === "" || hash === "#viewer")) {
      outline.scrollIntoView({ block: "center" });
    }
  });
})();

// The search box's placeholder names what it searches ("Words or a phrase from your
// documents", or from the document's file name) where that fits in the box, and says less
// ("Words or a phrase") where it would be cut: a phone's width, a long file name. The
// server writes both (templates/search/_search_box.html); without JavaScript the longer
// one shows.
(function () {
  "use strict";

  // Whether `text` shows whole in the box: typed into a copy of it, which scrolls if not.
  // The copy measures what the box really shows of a text, less its padding and the room
  // the browser keeps for its clear button, in the box's own font.
  function fits(input, text) {
    var copy = input.cloneNode(false);
    copy.removeAttribute("id");
    copy.removeAttribute("name");
    copy.setAttribute("aria-hidden", "true");
    copy.tabIndex = -1;
    copy.value = text;
    copy.style.position = "absolute";
    copy.style.visibility = "hidden";
    copy.style.width = input.offsetWidth + "px";
    input.after(copy);
    var whole = copy.scrollWidth <= copy.clientWidth;
    copy.remove();
    return whole;
  }

  function fitPlaceholder() {
    var input = document.getElementById("search-q");
    if (!input || !input.dataset.placeholderShort || !input.offsetWidth) return;
    if (!input.dataset.placeholderLong) input.dataset.placeholderLong = input.placeholder;
    var long = input.dataset.placeholderLong;
    input.placeholder = fits(input, long) ? long : input.dataset.placeholderShort;
  }

  var pending = false;
  window.addEventListener("resize", function () {
    if (pending) return;
    pending = true;
    window.requestAnimationFrame(function () { pending = false; fitPlaceholder(); });
  });
  document.addEventListener("DOMContentLoaded", fitPlaceholder);
  document.addEventListener("htmx:afterSettle", fitPlaceholder);
  document.addEventListener("placeholder-changed", fitPlaceholder);
})();
