// Cairn: small progressive enhancements. Every page works without this file.
(function () {
  "use strict";
  // A page sent back with errors: the first field they are about gets the focus, so its error (tied to it with
  // aria-describedby) is read out and typing goes straight into it (a page may also mark that field `autofocus`).
  var invalid = document.querySelector('[aria-invalid="true"]');
  if (invalid && document.activeElement === document.body) { invalid.focus(); }
  // Delete confirmation: keep the button disabled until the confirmation word is typed (in any case).
  var input = document.getElementById("confirm");
  var button = document.getElementById("delete-confirm");
  if (input && button) {
    var sync = function () { button.disabled = input.value.trim().toUpperCase() !== "DELETE"; };
    input.addEventListener("input", sync);
    sync();
  }
  // Privacy cover: while the tab is hidden or the window has lost focus (another window, a camera prompt, a file
  // picker), an opaque cover hides the page; coming back removes it, no passphrase needed. It only covers: the vault
  // itself locks on the server (Lock now, the idle time, Cairn stopping).
  var cover = document.createElement("div");
  cover.className = "privacy-cover";
  cover.id = "privacy-cover";
  cover.setAttribute("aria-hidden", "true");
  cover.hidden = true;
  var mark = document.querySelector(".site-header .mark");
  if (mark) { cover.appendChild(mark.cloneNode(true)); }
  var words = document.createElement("p");
  words.textContent = "Cairn is covered while its window is in the background.";
  cover.appendChild(words);
  document.body.appendChild(cover);
  // A vault with a lock: after its idle time (and on coming back to the window) ask whether it is still open, and
  // show the unlock page once it is locked. Asking is not a use: it never keeps the vault open.
  var idle = parseInt(document.body.getAttribute("data-idle-seconds") || "0", 10);
  var checkLock = function () {
    if (!(idle > 0) || !window.fetch) { return; }
    fetch("/lock/state", { credentials: "same-origin", cache: "no-store" })
      .then(function (r) { return r.json(); })
      .then(function (state) { if (state.locked) { window.location.assign("/unlock?next=" + encodeURIComponent(window.location.pathname)); } })
      .catch(function () {});
  };
  var uncover = function () { cover.hidden = true; checkLock(); };
  document.addEventListener("visibilitychange", function () {
    if (document.hidden) { cover.hidden = false; } else if (document.hasFocus()) { uncover(); }
  });
  window.addEventListener("blur", function () { cover.hidden = false; });
  window.addEventListener("focus", uncover);
  // Insights recomputing in the background: the progress line follows it, and the page shows the new state once
  // it is done (a failure is said in its place and the page stays as it is).
  var progress = document.getElementById("insights-progress");
  if (progress && window.fetch) {
    var follow = function () {
      fetch("/regimen/insights/progress", { credentials: "same-origin", cache: "no-store" })
        .then(function (r) { return r.json(); })
        .then(function (state) {
          if (state.state === "idle") { window.location.reload(); return; }
          progress.textContent = state.text;
          if (state.state === "running") { window.setTimeout(follow, 1000); }
        })
        .catch(function () {});
    };
    window.setTimeout(follow, 1000);
  }
  // A lock change (Settings): the form's page waits until the whole vault is converted; meanwhile its status line
  // follows /lock/state and says how many photos are done. The "lock is changing" page reloads itself when done.
  var followChange = function (line, done) {
    if (!window.fetch) { return; }
    var follow = function () {
      fetch("/lock/state", { credentials: "same-origin", cache: "no-store" })
        .then(function (r) { return r.json(); })
        .then(function (state) {
          if (state.changing) { line.textContent = state.changing; } else if (done) { done(); return; }
          window.setTimeout(follow, 1000);
        })
        .catch(function () {});
    };
    window.setTimeout(follow, 500);
  };
  Array.prototype.forEach.call(document.querySelectorAll("form[data-lock-change]"), function (form) {
    var line = form.querySelector(".lock-progress");
    if (line) { form.addEventListener("submit", function () { followChange(line, null); }); }
  });
  var changing = document.getElementById("lock-changing");
  if (changing) { followChange(changing, function () { window.location.reload(); }); }
  if (idle > 0) {
    var watch = function () { checkLock(); window.setTimeout(watch, 30000); };
    window.setTimeout(watch, idle * 1000 + 2000);
  }
})();
// Settings → Use your phone: reloads the page when the phone session changes (a phone asks to join, a new code).
(function () {
  "use strict";
  var state = document.getElementById("phone-session-state");
  if (!state) { return; }
  var check = function () {
    fetch("/phone/state", { cache: "no-store", credentials: "same-origin" })
      .then(function (r) { return r.json(); })
      .then(function (s) { if (s.stamp !== state.getAttribute("data-stamp")) { window.location.reload(); } else { window.setTimeout(check, 2000); } })
      .catch(function () {});
  };
  window.setTimeout(check, 2000);
})();
