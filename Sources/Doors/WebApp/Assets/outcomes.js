// Cairn upload forms (Outcomes CSV import, Apple Health import): show how much of the file has been sent, then
// the page Cairn answers with. Any form marked data-upload-progress gets this; without JavaScript it posts as
// usual. Same origin only.
(function () {
  "use strict";
  if (!window.XMLHttpRequest || !window.FormData) { return; }
  var forms = document.querySelectorAll("form[data-upload-progress]");
  Array.prototype.forEach.call(forms, function (form) {
    var progress = form.querySelector("progress");
    var status = form.querySelector("[role=status]");
    var button = form.querySelector("button[type=submit]");
    var say = function (text) { status.hidden = false; status.textContent = text; };
    form.addEventListener("submit", function (event) {
      event.preventDefault();
      var request = new XMLHttpRequest();
      request.open("POST", form.getAttribute("action"));
      request.upload.addEventListener("progress", function (e) {
        if (!e.lengthComputable) { return; }
        var percent = Math.round(e.loaded / e.total * 100);
        progress.hidden = false;
        progress.value = percent;
        say(percent < 100 ? "Sending the file: " + percent + "%" : "Reading the file…");
      });
      request.addEventListener("load", function () {
        document.open();
        document.write(request.responseText);
        document.close();
      });
      request.addEventListener("error", function () {
        button.disabled = false;
        say("The file could not be sent to Cairn. Try again.");
      });
      button.disabled = true;
      say("Sending the file…");
      request.send(new FormData(form));
    });
  });
})();
