// Cairn: small progressive enhancements. Every page works without this file.
(function () {
  "use strict";
  // A page sent back with errors: the first field they are about gets the focus, so its error (tied to it with
  // aria-describedby) is read out and typing goes straight into it (a page may also mark that field `autofocus`).
  var invalid = document.querySelector('[aria-invalid="true"]');
  if (invalid && document.activeElement === document.body) { invalid.focus(); }
  // Delete confirmation: keep the button disabled until the confirmation word is typed.
  var input = document.getElementById("confirm");
  var button = document.getElementById("delete-confirm");
  if (input && button) {
    var sync = function () { button.disabled = input.value.trim() !== "DELETE"; };
    input.addEventListener("input", sync);
    sync();
  }
})();
