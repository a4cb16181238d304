// Skin journal pages: the overlay slider and the photo upload (sent with the CSRF header).
(function () {
  "use strict";
  var slider = document.getElementById("overlay-slider");
  var top = document.getElementById("overlay-top");
  if (slider && top) {
    var apply = function () { top.style.opacity = String(Number(slider.value) / 100); };
    slider.addEventListener("input", apply);
    apply();
  }
  var form = document.getElementById("skin-upload");
  if (form) {
    form.addEventListener("submit", function (event) {
      event.preventDefault();
      var button = document.getElementById("upload");
      if (button) { button.disabled = true; button.textContent = "Adding…"; }
      fetch(form.action, {
        method: "POST", body: new FormData(form), credentials: "same-origin",
        headers: { "X-CSRF-Token": form.getAttribute("data-csrf") || "" }
      }).then(function (response) {
        if (response.redirected) { window.location.assign(response.url); return; }
        return response.text().then(function (html) {
          document.open(); document.write(html); document.close();
        });
      }).catch(function () {
        if (button) { button.disabled = false; button.textContent = "Add photo"; }
      });
    });
  }
})();

// Guided capture: camera, ghost of the last photo, live light/focus badges from Cairn's analyzer, shutter.
(function () {
  "use strict";
  var section = document.getElementById("skin-capture");
  if (!section) { return; }
  var csrf = section.getAttribute("data-csrf") || "";
  var video = document.getElementById("camera");
  var finder = document.getElementById("viewfinder");
  var shutter = document.getElementById("shutter");
  var ghost = document.getElementById("ghost");
  var ghostSlider = document.getElementById("ghost-opacity");
  var status = document.getElementById("camera-status");
  if (ghost && ghostSlider) {
    var setGhost = function () { ghost.style.opacity = String(Number(ghostSlider.value) / 100); };
    ghostSlider.addEventListener("input", setGhost);
    setGhost();
  }
  function badge(id, label, text, good) {
    var el = document.getElementById(id);
    if (!el) { return; }
    el.textContent = label + ": " + text;
    el.classList.toggle("skin-badge-good", !!good);
    el.classList.toggle("skin-badge-check", !good);
  }
  function frame(width, quality, done) {
    var scale = width / video.videoWidth;
    var canvas = document.createElement("canvas");
    canvas.width = Math.round(video.videoWidth * scale);
    canvas.height = Math.round(video.videoHeight * scale);
    canvas.getContext("2d").drawImage(video, 0, 0, canvas.width, canvas.height);
    canvas.toBlob(done, "image/jpeg", quality);
  }
  var busy = false;
  function measure() {
    if (busy || !video.videoWidth) { return; }
    busy = true;
    frame(320, 0.8, function (blob) {
      fetch(section.getAttribute("data-quality"), {
        method: "POST", body: blob, credentials: "same-origin",
        headers: { "X-CSRF-Token": csrf, "Content-Type": "image/jpeg" }
      }).then(function (r) { return r.ok ? r.json() : null; }).then(function (q) {
        if (q) { badge("badge-light", "Light", q.light, q.lightGood); badge("badge-focus", "Focus", q.focus, q.focusGood); }
      }).catch(function () {}).then(function () { busy = false; });
    });
  }
  if (!navigator.mediaDevices || !navigator.mediaDevices.getUserMedia) {
    var noBadges = document.getElementById("badges");
    if (noBadges) { noBadges.hidden = true; }
    return;
  }
  navigator.mediaDevices.getUserMedia({ video: { facingMode: "environment", width: { ideal: 1920 } }, audio: false })
    .then(function (stream) {
      video.srcObject = stream;
      finder.hidden = false;
      shutter.hidden = false;
      var ghostControl = document.getElementById("ghost-control");
      if (ghostControl) { ghostControl.hidden = false; }
      if (status) { status.textContent = "Line the area up with the last photo. You can take the photo at any time."; }
      window.setInterval(measure, 400);
      shutter.addEventListener("click", function () {
        shutter.disabled = true;
        frame(video.videoWidth, 0.92, function (blob) {
          var data = new FormData();
          data.append("photo", blob, "camera.jpg");
          data.append("note", document.getElementById("note").value || "");
          fetch(section.getAttribute("data-upload"), {
            method: "POST", body: data, credentials: "same-origin", headers: { "X-CSRF-Token": csrf }
          }).then(function (response) {
            if (response.redirected) { window.location.assign(response.url); return; }
            return response.text().then(function (html) { document.open(); document.write(html); document.close(); });
          }).catch(function () { shutter.disabled = false; });
        });
      });
    })
    .catch(function () {
      if (status) { status.textContent = "The camera is not available. Choose a photo file below instead."; }
      var badges = document.getElementById("badges");
      if (badges) { badges.hidden = true; }
    });
})();
