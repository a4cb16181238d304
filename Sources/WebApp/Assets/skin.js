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
