// Direct uploads from the page (static/js/page.js calls IngestDirect.send): the file goes
// straight to the bucket. POST /api/uploads/ answers with a form to POST there, or, for a
// large file, a URL per part to PUT (a part that fails is sent again, alone, up to
// RETRIES times); then the upload is completed. A service whose uploads are not in a
// bucket answers 409 `direct_upload_unavailable`, and the page sends the file the usual way.
window.IngestDirect = (function () {
  "use strict";

  var RETRIES = 3;
  var COMPLETE_TRIES = 5; // the bucket may show a fresh object a moment late

  function request(method, url, body, headers, onProgress) {
    return new Promise(function (resolve) {
      var xhr = new XMLHttpRequest();
      xhr.open(method, url);
      Object.keys(headers || {}).forEach(function (name) { xhr.setRequestHeader(name, headers[name]); });
      if (onProgress) {
        xhr.upload.addEventListener("progress", function (event) {
          if (event.lengthComputable) onProgress(event.loaded);
        });
      }
      xhr.addEventListener("loadend", function () { resolve(xhr); });
      xhr.send(body);
    });
  }

  function ok(xhr) { return xhr.status >= 200 && xhr.status < 300; }

  function code(xhr) {
    try { return JSON.parse(xhr.responseText || "{}").code; } catch (e) { return ""; }
  }

  // hooks: csrf, labels ({tags, metadata}), progress(fraction), accepted(xhr),
  // refused(xhr or text), fallback().
  function send(file, hooks) {
    var api = { "X-CSRFToken": hooks.csrf, "Accept": "application/json", "Content-Type": "application/json" };
    var declared = { filename: file.name, size: file.size };
    if (hooks.labels.tags.length) declared.tags = hooks.labels.tags;
    if (hooks.labels.metadata) declared.metadata = hooks.labels.metadata;
    return request("POST", hooks.api, JSON.stringify(declared), api).then(function (xhr) {
      if (xhr.status === 409 && code(xhr) === "direct_upload_unavailable") return hooks.fallback();
      if (xhr.status !== 201) return hooks.refused(xhr);
      var started = JSON.parse(xhr.responseText);
      var sent = started.method === "POST" ? sendForm(file, started, hooks) : sendParts(file, started, hooks);
      return sent.then(function (problem) {
        if (problem) return hooks.refused(problem);
        return complete(started, api, hooks, 1);
      });
    });
  }

  function sendForm(file, started, hooks) {
    var data = new FormData();
    Object.keys(started.fields).forEach(function (name) { data.append(name, started.fields[name]); });
    data.append("file", file, file.name); // the bucket reads the file last
    return request("POST", started.url, data, {}, function (loaded) {
      hooks.progress(loaded / file.size);
    }).then(function (xhr) {
      return ok(xhr) ? null : "The storage refused the file (" + xhr.status + "). Try again.";
    });
  }

  function sendParts(file, started, hooks) {
    var done = 0;
    var offset = 0;
    var parts = started.parts.map(function (part) {
      var piece = { part: part, start: offset };
      offset += part.size;
      return piece;
    });
    function sendPart(index, tries) {
      if (index >= parts.length) return Promise.resolve(null);
      var piece = parts[index];
      var blob = file.slice(piece.start, piece.start + piece.part.size);
      return request("PUT", piece.part.url, blob, {}, function (loaded) {
        hooks.progress((done + loaded) / file.size);
      }).then(function (xhr) {
        if (ok(xhr)) {
          done += piece.part.size;
          return sendPart(index + 1, 1);
        }
        if (tries < RETRIES) return sendPart(index, tries + 1); // this part again, alone
        return "Part " + piece.part.number + " could not be sent (" + xhr.status + "). Try again.";
      });
    }
    return sendPart(0, 1);
  }

  function complete(started, headers, hooks, tries) {
    return request("POST", started.complete_url, null, headers).then(function (xhr) {
      if (xhr.status === 202) return hooks.accepted(xhr);
      if (xhr.status === 409 && code(xhr) === "upload_incomplete" && tries < COMPLETE_TRIES) {
        return new Promise(function (resolve) { setTimeout(resolve, 1000 * tries); })
          .then(function () { return complete(started, headers, hooks, tries + 1); });
      }
      return hooks.refused(xhr);
    });
  }

  return { send: send };
})();
